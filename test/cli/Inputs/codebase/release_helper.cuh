// A header with a buggy inline helper, included by two translation units of
// the codebase: its finding must be reported once, not once per unit.
#pragma once
#include <cuda_runtime.h>

__global__ void consumeShared(const float *data, float *out) { out[0] = data[0]; }

inline void releaseSharedTooEarly(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *shared = nullptr;
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaMallocAsync(&shared, 256 * sizeof(float), ag);
  cudaEventRecord(allocated, ag);
  cudaStreamWaitEvent(compute, allocated, 0);
  consumeShared<<<1, 1, 0, compute>>>(shared, out);
  cudaFreeAsync(shared, ag);
}
