// driver_call_cost: host ns per driver call, for the calls a stream-ordered
// allocation costs the validator on the real driver. Run plain, under a CUPTI
// subscription alone (launch_path_probe's PROBE_CUPTI=2) and under
// `streamlife run` (driver_call_cost.sh), it prints one line per measure:
//   ctx-get-current   cuCtxGetCurrent (the entry points ask it for every call
//                     on a special stream handle: NULL, legacy, per-thread)
//   ctx-get-device    cuCtxGetDevice
//   alloc-free-legacy cuMemAllocAsync + cuMemFreeAsync of 256 bytes on the
//                     legacy default stream (PyTorch's current stream)
//   alloc-free-stream the same on a created stream
// Each is the median over Rounds rounds of Calls calls, so that a host's
// hiccups fall out. No kernel runs: the pairs never wait for the GPU.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

bool check(CUresult Rc, const char *What) {
  if (Rc == CUDA_SUCCESS)
    return true;
  const char *Name = nullptr;
  cuGetErrorName(Rc, &Name);
  std::fprintf(stderr, "driver_call_cost: error: %s: %s\n", What, Name ? Name : "?");
  return false;
}

template <typename Fn> double medianNs(int Rounds, int Calls, Fn &&Body) {
  std::vector<double> Ns;
  for (int R = 0; R < Rounds; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < Calls; ++I)
      Body();
    auto T1 = std::chrono::steady_clock::now();
    Ns.push_back(std::chrono::duration<double, std::nano>(T1 - T0).count() / Calls);
  }
  std::sort(Ns.begin(), Ns.end());
  return Ns[Ns.size() / 2];
}

} // namespace

int main(int Argc, char **Argv) {
  const int Calls = Argc > 1 ? std::atoi(Argv[1]) : 20000;
  const int Rounds = Argc > 2 ? std::atoi(Argv[2]) : 9;
  CUdevice Dev;
  CUcontext Ctx;
  if (!check(cuInit(0), "cuInit") || !check(cuDeviceGet(&Dev, 0), "cuDeviceGet") ||
      !check(cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain") ||
      !check(cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
    return 1;
  CUstream Stream;
  if (!check(cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return 1;
  bool Ok = true;
  auto Pair = [&](CUstream S) {
    CUdeviceptr P = 0;
    Ok = Ok && cuMemAllocAsync(&P, 256, S) == CUDA_SUCCESS && cuMemFreeAsync(P, S) == CUDA_SUCCESS;
  };
  // Warm-up: the pool's first allocations and the validator's first sights.
  for (int I = 0; I < 1000; ++I) {
    Pair(CU_STREAM_LEGACY);
    Pair(Stream);
  }
  CUcontext Current;
  CUdevice Device;
  double GetCurrent = medianNs(Rounds, Calls, [&] { cuCtxGetCurrent(&Current); });
  double GetDevice = medianNs(Rounds, Calls, [&] { cuCtxGetDevice(&Device); });
  double Legacy = medianNs(Rounds, Calls, [&] { Pair(CU_STREAM_LEGACY); });
  double Created = medianNs(Rounds, Calls, [&] { Pair(Stream); });
  if (!check(cuStreamSynchronize(Stream), "cuStreamSynchronize") || !check(cuCtxSynchronize(), "cuCtxSynchronize"))
    return 1;
  if (!Ok) {
    std::fprintf(stderr, "driver_call_cost: error: an allocation or free failed\n");
    return 1;
  }
  std::printf("ctx-get-current %.1f\nctx-get-device %.1f\nalloc-free-legacy %.1f\nalloc-free-stream %.1f\n",
              GetCurrent, GetDevice, Legacy, Created);
  cuStreamDestroy(Stream);
  cuDevicePrimaryCtxRelease(Dev);
  return 0;
}
