// n_deep_queue (ATen): N buffers in flight in a queue; wait-then-pop.
// Correct, `depth` blocks.
//
// Each layer's parameters go into a deque together with the event the
// forward recorded after reading them. When the queue is full, `ag` blocks on
// the oldest entry's event, and only then is the entry popped (its tensor
// released). The memory bound is the number chosen, not CPU run-ahead.
// Expected: `streamlife check` reports nothing.
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
      inFlight.front().fwdDone.block(ag); // 1. order `ag` after that forward
      inFlight.pop_front();               // 2. only then release its block
    }
    at::Tensor params = allGather(ag, layer);
    agDone.record(ag);
    agDone.block(compute);
    results.add(forward(params, x), layer);
    inFlight.emplace_back();
    inFlight.back().params = params;
    inFlight.back().fwdDone.record(compute);
  }
  while (!inFlight.empty()) {
    inFlight.front().fwdDone.block(ag);
    inFlight.pop_front();
  }

  c10::cuda::device_synchronize();
  return results.print("n_deep_queue");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x, 3);
}
