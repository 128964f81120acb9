// The fixed pipeline: the allocation stream waits for the consumer before the
// release.
#include <cuda_runtime.h>

__global__ void consumeClean(const float *data, float *out) { out[0] = data[0]; }

void cleanStage(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *buf = nullptr;
  cudaEvent_t allocated, consumed;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  cudaMallocAsync(&buf, 64 * sizeof(float), ag);
  cudaEventRecord(allocated, ag);
  cudaStreamWaitEvent(compute, allocated, 0);
  consumeClean<<<1, 1, 0, compute>>>(buf, out);
  cudaEventRecord(consumed, compute);
  cudaStreamWaitEvent(ag, consumed, 0);
  cudaFreeAsync(buf, ag);
}
