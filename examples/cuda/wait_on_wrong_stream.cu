// wait_on_wrong_stream: records the right event but makes the wrong stream
// wait on it. BUGGY.
//
// Pattern: as in stall_producer.cu, except that after recording `forwardDone`
// on the consumer `compute`, the host calls
// cudaStreamWaitEvent(compute, forwardDone) -- the consumer waits on itself --
// instead of cudaStreamWaitEvent(ag, forwardDone), then releases the
// parameters with cudaFreeAsync(params, ag).
//
// Why it is wrong: what must be ordered after the consumer is the stream that
// can be handed the block again, i.e. the allocation (and release) stream
// `ag`. A wait on any other stream looks like synchronization but orders
// nothing that matters; the next layer's fill on `ag` overwrites the block
// while the forward still reads it.
// Expected: `streamlife check` warns at the cudaFreeAsync (free-before-wait,
// with a note on the wait issued on 'compute'), `streamlife run` reports an
// unsafe free in every run, and the default size corrupts on a GPU.
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

    // The consumer's last use is marked correctly...
    CHECK_CUDA(cudaEventRecord(forwardDone, compute));
    // BUG: ...but the wait is issued on the consumer itself (a no-op: a
    // stream is always ordered after its own earlier work) instead of on the
    // allocation stream `ag`. Nothing orders `ag` after the forward, so the
    // release below is exactly as unsafe as having no wait at all.
    CHECK_CUDA(cudaStreamWaitEvent(compute, forwardDone, 0));
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
  CHECK_CUDA(cudaEventDestroy(forwardDone));
  CHECK_CUDA(cudaEventDestroy(paramsReady));
  CHECK_CUDA(cudaStreamDestroy(compute));
  CHECK_CUDA(cudaStreamDestroy(ag));
}

int main(int argc, char **argv) {
  return runForwardExample("wait_on_wrong_stream", argc, argv, runTrial);
}
