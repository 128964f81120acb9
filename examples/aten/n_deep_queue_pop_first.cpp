// n_deep_queue_pop_first (ATen): the N-deep queue, popped before the wait.
// BUGGY.
//
// Same queue as n_deep_queue.cpp, but the oldest entry's event is moved out
// and the entry popped (its tensor released to `ag`'s pool) before `ag` blocks
// on the event.
// Expected: `streamlife check` warns at the pop_front (free-before-wait).
//
// Fix: n_deep_queue.cpp.
#include "pipeline_common.h"
#include <deque>

using namespace example;

struct InFlight {
  at::Tensor params;
  at::cuda::CUDAEvent fwdDone;
};

static int run(const at::Tensor &x, size_t depth) {
  c10::cuda::CUDAStream ag = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent agDone;
  Results results;
  std::deque<InFlight> inFlight;

  for (int layer = 1; layer <= kLayers; ++layer) {
    if (inFlight.size() == depth) {
      at::cuda::CUDAEvent oldest = std::move(inFlight.front().fwdDone);
      // BUG: the pop releases the oldest tensor before `ag` waits.
      inFlight.pop_front();
      oldest.block(ag);
    }
    at::Tensor params = allGather(ag, layer);
    agDone.record(ag);
    agDone.block(compute);
    results.add(forward(params, x), layer);
    inFlight.emplace_back();
    inFlight.back().params = params;
    inFlight.back().fwdDone.record(compute);
  }
  c10::cuda::device_synchronize();
  inFlight.clear();
  return results.print("n_deep_queue_pop_first");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x, 3);
}
