// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc -- %cuda_args
//
// streamlife-use-before-alloc: a stream-ordered allocation on stream A used
// on stream B before B is ordered after the allocation point on A (the block
// may still be in use by its previous lifetime on A). Warn at the first
// unordered use only.

#include <cuda_runtime.h>
#include <cuda.h>

__global__ void consume(const float *p);

// FBGEMM merge_pooled_embeddings shape: a temporary allocated on the
// destination stream is written by a copy on the source stream, no event.
void copyOnSourceStream(cudaStream_t dst, cudaStream_t src, const float *in) {
  float *tmp;
  cudaMallocAsync(&tmp, 1024, dst);
  cudaMemcpyAsync(tmp, in, 1024, cudaMemcpyDeviceToDevice, src);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'tmp' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst' [streamlife-use-before-alloc]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'tmp' allocated on stream 'dst' here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: record an event on 'dst' after the allocation and make 'src' wait on it before this use
  consume<<<1, 32, 0, src>>>(tmp);
  cudaStreamSynchronize(src);
  cudaFreeAsync(tmp, dst);
}

// An event recorded on the allocation stream after the allocation, waited
// for by the consumer: correct.
void orderedByEvent(cudaStream_t dst, cudaStream_t src, const float *in,
                    cudaEvent_t allocated) {
  float *tmp;
  cudaMallocAsync(&tmp, 1024, dst);
  cudaEventRecord(allocated, dst);
  cudaStreamWaitEvent(src, allocated, 0);
  cudaMemcpyAsync(tmp, in, 1024, cudaMemcpyDeviceToDevice, src);
}

// An event recorded before the allocation does not order it.
void eventBeforeAllocation(cudaStream_t dst, cudaStream_t src,
                           cudaEvent_t early) {
  float *tmp;
  cudaEventRecord(early, dst);
  cudaMallocAsync(&tmp, 1024, dst);
  cudaStreamWaitEvent(src, early, 0);
  consume<<<1, 32, 0, src>>>(tmp);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'tmp' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst'
}

// Host syncs complete the allocation.
void orderedBySyncs(cudaStream_t dst, cudaStream_t src, cudaEvent_t e) {
  float *a, *b, *c;
  cudaMallocAsync(&a, 1024, dst);
  cudaStreamSynchronize(dst);
  consume<<<1, 32, 0, src>>>(a);
  cudaMallocAsync(&b, 1024, dst);
  cudaEventRecord(e, dst);
  cudaEventSynchronize(e);
  consume<<<1, 32, 0, src>>>(b);
  cudaMallocAsync(&c, 1024, dst);
  cudaDeviceSynchronize();
  consume<<<1, 32, 0, src>>>(c);
}

// Only the first unordered use on a stream is reported.
void firstUseOnly(cudaStream_t dst, cudaStream_t src) {
  float *tmp;
  cudaMallocAsync(&tmp, 1024, dst);
  consume<<<1, 32, 0, src>>>(tmp);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'tmp' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst'
  consume<<<1, 32, 0, src>>>(tmp);
  cudaMemsetAsync(tmp, 0, 1024, src);
}

// Use on the allocation stream itself is ordered.
void sameStream(cudaStream_t s) {
  float *tmp;
  cudaMallocAsync(&tmp, 1024, s);
  consume<<<1, 32, 0, s>>>(tmp);
  cudaFreeAsync(tmp, s);
}

// The wait on only one branch: the other path uses the block unordered.
void orderedOnOneBranch(cudaStream_t dst, cudaStream_t src, cudaEvent_t e,
                        bool careful) {
  float *tmp;
  cudaMallocAsync(&tmp, 1024, dst);
  if (careful) {
    cudaEventRecord(e, dst);
    cudaStreamWaitEvent(src, e, 0);
  }
  consume<<<1, 32, 0, src>>>(tmp);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'tmp' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst'
}

// Legacy default stream: allocation on stream 0, use on a blocking stream is
// ordered; on a non-blocking stream it is not.
void legacyAllocation() {
  cudaStream_t blocking, nonBlocking;
  cudaStreamCreate(&blocking);
  cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking);
  float *a, *b;
  cudaMallocAsync(&a, 1024, 0);
  cudaMallocAsync(&b, 1024, 0);
  consume<<<1, 32, 0, blocking>>>(a);
  consume<<<1, 32, 0, nonBlocking>>>(b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is used on stream 'nonBlocking' before 'nonBlocking' is ordered after its allocation on the legacy default stream
}

// Allocated in a loop on one stream, used on another: each iteration's
// allocation needs its own ordering.
void allocationInLoop(cudaStream_t dst, cudaStream_t src, cudaEvent_t e,
                      int n) {
  for (int i = 0; i < n; ++i) {
    float *tmp;
    cudaMallocAsync(&tmp, 1024, dst);
    consume<<<1, 32, 0, src>>>(tmp);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'tmp' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst'
    cudaStreamSynchronize(src);
    cudaFreeAsync(tmp, dst);
  }
}

// A helper that uses its buffer on the stream it is given.
static void fill(float *data, cudaStream_t stream) {
  cudaMemsetAsync(data, 0, 1024, stream);
}

void helperUseBeforeAlloc(cudaStream_t dst, cudaStream_t src) {
  float *tmp;
  cudaMallocAsync(&tmp, 1024, dst);
  fill(tmp, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'tmp' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst'
}

// The driver API.
void driverUseBeforeAlloc(CUstream dst, CUstream src, const void *host,
                          CUevent e) {
  CUdeviceptr a, b;
  cuMemAllocAsync(&a, 1024, dst);
  cuMemcpyHtoDAsync(a, host, 1024, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is used on stream 'src' before 'src' is ordered after its allocation on stream 'dst'
  cuMemAllocAsync(&b, 1024, dst);
  cuEventRecord(e, dst);
  cuStreamWaitEvent(src, e, 0);
  cuMemcpyHtoDAsync(b, host, 1024, src);
}
