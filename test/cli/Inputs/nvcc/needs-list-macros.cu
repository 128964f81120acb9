// Parses only when both macros of nvcc's list value "-DFIRST=1,SECOND=2"
// arrive: nvcc splits list values at commas.
#if !defined(FIRST) || !defined(SECOND)
#error "a macro of the -D list was lost"
#endif
#include <cuda_runtime.h>

__global__ void consume(const float *data, float *out) { out[0] = data[0]; }

void releaseWithoutWait(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *buf = nullptr;
  cudaMallocAsync(&buf, 1024 * sizeof(float), ag);
  cudaStreamSynchronize(ag);
  consume<<<1, 1, 0, compute>>>(buf, out);
  cudaFreeAsync(buf, ag);
}
