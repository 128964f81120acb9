// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc -- %cuda_args
// RUN: %check_streamlife -check-suffixes=FBW %s streamlife-free-before-wait -- %cuda_args
//
// cuda_runtime.h's C++ overload `cudaMallocAsync(&p, size, pool, stream)`
// has the memory pool where the C API has the stream. The model matches the
// declaration, not the name: the stream is the stream-typed parameter (a
// false warning in NCCL's enqueue.cc read the pool as the stream).

#include <cuda_runtime.h>

__global__ void consume(const float *p);

// Correct: allocated, used and freed on one stream, through a pool.
void fromPool(cudaMemPool_t pool, cudaStream_t stream) {
  float *buf;
  cudaMallocAsync(&buf, 1024, pool, stream);
  consume<<<1, 32, 0, stream>>>(buf);
  cudaFreeAsync(buf, stream);
}

// The same overload with a void** buffer.
void fromPoolVoid(cudaMemPool_t pool, cudaStream_t stream) {
  void *buf;
  cudaMallocAsync(&buf, 1024, pool, stream);
  consume<<<1, 32, 0, stream>>>(static_cast<float *>(buf));
  cudaFreeAsync(buf, stream);
}

// Buggy: the allocation stream is 'alloc' (not the pool).
void fromPoolBuggy(cudaMemPool_t pool, cudaStream_t alloc,
                   cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, pool, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is used on stream 'compute' before 'compute' is ordered after its allocation on stream 'alloc' [streamlife-use-before-alloc]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'buf' allocated on stream 'alloc' here
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES-FBW: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it [streamlife-free-before-wait]
  // CHECK-NOTES-FBW: :[[@LINE-6]]:3: note: 'buf' allocated on stream 'alloc' here
}
