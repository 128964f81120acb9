// stall_producer (ATen): wait, then release. Correct, one block.
//
// After each forward, `compute` records `fwdDone` and `ag` blocks on it
// before the reassignment drops the previous layer's parameters: the next
// all-gather gets the same block, but its kernel is queued behind the wait.
// The pipeline is serialized (the all-gather cannot overlap the forward).
// Expected: `streamlife check` reports nothing.
#include "pipeline_common.h"

using namespace example;

static int run(const at::Tensor &x) {
  c10::cuda::CUDAStream ag = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent agDone, fwdDone;
  Results results;

  at::Tensor prevParams = allGather(ag, 1);
  for (int layer = 2; layer <= kLayers; ++layer) {
    agDone.record(ag);
    agDone.block(compute);
    results.add(forward(prevParams, x), layer - 1);
    fwdDone.record(compute);

    fwdDone.block(ag);                 // 1. order `ag` after the forward
    prevParams = allGather(ag, layer); // 2. only then release the block
  }
  agDone.record(ag);
  agDone.block(compute);
  results.add(forward(prevParams, x), kLayers);
  fwdDone.record(compute);
  fwdDone.block(ag);
  prevParams.reset();

  c10::cuda::device_synchronize();
  return results.print("stall_producer");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x);
}
