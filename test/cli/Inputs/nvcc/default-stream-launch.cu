// A release ordered after its use only by the legacy default stream: the
// kernel launched without a stream waits for compute's work, and ag's later
// work waits for it. Under nvcc's --default-stream per-thread that launch
// is on the per-thread default stream, which orders nothing.
#include <cuda_runtime.h>

__global__ void consume(const float *data, float *out) { out[0] = data[0]; }
__global__ void touch(const float *data) {}

void launchBetween(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *buf = nullptr;
  cudaMallocAsync(&buf, 1024 * sizeof(float), ag);
  cudaStreamSynchronize(ag);
  consume<<<1, 1, 0, compute>>>(buf, out);
  touch<<<1, 1>>>(buf);
  cudaFreeAsync(buf, ag);
}
