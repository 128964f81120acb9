// stall_producer: release each layer's parameters only after making the
// allocation stream wait for the consumer. CORRECT, but serialized.
//
// Pattern: as in no_lifetime_management.cu, `ag` allocates and fills each
// layer's parameters and `compute` runs the forward on them. After enqueueing
// the forward, the host records `forwardDone` on `compute`, makes `ag` wait on
// it (cudaStreamWaitEvent(ag, forwardDone)), and only then calls
// cudaFreeAsync(params, ag).
//
// Why it is right: the only stream that can be handed the released block is
// its allocation stream `ag`, and `ag` is now ordered after the last use on
// `compute`. Wait first, free second: a free before the wait would let any
// allocation in between take the block unordered.
// Cost: one block, but the next layer's fill cannot start until the forward
// finishes, so communication no longer overlaps compute (keepalive.cu fixes
// that). Expected: `streamlife check` silent, `streamlife run` silent,
// `result: ok`, `blocks: 1`.
#include "pipeline_common.cuh"

using namespace example;

static void runTrial(const Options &options, const Workspace &ws,
                     TrialLog &log) {
  const size_t bytes = options.elements * sizeof(float);
  cudaStream_t ag, compute;
  CHECK_CUDA(cudaStreamCreateWithFlags(&ag, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  cudaEvent_t paramsReady;
  CHECK_CUDA(cudaEventCreateWithFlags(&paramsReady, cudaEventDisableTiming));
  cudaEvent_t forwardDone;
  CHECK_CUDA(cudaEventCreateWithFlags(&forwardDone, cudaEventDisableTiming));

  // Prefetch layer 1.
  float *params = nullptr;
  CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
  fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
      params, options.elements, 1.0f);
  CHECK_LAUNCH("fillKernel on ag");
  log.noteBlock(params);

  for (int layer = 1; layer <= options.layers; ++layer) {
    // Forward of this layer starts after its parameters are complete.
    CHECK_CUDA(cudaEventRecord(paramsReady, ag));
    CHECK_CUDA(cudaStreamWaitEvent(compute, paramsReady, 0));
    forwardKernel<<<forwardGrid(options), 256, 0, compute>>>(
        ws.x, params, ws.out + size_t(layer - 1) * ws.outPerLayer,
        options.rows(), options.cols());
    CHECK_LAUNCH("forwardKernel on compute");

    // The hand-off back to the allocation stream, in this order:
    // 1. mark the consumer's last use of `params`,
    CHECK_CUDA(cudaEventRecord(forwardDone, compute));
    // 2. make `ag` wait for it, so every later allocation on `ag` that may be
    //    handed this block runs after the forward,
    CHECK_CUDA(cudaStreamWaitEvent(ag, forwardDone, 0));
    // 3. only then release the block.
    CHECK_CUDA(cudaFreeAsync(params, ag));

    if (layer == options.layers)
      break;
    // Prefetch the next layer: the same block, but its fill is queued behind
    // the wait, so it cannot start before the forward has finished.
    CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
    fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
        params, options.elements, float(layer + 1));
    CHECK_LAUNCH("fillKernel on ag");
    log.noteBlock(params);
  }

  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaEventDestroy(forwardDone));
  CHECK_CUDA(cudaEventDestroy(paramsReady));
  CHECK_CUDA(cudaStreamDestroy(compute));
  CHECK_CUDA(cudaStreamDestroy(ag));
}

int main(int argc, char **argv) {
  return runForwardExample("stall_producer", argc, argv, runTrial);
}
