// Input of the CLI tests: the correct hand-off. `ag` waits on an event
// recorded on `compute` after its last use of `buf`, then releases it.
#include <cuda_runtime.h>

__global__ void consume(const float *data, float *out) { out[0] = data[0]; }

void releaseAfterWait(cudaStream_t ag, cudaStream_t compute, float *out) {
  cudaEvent_t consumed;
  cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming);
  float *buf = nullptr;
  cudaMallocAsync(&buf, 1024 * sizeof(float), ag);
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventRecord(allocated, ag);
  cudaStreamWaitEvent(compute, allocated, 0);
  consume<<<1, 1, 0, compute>>>(buf, out);
  cudaEventRecord(consumed, compute);
  cudaStreamWaitEvent(ag, consumed, 0);
  cudaFreeAsync(buf, ag);
}
