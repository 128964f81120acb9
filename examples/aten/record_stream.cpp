// record_stream (ATen): the textbook fix, inside the hot loop. FLAGGED.
//
// `prevParams.record_stream(compute)` tells the caching allocator that
// `compute` also used the block, so the release waits for an event on
// `compute`. Correct, but reuse is then decided by event polling at the next
// allocation, so peak memory depends on how far the CPU runs ahead.
// Expected: `streamlife check` warns at the record_stream (record-stream-in-loop)
// and nothing else: the release itself is ordered.
//
// Better: keepalive.cpp (a reference plus a wait on the allocation stream).
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
    agDone.block(compute);
    results.add(forward(prevParams, x), layer - 1);
    // BUG: correct, but hands buffer reuse to the allocator's event polling
    // on every layer.
    prevParams.record_stream(compute);
    prevParams = allGather(ag, layer);
  }
  agDone.record(ag);
  agDone.block(compute);
  results.add(forward(prevParams, x), kLayers);

  c10::cuda::device_synchronize();
  return results.print("record_stream");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x);
}
