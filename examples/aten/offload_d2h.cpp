// offload_d2h (ATen): activation offload on a device-to-host stream,
// released before the copy is known to be done. BUGGY.
//
// Each layer's activation is produced on the compute stream and copied to
// pinned host memory on the `d2h` stream, so that the copy overlaps the next
// layer. The activation is then reassigned (its block goes back to the
// compute stream's pool) while the copy on `d2h` may still read it.
// Expected: `streamlife check` warns at the reassignment (free-before-wait).
//
// Fix: record an event on `d2h` after the copy and block the compute stream
// on it before dropping the activation (or keep it until the next layer).
#include "pipeline_common.h"
#include <vector>

using namespace example;

static int run(const at::Tensor &x, std::vector<at::Tensor> &host) {
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream d2h = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent produced;

  at::Tensor act = x.mul(2);
  for (int layer = 0; layer < kLayers; ++layer) {
    produced.record(compute);
    produced.block(d2h);
    {
      c10::cuda::CUDAStreamGuard onD2h(d2h);
      host[layer].copy_(act, /*non_blocking=*/true);
    }
    // BUG: `act` goes back to the compute stream's pool while the copy on
    // `d2h` may still read it.
    act = act.mul(2);
  }
  c10::cuda::device_synchronize();
  return 0;
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  std::vector<at::Tensor> host;
  for (int layer = 0; layer < kLayers; ++layer)
    host.push_back(at::empty({kBatch, kHidden}, at::TensorOptions().pinned_memory(true)));
  run(x, host);
  std::printf("offload_d2h: %s\n",
              host.back().sum().item<double>() == double(kBatch) * kHidden * (2 << kLayers)
                  ? "ok"
                  : "corrupt");
  return 0;
}
