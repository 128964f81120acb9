// Stands for vendored code a team excludes with --exclude: it has a bug.
#include <cuda_runtime.h>

__global__ void vendorConsume(const float *data, float *out) { out[0] = data[0]; }

void vendorStage(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *vendorBuf = nullptr;
  cudaMallocAsync(&vendorBuf, 64 * sizeof(float), ag);
  cudaDeviceSynchronize();
  vendorConsume<<<1, 1, 0, compute>>>(vendorBuf, out);
  cudaFreeAsync(vendorBuf, ag);
}
