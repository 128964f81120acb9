// Input of the CLI tests: a file with a compile error in one function and a
// cross-stream bug in another. Line numbers are asserted by the tests.
#include <cuda_runtime.h>

__global__ void consume(const float *data, float *out) { out[0] = data[0]; }

// Does not compile (an undeclared helper): its bug is not reported, the
// analysis of a body with errors would not be trustworthy.
void doesNotParse(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *broken = nullptr;
  cudaMallocAsync(&broken, 1024 * sizeof(float), ag);
  cudaStreamSynchronize(ag);
  consume<<<1, 1, 0, compute>>>(broken, out);
  undeclaredHelper(broken);
  cudaFreeAsync(broken, ag);
}

// Parses: its bug is reported beside the error.
void releaseWithoutWait(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *buf = nullptr;
  cudaMallocAsync(&buf, 1024 * sizeof(float), ag);
  cudaStreamSynchronize(ag);
  consume<<<1, 1, 0, compute>>>(buf, out);
  cudaFreeAsync(buf, ag);
}
