// Input of the CLI tests: the canonical cross-stream bug. `buf` is allocated
// on `ag`, read by a kernel on `compute` (ordered after the allocation), and released on `ag` with nothing
// ordering `ag` after that kernel. Line numbers are asserted by the tests:
// append only at the end of this file.
#include <cuda_runtime.h>

__global__ void consume(const float *data, float *out) { out[0] = data[0]; }

void releaseWithoutWait(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *buf = nullptr;
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaMallocAsync(&buf, 1024 * sizeof(float), ag);
  cudaEventRecord(allocated, ag);
  cudaStreamWaitEvent(compute, allocated, 0);
  consume<<<1, 1, 0, compute>>>(buf, out);
  cudaFreeAsync(buf, ag);
}
