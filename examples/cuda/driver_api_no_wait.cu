// driver_api_no_wait: the no_lifetime_management bug written against the CUDA
// driver API, as libraries that bypass the runtime do. BUGGY.
//
// Pattern: the producer stream `ag` allocates each layer's parameters with
// cuMemAllocAsync on `ag` and fills them with cuLaunchKernel on `ag`; the
// consumer stream `compute` waits for `ag` (cuEventRecord/cuStreamWaitEvent)
// and runs the forward kernel through cuLaunchKernel. The host then releases
// the parameters with cuMemFreeAsync(params, ag) with no wait.
//
// Why it is wrong: exactly as in no_lifetime_management.cu -- the next
// cuMemAllocAsync on `ag` is handed the released block and its fill overwrites
// the weights while the forward on `compute` still reads them. The runtime API
// is used only to look up the kernels' CUfunction handles.
// Expected: `streamlife check` warns at the cuMemFreeAsync (free-before-wait),
// `streamlife run` reports an unsafe free in every run, and the default size
// corrupts on a GPU.
#include "pipeline_common.cuh"

#include <cuda.h>

using namespace example;

static void checkDriver(CUresult status, const char *call) {
  if (status == CUDA_SUCCESS)
    return;
  const char *text = nullptr;
  if (cuGetErrorString(status, &text) != CUDA_SUCCESS || text == nullptr)
    text = "unknown driver error";
  std::fprintf(stderr, "error: %s at %s\n", text, call);
  std::fflush(stdout);
  std::exit(2);
}

#define CHECK_CU(call) checkDriver((call), #call)

namespace {
struct Kernels {
  CUfunction fill;
  CUfunction forward;
};
} // namespace

static void launchFill(const Kernels &kernels, CUstream stream,
                       CUdeviceptr buffer, size_t count, float value) {
  void *args[] = {&buffer, &count, &value};
  CHECK_CU(cuLaunchKernel(kernels.fill, fillBlocks(count), 1, 1, 256, 1, 1, 0,
                          stream, args, nullptr));
}

static void runTrial(const Options &options, const Kernels &kernels,
                     CUdeviceptr x, CUdeviceptr out, size_t outPerLayer,
                     TrialLog &log) {
  const size_t bytes = options.elements * sizeof(float);
  CUstream ag, compute;
  CHECK_CU(cuStreamCreate(&ag, CU_STREAM_NON_BLOCKING));
  CHECK_CU(cuStreamCreate(&compute, CU_STREAM_NON_BLOCKING));
  CUevent paramsReady;
  CHECK_CU(cuEventCreate(&paramsReady, CU_EVENT_DISABLE_TIMING));
  size_t rows = options.rows(), cols = options.cols();
  dim3 grid = forwardGrid(options);

  CUdeviceptr params = 0;
  CHECK_CU(cuMemAllocAsync(&params, bytes, ag));
  launchFill(kernels, ag, params, options.elements, 1.0f);
  log.noteBlock(reinterpret_cast<const void *>(params));

  for (int layer = 1; layer <= options.layers; ++layer) {
    CHECK_CU(cuEventRecord(paramsReady, ag));
    CHECK_CU(cuStreamWaitEvent(compute, paramsReady, 0));
    CUdeviceptr layerOut = out + (layer - 1) * outPerLayer * sizeof(float);
    void *forwardArgs[] = {&x, &params, &layerOut, &rows, &cols};
    CHECK_CU(cuLaunchKernel(kernels.forward, grid.x, grid.y, 1, 256, 1, 1, 0,
                            compute, forwardArgs, nullptr));

    // BUG: the forward on `compute` still reads `params`; `ag` never waited.
    CHECK_CU(cuMemFreeAsync(params, ag));

    if (layer == options.layers)
      break;
    CHECK_CU(cuMemAllocAsync(&params, bytes, ag));
    launchFill(kernels, ag, params, options.elements, float(layer + 1));
    log.noteBlock(reinterpret_cast<const void *>(params));
  }

  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuEventDestroy(paramsReady));
  CHECK_CU(cuStreamDestroy(compute));
  CHECK_CU(cuStreamDestroy(ag));
}

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  printConfig("driver_api_no_wait", options);

  CHECK_CU(cuInit(0));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));

  // Keep freed blocks in the default pool so the next allocation reuses them.
  CUmemoryPool pool;
  CHECK_CU(cuDeviceGetDefaultMemPool(&pool, device));
  cuuint64_t threshold = ~cuuint64_t{0};
  CHECK_CU(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                 &threshold));

  Kernels kernels;
  CHECK_CUDA(cudaGetFuncBySymbol(&kernels.fill,
                                 reinterpret_cast<const void *>(&fillKernel)));
  CHECK_CUDA(cudaGetFuncBySymbol(
      &kernels.forward, reinterpret_cast<const void *>(&forwardKernel)));

  size_t xCount = size_t(options.batch) * options.rows();
  size_t outPerLayer = size_t(options.batch) * options.cols();
  size_t outCount = outPerLayer * options.layers;
  CUdeviceptr x, out;
  CHECK_CU(cuMemAlloc(&x, xCount * sizeof(float)));
  CHECK_CU(cuMemAlloc(&out, outCount * sizeof(float)));
  launchFill(kernels, nullptr, x, xCount, 1.0f);
  CHECK_CU(cuCtxSynchronize());

  TrialLog log(options.trials);
  std::vector<float> host(outCount);
  for (int trial = 0; trial < options.trials; ++trial) {
    CHECK_CU(cuMemsetD32(out, 0, outCount));
    CHECK_CU(cuCtxSynchronize());
    runTrial(options, kernels, x, out, outPerLayer, log);
    CHECK_CU(cuMemcpyDtoH(host.data(), out, outCount * sizeof(float)));
    log.endTrial(trial, maxDiff(host, outPerLayer, options.layers,
                                double(options.rows())));
  }
  log.print();
  CHECK_CU(cuMemFree(x));
  CHECK_CU(cuMemFree(out));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  return 0;
}
