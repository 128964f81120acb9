// stream_ordered_cases: stream-ordered free-before-wait programs and their
// correct twins, one per case name, for the parity test with compute-sanitizer
// (test/gpu/stream-ordered-parity.test, Inputs/oracle_parity.py).
//
// Usage: stream_ordered_cases CASE | --list
//
// Every case has the same skeleton: a buffer allocated stream-ordered on the
// allocation stream `a` (cudaMallocAsync, a pool, or cuMemAllocAsync), written
// there, read on a consumer stream that first waits for `a`, then released with
// cudaFreeAsync / cuMemFreeAsync. The consumer's read comes after a kernel that
// spins for a while, so that the read runs well after the free executed when
// nothing orders them. A "-bug" case releases the buffer without ordering the
// free after the read, one way or another (CUDA's contract: every access must
// be ordered before the free, whatever follows; compute-sanitizer's
// --track-stream-ordered-races checks exactly that); its "-ok" twin orders it.
// No CUDA graphs. Prints "case NAME: done" and exits 0 unless a CUDA call fails.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>

namespace {

constexpr int Elements = 1 << 16;
constexpr size_t Bytes = Elements * sizeof(float);
constexpr long long SpinCycles = 20 * 1000 * 1000; // ~10 ms at 2 GHz

void check(cudaError_t Status, const char *Call) {
  if (Status == cudaSuccess)
    return;
  std::fprintf(stderr, "error: %s at %s\n", cudaGetErrorString(Status), Call);
  std::exit(2);
}
void checkDriver(CUresult Status, const char *Call) {
  if (Status == CUDA_SUCCESS)
    return;
  const char *Text = nullptr;
  cuGetErrorString(Status, &Text);
  std::fprintf(stderr, "error: %s at %s\n", Text ? Text : "driver error", Call);
  std::exit(2);
}
#define CHECK(call) check((call), #call)
#define CHECK_CU(call) checkDriver((call), #call)

__global__ void fillKernel(float *Buf, int N, float Value) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    Buf[I] = Value;
}

__global__ void spinKernel(long long Cycles) {
  long long Start = clock64();
  while (clock64() - Start < Cycles) {
  }
}

__global__ void readKernel(const float *Buf, float *Out, int N) {
  float Sum = 0;
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    Sum += Buf[I];
  atomicAdd(Out, Sum);
}

struct Streams {
  cudaStream_t A, B, C;
  float *Out;
};

Streams makeStreams(unsigned BFlags = cudaStreamNonBlocking) {
  Streams S;
  CHECK(cudaStreamCreateWithFlags(&S.A, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&S.B, BFlags));
  CHECK(cudaStreamCreateWithFlags(&S.C, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&S.Out, sizeof(float)));
  CHECK(cudaMemset(S.Out, 0, sizeof(float)));
  return S;
}

void finish(const Streams &S) {
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(S.Out));
  CHECK(cudaStreamDestroy(S.A));
  CHECK(cudaStreamDestroy(S.B));
  CHECK(cudaStreamDestroy(S.C));
}

/// Allocates on S.A and fills there; Consumer waits for A's fill.
float *produce(const Streams &S, cudaStream_t Consumer, cudaMemPool_t Pool = nullptr) {
  float *P = nullptr;
  if (Pool)
    CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void **>(&P), Bytes, Pool, S.A));
  else
    CHECK(cudaMallocAsync(reinterpret_cast<void **>(&P), Bytes, S.A));
  fillKernel<<<64, 256, 0, S.A>>>(P, Elements, 1.0f);
  cudaEvent_t Filled;
  CHECK(cudaEventCreateWithFlags(&Filled, cudaEventDisableTiming));
  CHECK(cudaEventRecord(Filled, S.A));
  CHECK(cudaStreamWaitEvent(Consumer, Filled, 0));
  CHECK(cudaEventDestroy(Filled));
  return P;
}

/// The consumer's read, late: a spin first.
void consume(const Streams &S, cudaStream_t Consumer, const float *P) {
  spinKernel<<<1, 1, 0, Consumer>>>(SpinCycles);
  readKernel<<<64, 256, 0, Consumer>>>(P, S.Out, Elements);
}

/// Waiter waits for everything enqueued on Producer so far.
void order(cudaStream_t Waiter, cudaStream_t Producer) {
  cudaEvent_t E;
  CHECK(cudaEventCreateWithFlags(&E, cudaEventDisableTiming));
  CHECK(cudaEventRecord(E, Producer));
  CHECK(cudaStreamWaitEvent(Waiter, E, 0));
  CHECK(cudaEventDestroy(E));
}

// --- runtime API cases --------------------------------------------------------------

void noWait(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  if (Ok)
    order(S.A, S.B);
  CHECK(cudaFreeAsync(P, S.A));
  finish(S);
}

