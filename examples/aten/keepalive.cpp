// keepalive (ATen): keep a reference, defer the wait. Correct, two blocks.
//
// The previous layer's parameters stay referenced by `keepalive` for one
// more layer, so the next all-gather gets a different block and overlaps the
// forward. Before the reference is dropped, `ag` blocks on the event the
// forward recorded: wait first, then release.
// Expected: `streamlife check` reports nothing.
#include "pipeline_common.h"

using namespace example;

static int run(const at::Tensor &x) {
  c10::cuda::CUDAStream ag = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent agDone, keepaliveDone;
  Results results;

  at::Tensor keepalive;
  at::Tensor prevParams = allGather(ag, 1);
  for (int layer = 2; layer <= kLayers; ++layer) {
    agDone.record(ag);
    agDone.block(compute);
    results.add(forward(prevParams, x), layer - 1);

    // Wait first (a no-op before the event is first recorded), then release
    // the layer before; keep this layer's parameters one layer longer.
    keepaliveDone.block(ag);
    keepalive = prevParams;
    keepaliveDone.record(compute);
    prevParams = allGather(ag, layer); // a different block
  }
  agDone.record(ag);
  agDone.block(compute);
  results.add(forward(prevParams, x), kLayers);
  keepaliveDone.record(compute);
  keepaliveDone.block(ag);
  keepalive.reset();
  prevParams.reset();

  c10::cuda::device_synchronize();
  return results.print("keepalive");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x);
}
