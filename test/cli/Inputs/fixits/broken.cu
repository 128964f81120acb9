// A fixable finding in a file that does not compile: --fix leaves the file.
#include <cuda_runtime.h>

__global__ void consume(const float *p);

void waitAfterRelease(cudaStream_t alloc, cudaStream_t compute,
                      cudaEvent_t allocated, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(allocated, alloc);
  cudaStreamWaitEvent(compute, allocated, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  cudaStreamWaitEvent(alloc, done, 0);
}

int broken() { return undeclared_name; }
