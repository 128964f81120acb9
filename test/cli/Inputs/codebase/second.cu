// Includes the buggy header too, and has a bug of its own.
#include "release_helper.cuh"

void secondStage(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *scratch = nullptr;
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaMallocAsync(&scratch, 64 * sizeof(float), ag);
  cudaEventRecord(allocated, ag);
  cudaStreamWaitEvent(compute, allocated, 0);
  consumeShared<<<1, 1, 0, compute>>>(scratch, out);
  cudaFreeAsync(scratch, ag);
  releaseSharedTooEarly(ag, compute, out);
}
