// reset_before_wait (ATen): the wait is there, but after the release. BUGGY.
//
// The forward records `fwdDone` and `ag` blocks on it, but the parameters are
// reset first. Between the reset and the block, any allocation on `ag` (a
// hook, another module) can be handed the block, and its kernels are not
// ordered after the forward.
// Expected: `streamlife check` warns at the reset (free-before-wait), with a
// note at the late wait.
//
// Fix: stall_producer.cpp (block first, then release).
#include "pipeline_common.h"

using namespace example;

static int run(const at::Tensor &x) {
  c10::cuda::CUDAStream ag = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent agDone, fwdDone;
  Results results;

  for (int layer = 1; layer <= kLayers; ++layer) {
    at::Tensor params = allGather(ag, layer);
    agDone.record(ag);
    agDone.block(compute);
    results.add(forward(params, x), layer);
    fwdDone.record(compute);
    // BUG: released before `ag` is ordered after the forward.
    params.reset();
    fwdDone.block(ag);
  }

  c10::cuda::device_synchronize();
  return results.print("reset_before_wait");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x);
}
