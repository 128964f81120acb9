// `streamlife check --fix` fixture: two findings with a certain fix (a wait
// after the release; a consumer event recorded before the last use) and,
// once fixed, nothing left to report. The consumer is ordered after each
// allocation, so use-before-alloc has nothing to say either.
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

void recordBeforeUse(cudaStream_t alloc, cudaStream_t compute,
                     cudaEvent_t allocated, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(allocated, alloc);
  cudaStreamWaitEvent(compute, allocated, 0);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}
