// launch_bound: the runtime validator's worst case, a host thread that does
// nothing but enqueue. 100k tiny kernels alternate between two streams, each
// hand-off ordered with an event (record on one stream, wait on the other),
// so every launch costs the validator a kernel-argument scan, an access record
// and a vector-clock join.
//
// What it measures: host time spent enqueueing, per launch (one launch + one
// event record + one stream wait). Launches are timed in batches smaller than
// the driver's launch queue and the device is synchronized between batches
// (untimed), so the host never blocks on a full queue and the number is
// enqueue cost, not GPU time. Prints one line:
//   launch_bound: launches=N batch=B host_us_per_launch_median=X host_us_per_launch_mean=Y
// Exit 0, 2 on a CUDA error (`error: <cuda error> at <call>`), 3 on bad usage.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

static void checkCuda(cudaError_t status, const char *call) {
  if (status == cudaSuccess)
    return;
  std::fprintf(stderr, "error: %s at %s\n", cudaGetErrorString(status), call);
  std::exit(2);
}
#define CHECK_CUDA(call) checkCuda((call), #call)

// Small but real: reads and writes the buffer it is given, so the validator
// has a tracked pointer argument to find on every launch.
__global__ void tick(float *slots, int count) {
  int i = threadIdx.x;
  if (i < count)
    slots[i] += 1.0f;
}

int main(int argc, char **argv) {
  long launches = 100000;
  int batch = 500;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--launches") && i + 1 < argc)
      launches = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc)
      batch = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "error: unknown option '%s'\nusage: %s [--launches N] [--batch B]\n",
                   argv[i], argv[0]);
      return 3;
    }
  }
  if (launches <= 0 || batch <= 0) {
    std::fprintf(stderr, "error: --launches and --batch must be positive\n");
    return 3;
  }

  cudaStream_t streams[2];
  cudaEvent_t done[2];
  float *slots[2];
  for (int s = 0; s < 2; ++s) {
    CHECK_CUDA(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    CHECK_CUDA(cudaMalloc(&slots[s], 32 * sizeof(float)));
    CHECK_CUDA(cudaMemset(slots[s], 0, 32 * sizeof(float)));
  }
  CHECK_CUDA(cudaDeviceSynchronize());

  // One step: launch on stream `s`, record there, make the other stream wait.
  auto step = [&](long i) {
    int s = int(i & 1), other = s ^ 1;
    tick<<<1, 32, 0, streams[s]>>>(slots[s], 32);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventRecord(done[s], streams[s]));
    CHECK_CUDA(cudaStreamWaitEvent(streams[other], done[s], 0));
  };

  // Warm-up: module loading, first-launch costs, validator tables.
  for (long i = 0; i < 2000; ++i)
    step(i);
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<double> perLaunchUs;
  double totalUs = 0.0;
  timespec windowStart{}, windowEnd{};
  clock_gettime(CLOCK_MONOTONIC, &windowStart);
  for (long first = 0; first < launches; first += batch) {
    long count = std::min<long>(batch, launches - first);
    auto start = std::chrono::steady_clock::now();
    for (long i = first; i < first + count; ++i)
      step(i);
    auto stop = std::chrono::steady_clock::now();
    double us = std::chrono::duration<double, std::micro>(stop - start).count();
    totalUs += us;
    perLaunchUs.push_back(us / double(count));
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  clock_gettime(CLOCK_MONOTONIC, &windowEnd);

  // Every launch added exactly 1 to each slot of its stream's buffer.
  float host[2][32];
  for (int s = 0; s < 2; ++s)
    CHECK_CUDA(cudaMemcpy(host[s], slots[s], sizeof host[s], cudaMemcpyDeviceToHost));
  long expected[2] = {(2000 + launches + 1) / 2, (2000 + launches) / 2};
  bool ok = true;
  for (int s = 0; s < 2; ++s)
    for (int j = 0; j < 32; ++j)
      ok = ok && host[s][j] == float(expected[s]);

  std::sort(perLaunchUs.begin(), perLaunchUs.end());
  double median = perLaunchUs[perLaunchUs.size() / 2];
  std::printf("launch_bound: launches=%ld batch=%d host_us_per_launch_median=%.3f "
              "host_us_per_launch_mean=%.3f\n",
              launches, batch, median, totalUs / double(launches));
  std::printf("result: %s\n", ok ? "ok" : "corrupt");
  if (std::getenv("STREAMLIFE_SAMPLER_OUT")) // the timed steps, for bench/runtime/cpu_samples.py
    std::printf("rank 0 timed window (monotonic ns): %lld %lld\n",
                windowStart.tv_sec * 1000000000LL + windowStart.tv_nsec,
                windowEnd.tv_sec * 1000000000LL + windowEnd.tv_nsec);

  for (int s = 0; s < 2; ++s) {
    CHECK_CUDA(cudaFree(slots[s]));
    CHECK_CUDA(cudaEventDestroy(done[s]));
    CHECK_CUDA(cudaStreamDestroy(streams[s]));
  }
  return 0;
}
