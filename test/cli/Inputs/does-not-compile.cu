// Input of the CLI tests: two compile errors.
#include <cuda_runtime.h>

void broken(cudaStream_t s) {
  float *p = undeclaredAllocator(s);
  cudaFreeAsync(p, s, 42);
}
