// offload_released_early: activation offloading whose device buffer is
// released before the D2H copy reading it is ordered back. BUGGY.
//
// Pattern: for each layer, `compute` allocates an activation buffer with
// cudaMallocAsync on `compute` and produces it there; the `offload` stream
// waits for it (event) and copies it to pinned host memory with
// cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, offload). The host then calls
// cudaFreeAsync(activation, compute) right away, and makes `compute` wait for
// the offload stream only once, after the last layer ("wait before using the
// offloaded copies").
//
// Why it is wrong: the release is on the allocation stream `compute`, but
// `compute` is not yet ordered after the copy on `offload`. The next layer's
// allocation on `compute` is handed the same block and its producer kernel
// overwrites it while the D2H copy is still reading, so the host receives the
// next layer's values. The late wait orders nothing that matters: the block
// has been reused before it. (Same shape for H2D prefetch streams.)
// Expected: `streamlife check` warns at the cudaFreeAsync (free-before-wait,
// with a note on the late wait), `streamlife run` reports an unsafe free in
// every run, and the default size corrupts the host copies on a GPU.
//
// Fix: record `offloadDone` on `offload` after the copy and
// cudaStreamWaitEvent(compute, offloadDone) before cudaFreeAsync(activation,
// compute), or keep the buffer alive as in keepalive.cu.
#include "pipeline_common.cuh"

using namespace example;

static void runTrial(const Options &options, float *hostCopies,
                     TrialLog &log) {
  const size_t bytes = options.elements * sizeof(float);
  cudaStream_t compute, offload;
  CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&offload, cudaStreamNonBlocking));
  cudaEvent_t activationReady, offloadDone;
  CHECK_CUDA(cudaEventCreateWithFlags(&activationReady, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&offloadDone, cudaEventDisableTiming));

  for (int layer = 1; layer <= options.layers; ++layer) {
    // The layer's forward produces its activation on `compute`.
    float *activation = nullptr;
    CHECK_CUDA(cudaMallocAsync(&activation, bytes, compute));
    fillKernel<<<fillBlocks(options.elements), 256, 0, compute>>>(
        activation, options.elements, float(layer));
    CHECK_LAUNCH("fillKernel on compute");
    log.noteBlock(activation);

    // Offload it to the host on the side stream, after it is complete.
    CHECK_CUDA(cudaEventRecord(activationReady, compute));
    CHECK_CUDA(cudaStreamWaitEvent(offload, activationReady, 0));
    CHECK_CUDA(cudaMemcpyAsync(hostCopies + size_t(layer - 1) * options.elements,
                               activation, bytes, cudaMemcpyDeviceToHost,
                               offload));

    // BUG: the copy on `offload` is still reading `activation`, and
    // `compute` (the allocation stream) has not waited for it.
    CHECK_CUDA(cudaFreeAsync(activation, compute));
  }

  // Too late: every activation block has already been released and reused.
  CHECK_CUDA(cudaEventRecord(offloadDone, offload));
  CHECK_CUDA(cudaStreamWaitEvent(compute, offloadDone, 0));

  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaEventDestroy(offloadDone));
  CHECK_CUDA(cudaEventDestroy(activationReady));
  CHECK_CUDA(cudaStreamDestroy(offload));
  CHECK_CUDA(cudaStreamDestroy(compute));
}

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  printConfig("offload_released_early", options);
  keepFreedBlocksInPool();
  // Pinned, so the copies are truly asynchronous (pageable D2H copies would
  // block the host and hide the bug).
  const size_t total = options.elements * size_t(options.layers);
  float *hostCopies = nullptr;
  CHECK_CUDA(cudaMallocHost(&hostCopies, total * sizeof(float)));
  std::vector<float> snapshot(total);
  TrialLog log(options.trials);
  for (int trial = 0; trial < options.trials; ++trial) {
    std::fill(hostCopies, hostCopies + total, 0.0f);
    runTrial(options, hostCopies, log);
    std::copy(hostCopies, hostCopies + total, snapshot.begin());
    // Every element of layer l's copy should hold l.
    log.endTrial(trial, maxDiff(snapshot, options.elements, options.layers, 1.0));
  }
  log.print();
  CHECK_CUDA(cudaFreeHost(hostCopies));
  return 0;
}