void waitAfterFree(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  cudaEvent_t Done;
  CHECK(cudaEventCreateWithFlags(&Done, cudaEventDisableTiming));
  CHECK(cudaEventRecord(Done, S.B));
  if (Ok)
    CHECK(cudaStreamWaitEvent(S.A, Done, 0));
  CHECK(cudaFreeAsync(P, S.A));
  if (!Ok)
    CHECK(cudaStreamWaitEvent(S.A, Done, 0)); // one line too late
  CHECK(cudaEventDestroy(Done));
  finish(S);
}

void staleEvent(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  cudaEvent_t Done;
  CHECK(cudaEventCreateWithFlags(&Done, cudaEventDisableTiming));
  if (!Ok)
    CHECK(cudaEventRecord(Done, S.B)); // before the read: orders nothing
  consume(S, S.B, P);
  if (Ok)
    CHECK(cudaEventRecord(Done, S.B));
  CHECK(cudaStreamWaitEvent(S.A, Done, 0));
  CHECK(cudaFreeAsync(P, S.A));
  CHECK(cudaEventDestroy(Done));
  finish(S);
}

void wrongStreamEvent(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  order(S.A, Ok ? S.B : S.A); // the buggy one waits on its own stream
  CHECK(cudaFreeAsync(P, S.A));
  finish(S);
}

void twoConsumers(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  order(S.C, S.A);
  consume(S, S.B, P);
  consume(S, S.C, P);
  order(S.A, S.B);
  if (Ok)
    order(S.A, S.C); // the buggy one forgets the second reader
  CHECK(cudaFreeAsync(P, S.A));
  finish(S);
}

void freeOnThirdStream(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  order(S.C, S.A);
  if (Ok)
    order(S.C, S.B);
  CHECK(cudaFreeAsync(P, S.C));
  finish(S);
}

void explicitPool(bool Ok) {
  int Device = 0;
  CHECK(cudaGetDevice(&Device));
  cudaMemPoolProps Props = {};
  Props.allocType = cudaMemAllocationTypePinned;
  Props.location.type = cudaMemLocationTypeDevice;
  Props.location.id = Device;
  cudaMemPool_t Pool;
  CHECK(cudaMemPoolCreate(&Pool, &Props));
  Streams S = makeStreams();
  float *P = produce(S, S.B, Pool);
  consume(S, S.B, P);
  if (Ok)
    order(S.A, S.B);
  CHECK(cudaFreeAsync(P, S.A));
  finish(S);
  CHECK(cudaMemPoolDestroy(Pool));
}

void hostSynced(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  CHECK(cudaStreamSynchronize(Ok ? S.B : S.A)); // the buggy one syncs the wrong stream
  CHECK(cudaFreeAsync(P, S.A));
  finish(S);
}

void legacyStreamFree(bool Ok) {
  // Freed on the legacy default stream, which waits for blocking streams only:
  // a non-blocking reader is not ordered before it, a blocking one is.
  Streams S = makeStreams(Ok ? cudaStreamDefault : cudaStreamNonBlocking);
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  order(S.C, S.A); // nothing to do with the reader
  CHECK(cudaFreeAsync(P, cudaStreamLegacy));
  finish(S);
}

void otherThreadFree(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  consume(S, S.B, P);
  cudaEvent_t Done;
  CHECK(cudaEventCreateWithFlags(&Done, cudaEventDisableTiming));
  CHECK(cudaEventRecord(Done, S.B));
  std::thread Releaser([&] {
    if (Ok)
      CHECK(cudaStreamWaitEvent(S.A, Done, 0));
    CHECK(cudaFreeAsync(P, S.A));
  });
  Releaser.join();
  CHECK(cudaEventDestroy(Done));
  finish(S);
}

void copyConsumer(bool Ok) {
  Streams S = makeStreams();
  float *P = produce(S, S.B);
  float *Copy = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void **>(&Copy), Bytes));
  spinKernel<<<1, 1, 0, S.B>>>(SpinCycles);
  CHECK(cudaMemcpyAsync(Copy, P, Bytes, cudaMemcpyDeviceToDevice, S.B));
  if (Ok)
    order(S.A, S.B);
  CHECK(cudaFreeAsync(P, S.A));
  finish(S);
  CHECK(cudaFree(Copy));
}

// --- driver API cases ------------------------------------------------------------------

struct DriverKernels {
  CUfunction Fill, Spin, Read;
};

DriverKernels driverKernels() {
  DriverKernels K;
  CHECK(cudaGetFuncBySymbol(&K.Fill, reinterpret_cast<const void *>(&fillKernel)));
  CHECK(cudaGetFuncBySymbol(&K.Spin, reinterpret_cast<const void *>(&spinKernel)));
  CHECK(cudaGetFuncBySymbol(&K.Read, reinterpret_cast<const void *>(&readKernel)));
  return K;
}

void driverOrder(CUstream Waiter, CUstream Producer) {
  CUevent E;
  CHECK_CU(cuEventCreate(&E, CU_EVENT_DISABLE_TIMING));
  CHECK_CU(cuEventRecord(E, Producer));
  CHECK_CU(cuStreamWaitEvent(Waiter, E, 0));
  CHECK_CU(cuEventDestroy(E));
}

