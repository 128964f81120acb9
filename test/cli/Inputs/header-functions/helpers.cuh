// Functions defined in a project header, for header-functions.test.
#pragma once
#include <cuda_runtime.h>

__global__ void consume(const float *p);

// Helpers main.cu calls: their summaries make its finding.
inline void launchOn(const float *p, cudaStream_t s) { consume<<<1, 1, 0, s>>>(p); }
inline void releaseOn(float *p, cudaStream_t s) { cudaFreeAsync(p, s); }

// Stream operations of its own, called by nobody: analysed on its own.
inline void ownOperationsUncalled(cudaStream_t alloc, cudaStream_t compute) {
  float *buf = nullptr;
  cudaMallocAsync(&buf, 64, alloc);
  consume<<<1, 1, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
}

// Only calls to helpers, called from main.cu: reached, analysed.
inline void composedCalled(float *buf, cudaStream_t alloc, cudaStream_t compute) {
  launchOn(buf, compute);
  releaseOn(buf, alloc);
}

// The same, called by nobody in main.cu: not analysed (no operation of its
// own, and nothing in the checked file reaches it).
inline void composedUncalled(float *buf, cudaStream_t alloc, cudaStream_t compute) {
  launchOn(buf, compute);
  releaseOn(buf, alloc);
}

// Nothing stream-related at all: never lowered.
inline int unrelated(int x) { return x + 1; }
inline int alsoUnrelated(int x) { return unrelated(x) * 2; }
