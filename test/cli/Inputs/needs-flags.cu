// Input of the CLI tests: parses only with the -I and -D of its compile
// command, so a test that reaches the finding proves those flags arrived.
#include "streamlife_test_config.h"
#include <cuda_runtime.h>

#ifndef STREAMLIFE_TEST_DEFINE
#error "STREAMLIFE_TEST_DEFINE missing: the compile command's -D was dropped"
#endif

__global__ void consume(const float *data, float *out) { out[0] = data[0]; }

void releaseWithoutWait(cudaStream_t ag, cudaStream_t compute, float *out) {
  float *buf = nullptr;
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaMallocAsync(&buf, STREAMLIFE_TEST_ELEMENTS * sizeof(float), ag);
  cudaEventRecord(allocated, ag);
  cudaStreamWaitEvent(compute, allocated, 0);
  consume<<<1, 1, 0, compute>>>(buf, out);
  cudaFreeAsync(buf, ag);
}
