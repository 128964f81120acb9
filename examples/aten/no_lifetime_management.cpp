// no_lifetime_management (ATen): the seed's buggy pipeline with tensors. BUGGY.
//
// The all-gather stream `ag` allocates each layer's parameters (allGather
// runs under a CUDAStreamGuard on `ag`); the compute stream waits for it and
// runs the forward. The reassignment `prevParams = allGather(...)` drops the
// last reference to the previous layer's parameters while the forward on
// `compute` still reads them: the caching allocator only looks at `ag`, and
// hands the block straight to the next all-gather.
// Expected: `streamlife check` warns at the reassignment (free-before-wait).
//
// Fix: stall_producer.cpp, keepalive.cpp, n_deep_queue.cpp.
#include "pipeline_common.h"

using namespace example;

static int run(const at::Tensor &x) {
  c10::cuda::CUDAStream ag = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent agDone;
  Results results;

  at::Tensor prevParams = allGather(ag, 1);
  for (int layer = 2; layer <= kLayers; ++layer) {
    agDone.record(ag);
    agDone.block(compute); // forward L waits for all-gather L
    results.add(forward(prevParams, x), layer - 1);

    // BUG: the forward above still reads prevParams on `compute`; dropping
    // the last reference releases the block to `ag`'s pool at once.
    prevParams = allGather(ag, layer);
  }
  agDone.record(ag);
  agDone.block(compute);
  results.add(forward(prevParams, x), kLayers);

  c10::cuda::device_synchronize();
  return results.print("no_lifetime_management");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x);
}
