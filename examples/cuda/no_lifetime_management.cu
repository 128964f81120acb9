// no_lifetime_management: a producer/consumer pipeline that releases a
// cross-stream buffer with no ordering back to its allocation stream. BUGGY.
//
// Pattern: the producer stream `ag` ("all-gather") allocates each layer's
// parameters with cudaMallocAsync on `ag` and fills them there; the consumer
// stream `compute` waits for `ag` (event) and runs a long forward kernel that
// reads every parameter. Right after enqueueing the forward, the host releases
// the parameters with cudaFreeAsync(params, ag).
//
// Why it is wrong: the pool only orders a freed block after work on the stream
// it was released on. `ag` never waited for `compute`, so the next layer's
// cudaMallocAsync on `ag` is handed the same block at once, and its fill kernel
// overwrites the weights while the previous forward is still reading them.
// Expected: `streamlife check` warns at the cudaFreeAsync (free-before-wait),
// `streamlife run` reports an unsafe free in every run, and on a GPU the
// default size corrupts the outputs (one block reused for every layer).
//
// Fix: stall_producer.cu (wait, then free), keepalive.cu, n_deep_queue.cu.
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

    // BUG: the forward on `compute` is still reading `params`, and nothing
    // orders `ag` after it before the block goes back to the pool.
    CHECK_CUDA(cudaFreeAsync(params, ag));

    if (layer == options.layers)
      break;
    // Prefetch the next layer: gets the block that was just released.
    CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
    fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
        params, options.elements, float(layer + 1));
    CHECK_LAUNCH("fillKernel on ag");
    log.noteBlock(params);
  }

  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaEventDestroy(paramsReady));
  CHECK_CUDA(cudaStreamDestroy(compute));
  CHECK_CUDA(cudaStreamDestroy(ag));
}

int main(int argc, char **argv) {
  return runForwardExample("no_lifetime_management", argc, argv, runTrial);
}
