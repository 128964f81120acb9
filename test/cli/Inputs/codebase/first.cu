// Includes the buggy header and calls it; no bug of its own.
#include "release_helper.cuh"

void firstStage(cudaStream_t ag, cudaStream_t compute, float *out) {
  releaseSharedTooEarly(ag, compute, out);
}
