// For header-functions.test: the checked file, calling helpers of a header.
#include "helpers.cuh"

void mainUsesHelpers(cudaStream_t alloc, cudaStream_t compute) {
  float *buf = nullptr;
  cudaMallocAsync(&buf, 64, alloc);
  launchOn(buf, compute);
  releaseOn(buf, alloc);
}

void mainCallsComposed(float *buf, cudaStream_t alloc, cudaStream_t compute) {
  composedCalled(buf, alloc, compute);
}
