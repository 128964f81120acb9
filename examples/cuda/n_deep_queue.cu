// n_deep_queue: the keepalive pattern generalized to a queue of N released-
// but-still-owned parameter buffers. CORRECT, with a memory bound you choose.
//
// Pattern: `ag` allocates and fills each layer's parameters, `compute` runs
// the forward. After each forward the host records an event on `compute` and
// pushes {params, event} onto a FIFO. When the FIFO holds `--depth` entries
// (default 3), it pops the oldest, makes `ag` wait on its event, and only then
// calls cudaFreeAsync(oldest.params, ag). At the end it drains the FIFO the
// same way. Depth 1 is exactly keepalive.cu.
//
// Why it is right: every release is preceded, on the allocation stream `ag`,
// by a wait on an event recorded after the buffer's last consumer use. The
// number of live blocks is depth + 1 (`blocks: min(layers, depth + 1)`): a
// number written in the code, not an outcome of how far the CPU runs ahead
// (which is what record_stream would give).
// Expected: `streamlife check` silent, `streamlife run` silent, `result: ok`.
#include "pipeline_common.cuh"

#include <deque>

using namespace example;

namespace {
// A released-but-owned buffer and the event after its last use on `compute`.
struct InFlight {
  float *params;
  cudaEvent_t lastUse;
};
} // namespace

static void runTrial(const Options &options, const Workspace &ws,
                     TrialLog &log) {
  const size_t bytes = options.elements * sizeof(float);
  const int depth = options.depth;
  cudaStream_t ag, compute;
  CHECK_CUDA(cudaStreamCreateWithFlags(&ag, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  cudaEvent_t paramsReady;
  CHECK_CUDA(cudaEventCreateWithFlags(&paramsReady, cudaEventDisableTiming));
  // One event per queue slot: a slot's event is re-recorded only after the
  // entry that used it was popped and waited on.
  std::vector<cudaEvent_t> slotEvents(depth);
  for (cudaEvent_t &event : slotEvents)
    CHECK_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  std::deque<InFlight> inFlight;

  float *params = nullptr;
  CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
  fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
      params, options.elements, 1.0f);
  CHECK_LAUNCH("fillKernel on ag");
  log.noteBlock(params);

  for (int layer = 1; layer <= options.layers; ++layer) {
    if (int(inFlight.size()) == depth) {
      // Wait-then-free the oldest buffer.
      InFlight oldest = inFlight.front();
      inFlight.pop_front();
      CHECK_CUDA(cudaStreamWaitEvent(ag, oldest.lastUse, 0));
      CHECK_CUDA(cudaFreeAsync(oldest.params, ag));
    }

    CHECK_CUDA(cudaEventRecord(paramsReady, ag));
    CHECK_CUDA(cudaStreamWaitEvent(compute, paramsReady, 0));
    forwardKernel<<<forwardGrid(options), 256, 0, compute>>>(
        ws.x, params, ws.out + size_t(layer - 1) * ws.outPerLayer,
        options.rows(), options.cols());
    CHECK_LAUNCH("forwardKernel on compute");
    cudaEvent_t lastUse = slotEvents[size_t(layer) % size_t(depth)];
    CHECK_CUDA(cudaEventRecord(lastUse, compute));
    inFlight.push_back(InFlight{params, lastUse});
    params = nullptr;

    if (layer == options.layers)
      break;
    CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
    fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
        params, options.elements, float(layer + 1));
    CHECK_LAUNCH("fillKernel on ag");
    log.noteBlock(params);
  }

  // Drain: the same wait-then-free for every buffer still owned.
  while (!inFlight.empty()) {
    InFlight oldest = inFlight.front();
    inFlight.pop_front();
    CHECK_CUDA(cudaStreamWaitEvent(ag, oldest.lastUse, 0));
    CHECK_CUDA(cudaFreeAsync(oldest.params, ag));
  }

  CHECK_CUDA(cudaDeviceSynchronize());
  for (cudaEvent_t event : slotEvents)
    CHECK_CUDA(cudaEventDestroy(event));
  CHECK_CUDA(cudaEventDestroy(paramsReady));
  CHECK_CUDA(cudaStreamDestroy(compute));
  CHECK_CUDA(cudaStreamDestroy(ag));
}

int main(int argc, char **argv) {
  return runForwardExample("n_deep_queue", argc, argv, runTrial);
}
