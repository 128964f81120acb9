// reduce_scatter_handoff (ATen): an FSDP2-like reduce-scatter that hands its
// output to the caller. BUGGY.
//
// `reduceScatter` runs on its own reduce-scatter stream `rs` (taken from the
// pool, unknown to the caller), joins back to the caller's stream with an
// event, and returns the reduced shard. But the shard was allocated under the
// guard on `rs`, so that is where the caching allocator releases it: the
// caller drops it after using it on its own stream, which `rs` never waits on,
// and the next allocation on `rs` reuses the block under the caller's reads.
// Expected: `streamlife check` warns at the return (free-before-wait).
//
// Fix: allocate the output on the caller's stream before entering the guard
// (as FSDP2 does for the reduce-scatter input), or `out.record_stream(caller)`.
#include "pipeline_common.h"

using namespace example;

static at::Tensor reduceScatter(const at::Tensor &grad, int64_t shard) {
  c10::cuda::CUDAStream rs = c10::cuda::getStreamFromPool();
  at::cuda::CUDAEvent gradReady, reduced;
  gradReady.record(); // on the caller's stream, after it produced `grad`
  gradReady.block(rs);
  at::Tensor out;
  {
    c10::cuda::CUDAStreamGuard onRs(rs);
    out = at::empty({shard}, grad.options());
    out.copy_(grad.narrow(0, 0, shard), /*non_blocking=*/true); // "reduce"
  }
  reduced.record(rs);
  reduced.block(c10::cuda::getCurrentCUDAStream());
  // BUG: `out` is released on `rs` once the caller drops it.
  return out;
}

int main() {
  at::Tensor grad = at::ones({kHidden * kHidden}, cudaFloat());
  double total = 0;
  for (int step = 0; step < kLayers; ++step) {
    at::Tensor shard = reduceScatter(grad, kHidden * kHidden / 4);
    total += shard.sum().item<double>();
  }
  std::printf("reduce_scatter_handoff: %s\n",
              total == double(kLayers) * kHidden * kHidden / 4 ? "ok" : "corrupt");
  return 0;
}