/// cuMemAllocAsync (or from Pool) on A, filled there; B waits, spins, reads;
/// released with cuMemFreeAsync on A, before or after A waits on B's read.
void driverCase(bool Ok, bool UsePool, bool WaitAfterFree) {
  CHECK(cudaFree(nullptr)); // the runtime's primary context is current
  DriverKernels K = driverKernels();
  CUstream A, B;
  CHECK_CU(cuStreamCreate(&A, CU_STREAM_NON_BLOCKING));
  CHECK_CU(cuStreamCreate(&B, CU_STREAM_NON_BLOCKING));
  CUmemoryPool Pool = nullptr;
  if (UsePool) {
    CUdevice Device;
    CHECK_CU(cuCtxGetDevice(&Device));
    CUmemPoolProps Props = {};
    Props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    Props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    Props.location.id = Device;
    CHECK_CU(cuMemPoolCreate(&Pool, &Props));
  }
  CUdeviceptr P = 0, Out = 0;
  CHECK_CU(cuMemAlloc(&Out, sizeof(float)));
  if (Pool)
    CHECK_CU(cuMemAllocFromPoolAsync(&P, Bytes, Pool, A));
  else
    CHECK_CU(cuMemAllocAsync(&P, Bytes, A));
  int N = Elements;
  float One = 1.0f;
  void *FillArgs[] = {&P, &N, &One};
  CHECK_CU(cuLaunchKernel(K.Fill, 64, 1, 1, 256, 1, 1, 0, A, FillArgs, nullptr));
  driverOrder(B, A);
  long long Cycles = SpinCycles;
  void *SpinArgs[] = {&Cycles};
  CHECK_CU(cuLaunchKernel(K.Spin, 1, 1, 1, 1, 1, 1, 0, B, SpinArgs, nullptr));
  void *ReadArgs[] = {&P, &Out, &N};
  CHECK_CU(cuLaunchKernel(K.Read, 64, 1, 1, 256, 1, 1, 0, B, ReadArgs, nullptr));
  if (Ok)
    driverOrder(A, B);
  CHECK_CU(cuMemFreeAsync(P, A));
  if (!Ok && WaitAfterFree)
    driverOrder(A, B); // too late
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemFree(Out));
  if (Pool)
    CHECK_CU(cuMemPoolDestroy(Pool));
  CHECK_CU(cuStreamDestroy(A));
  CHECK_CU(cuStreamDestroy(B));
}

using CaseFn = std::function<void(bool Ok)>;

const std::map<std::string, CaseFn> &cases() {
  static const std::map<std::string, CaseFn> Table = {
      {"rt-no-wait", noWait},
      {"rt-wait-after-free", waitAfterFree},
      {"rt-stale-event", staleEvent},
      {"rt-wrong-stream-event", wrongStreamEvent},
      {"rt-two-consumers", twoConsumers},
      {"rt-free-on-third-stream", freeOnThirdStream},
      {"rt-explicit-pool", explicitPool},
      {"rt-host-synced-wrong-stream", hostSynced},
      {"rt-legacy-stream-free", legacyStreamFree},
      {"rt-other-thread-free", otherThreadFree},
      {"rt-copy-consumer", copyConsumer},
      {"drv-no-wait", [](bool Ok) { driverCase(Ok, false, false); }},
      {"drv-pool", [](bool Ok) { driverCase(Ok, true, false); }},
      {"drv-wait-after-free", [](bool Ok) { driverCase(Ok, false, true); }},
  };
  return Table;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: stream_ordered_cases CASE-bug|CASE-ok|--list\n");
    return 2;
  }
  std::string Name = Argv[1];
  if (Name == "--list") {
    for (const auto &Entry : cases())
      std::printf("%s-bug\n%s-ok\n", Entry.first.c_str(), Entry.first.c_str());
    return 0;
  }
  bool Ok = Name.size() > 3 && Name.compare(Name.size() - 3, 3, "-ok") == 0;
  bool Bug = Name.size() > 4 && Name.compare(Name.size() - 4, 4, "-bug") == 0;
  auto It = cases().find(Name.substr(0, Name.size() - (Ok ? 3 : 4)));
  if ((!Ok && !Bug) || It == cases().end()) {
    std::fprintf(stderr, "stream_ordered_cases: unknown case '%s' (--list lists them)\n",
                 Name.c_str());
    return 2;
  }
  // Keep freed memory in the device's pool, as a long-running program would.
  int Device = 0;
  CHECK(cudaGetDevice(&Device));
  cudaMemPool_t DefaultPool;
  CHECK(cudaDeviceGetDefaultMemPool(&DefaultPool, Device));
  unsigned long long Threshold = ~0ull;
  CHECK(cudaMemPoolSetAttribute(DefaultPool, cudaMemPoolAttrReleaseThreshold, &Threshold));
  It->second(Ok);
  std::printf("case %s: done\n", Name.c_str());
  return 0;
}
