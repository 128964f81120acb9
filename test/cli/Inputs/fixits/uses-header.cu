// Includes a header whose function has a fixable finding.
#include "stage.cuh"

void run(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t allocated,
         cudaEvent_t done) {
  stageInHeader(alloc, compute, allocated, done);
}
