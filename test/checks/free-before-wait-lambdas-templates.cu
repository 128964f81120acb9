// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// Lambda bodies and template instantiations are analysed like any function;
// a finding in a template is reported once, however many instantiations
// share it.

#include <cuda_runtime.h>

template <typename T> __global__ void consume(const T *p);

// A lambda's body is its own function.
void inLambda(cudaStream_t alloc, cudaStream_t compute) {
  auto step = [&]() {
    float *buf;
    cudaMallocAsync(&buf, 1024, alloc);
    consume<<<1, 32, 0, compute>>>(buf);
    cudaFreeAsync(buf, alloc);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  };
  step();
}

// Two instantiations, one warning.
template <typename T> void generic(cudaStream_t alloc, cudaStream_t compute) {
  T *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

void instantiate(cudaStream_t a, cudaStream_t c) {
  generic<float>(a, c);
  generic<double>(a, c);
}

// A template never instantiated is not analysed.
template <typename T> void neverUsed(cudaStream_t alloc, cudaStream_t compute) {
  T *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
}
