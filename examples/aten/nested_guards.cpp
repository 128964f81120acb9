// nested_guards (ATen): nested CUDAStreamGuards, each scope's ops on its own
// stream, every cross-stream hand-off ordered. Correct.
//
// A side stream prepares a tensor under an inner guard; the outer (compute)
// stream blocks on an event before using it, and the side stream blocks on
// the compute stream's event before the tensor (allocated on the side
// stream) is dropped. A second inner guard runs back on the outer stream.
// Expected: `streamlife check` reports nothing.
#include "pipeline_common.h"

using namespace example;

static int run(const at::Tensor &x) {
  c10::cuda::CUDAStream compute = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard onCompute(compute);
  at::cuda::CUDAEvent prepared, consumed;
  Results results;

  for (int layer = 1; layer <= kLayers; ++layer) {
    at::Tensor scaled;
    {
      c10::cuda::CUDAStreamGuard onSide(side);
      scaled = x.mul(layer);
      {
        c10::cuda::CUDAStreamGuard backOnCompute(compute);
        // Ops here run on `compute` again; nothing of `scaled` is touched.
        results.add(x.mul(0).add(double(kHidden) * layer), layer);
      }
      prepared.record(side);
    }
    prepared.block(compute);
    at::Tensor partial = scaled.sum(1);
    consumed.record(compute);
    consumed.block(side);
  } // `scaled` released on `side`, after `side` waited for its use on compute

  c10::cuda::device_synchronize();
  return results.print("nested_guards");
}

int main() {
  at::Tensor x = at::ones({kBatch, kHidden}, cudaFloat());
  return run(x);
}
