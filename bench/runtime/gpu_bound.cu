// gpu_bound: a GPU-bound pipeline, to measure how much the runtime validator
// slows down a program whose time is spent on the GPU. It is the keepalive
// pipeline (examples/cuda/keepalive.cu: `ag` gathers each layer's weights,
// `compute` runs a long forward, the previous layer's weights are released
// wait-first one layer later) at a large size and with many layers, so the
// host is always far ahead of the GPU and the validator's host-side work
// should hide behind GPU time.
//
// What it measures: wall time of each trial (enqueue + GPU + final sync;
// result checking excluded), median over trials. Prints:
//   gpu_bound: layers=L elements=N batch=B trials=T wall_ms_median=X wall_ms_min=Y
//   result: ok
// Options as the examples (--elements, --layers, --trials, --batch);
// defaults here: 32 layers, 5 trials. Exit 0, 2 on a CUDA error, 3 on bad usage.
#include "pipeline_common.cuh"

#include <chrono>

using namespace example;

static void runPipeline(const Options &options, const Workspace &ws) {
  const size_t bytes = options.elements * sizeof(float);
  cudaStream_t ag, compute;
  CHECK_CUDA(cudaStreamCreateWithFlags(&ag, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  cudaEvent_t paramsReady, keepaliveDone;
  CHECK_CUDA(cudaEventCreateWithFlags(&paramsReady, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&keepaliveDone, cudaEventDisableTiming));

  float *keepalive = nullptr;
  float *params = nullptr;
  CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
  fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
      params, options.elements, 1.0f);
  CHECK_LAUNCH("fillKernel on ag");

  for (int layer = 1; layer <= options.layers; ++layer) {
    if (keepalive != nullptr) {
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
    CHECK_CUDA(cudaEventRecord(keepaliveDone, compute));
    keepalive = params;
    params = nullptr;
    if (layer == options.layers)
      break;
    CHECK_CUDA(cudaMallocAsync(&params, bytes, ag));
    fillKernel<<<fillBlocks(options.elements), 256, 0, ag>>>(
        params, options.elements, float(layer + 1));
    CHECK_LAUNCH("fillKernel on ag");
  }
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
  // Bench defaults, before the command line: many layers, a few trials.
  std::vector<char *> args(argv, argv + argc);
  char layers[] = "--layers", layersValue[] = "32";
  char trials[] = "--trials", trialsValue[] = "5";
  args.insert(args.begin() + 1, {layers, layersValue, trials, trialsValue});
  Options options = parseOptions(int(args.size()), args.data());
  keepFreedBlocksInPool();
  Workspace ws = makeWorkspace(options);

  runPipeline(options, ws); // warm-up: module load, pool growth
  std::vector<double> wallMs;
  double worstDiff = 0.0;
  for (int trial = 0; trial < options.trials; ++trial) {
    CHECK_CUDA(cudaMemset(ws.out, 0, ws.outPerLayer * options.layers * sizeof(float)));
    CHECK_CUDA(cudaDeviceSynchronize());
    auto start = std::chrono::steady_clock::now();
    runPipeline(options, ws);
    auto stop = std::chrono::steady_clock::now();
    wallMs.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    worstDiff = std::max(worstDiff, checkForwardOutputs(options, ws));
  }
  std::vector<double> sorted = wallMs;
  std::sort(sorted.begin(), sorted.end());
  std::printf("gpu_bound: layers=%d elements=%zu batch=%d trials=%d wall_ms_median=%.3f "
              "wall_ms_min=%.3f\n",
              options.layers, options.elements, options.batch, options.trials,
              sorted[sorted.size() / 2], sorted.front());
  if (worstDiff > 1e-6)
    std::printf("result: corrupt (max_diff=%.1f)\n", worstDiff);
  else
    std::printf("result: ok\n");
  freeWorkspace(ws);
  return 0;
}
