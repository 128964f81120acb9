// keepalive: keep the previous layer's parameters alive one step longer and
// release them wait-first. CORRECT, and the pipeline keeps its overlap.
//
// Pattern: `ag` allocates and fills each layer's parameters, `compute` runs
// the forward. Instead of releasing a layer's parameters right after its
// forward is enqueued, the host keeps one reference (`keepalive`) plus the
// event recorded on `compute` after that forward (`keepaliveDone`). One layer
// later, before the next allocation on `ag`, it makes `ag` wait on
// `keepaliveDone` and only then calls cudaFreeAsync(keepalive, ag).
//
// Why it is right: the block is released only after its allocation stream has
// been ordered after the last consumer use, so whatever allocation on `ag`
// gets it next runs after that forward. Because the block stays owned for one
// more layer, the next fill gets a different block and overlaps the current
// forward: two blocks alternate (`blocks: 2` for two or more layers), and the
// producer waits only when it is about to reuse a block.
// Expected: `streamlife check` silent, `streamlife run` silent, `result: ok`.
#include "pipeline_common.cuh"

using namespace example;

static void runTrial(const Options &options, const Workspace &ws,
                     TrialLog &log) {
  const size_t bytes = options.elements * sizeof(float);
  cudaStream_t ag, compute;
  CHECK_CUDA(cudaStreamCreateWithFlags(&ag, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  cudaEvent_t paramsReady, keepaliveDone;
  CHECK_CUDA(cudaEventCreateWithFlags(&paramsReady, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&keepaliveDone, cudaEventDisableTiming));

  // The previous layer's parameters, still owned until `ag` has waited on
  // `keepaliveDone` (recorded on `compute` after that layer's forward).
  float *keepalive = nullptr;

  // Prefetch layer 1.
  float *params = nullptr;
  CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
  fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
      params, options.elements, 1.0f);
  CHECK_LAUNCH("fillKernel on ag");
  log.noteBlock(params);

  for (int layer = 1; layer <= options.layers; ++layer) {
    if (keepalive != nullptr) {
      // Wait first, then release: `ag` is ordered after the forward that last
      // read `keepalive` before the block can be handed out again.
      CHECK_CUDA(cudaStreamWaitEvent(ag, keepaliveDone, 0));
      CHECK_CUDA(cudaFreeAsync(keepalive, ag));
      keepalive = nullptr;
    }

    CHECK_CUDA(cudaEventRecord(paramsReady, ag));
    CHECK_CUDA(cudaStreamWaitEvent(compute, paramsReady, 0));
    forwardKernel<<<forwardGrid(options), 256, 0, compute>>>(
        ws.x, params, ws.out + size_t(layer - 1) * ws.outPerLayer,
        options.rows(), options.cols());
    CHECK_LAUNCH("forwardKernel on compute");
    // Re-recording is safe: the only wait on the previous record was enqueued
    // above, and a wait captures the record that precedes it.
    CHECK_CUDA(cudaEventRecord(keepaliveDone, compute));

    // Don't release yet: keep the reference, so the next allocation on `ag`
    // gets a different block and its fill overlaps this forward.
    keepalive = params;
    params = nullptr;

    if (layer == options.layers)
      break;
    CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
    fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
        params, options.elements, float(layer + 1));
    CHECK_LAUNCH("fillKernel on ag");
    log.noteBlock(params);
  }

  // The last layer's parameters: same hand-off, wait then release.
  if (keepalive != nullptr) {
    CHECK_CUDA(cudaStreamWaitEvent(ag, keepaliveDone, 0));
    CHECK_CUDA(cudaFreeAsync(keepalive, ag));
  }

  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaEventDestroy(keepaliveDone));
  CHECK_CUDA(cudaEventDestroy(paramsReady));
  CHECK_CUDA(cudaStreamDestroy(compute));
  CHECK_CUDA(cudaStreamDestroy(ag));
}

int main(int argc, char **argv) {
  return runForwardExample("keepalive", argc, argv, runTrial);
}
