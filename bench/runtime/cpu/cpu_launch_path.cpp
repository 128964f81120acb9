//===- cpu_launch_path.cpp - the validator's host cost per launch, no GPU --===//
//
// launch_bound.cu's loop played through the fake CUPTI and driver
// (test/unit/runtime/fakecuda): per step, one kernel launch on stream s whose
// parameters point at s's slot buffer, an event record on s and a wait of the
// other stream on it -- the three driver calls the validator intercepts per
// launch on the GPU. The fake CUPTI plays them through the fake driver's
// functions, reached through cuGetProcAddress as nvcc's static runtime reaches
// them (FAKE_DRIVER_PATH chooses another way), so the validator intercepts
// them at the driver's entry points, or through CUPTI's callbacks with
// STREAMLIFE_OPTIONS=driver_entry_points=0, then the same interceptors and
// engine. Without the validator preloaded the fake CUPTI has no subscriber
// and a step costs a few nanoseconds, so the difference between the two runs
// is the validator's own host time per launch (cpu_launch_path.sh pairs them).
//
//   cpu_launch_path [--launches N] [--batch B] [--depth D] [--struct] [--locks K] [--destroy-locks]
//                   [--blocks L] [--async-allocs A] [--evict KB] [--driver-ns NS] [--sync-every K]
//
// --depth D makes each call D frames deep (a framework's stack), which is
// what stack capture pays for. --struct launches kernel 0x2000 instead, whose
// one parameter is a 24-byte struct holding the slot pointer: words the
// generic rule finds, so each launch also names its stack a second time
// (OpTable::sameStack). --locks K locks and unlocks K program mutexes after
// each step, between its CUDA calls (a framework's locks): the mutexes share
// one slot of RedundantSyncFilter's per-thread cache, so with K >= 2 every
// unlock is kept and queued (the interposers' counted path,
// InterceptThreads.cpp), and every lock but the first is dropped by the
// last-releaser rule (the thread's own release, found in the bucket's
// record, not in the cache); with K = 1 all but the first are dropped.
// --destroy-locks destroys and initializes each mutex again after its unlock
// (pthread_mutex_destroy is reported, pthread_mutex_init is not): the object's
// clock is forgotten, so every lock is kept and queued as well (a kept
// acquire, as another thread's handover makes it, measured on one thread).
// --blocks L
// reports L block lifetimes per step through the annotation entry points
// (streamlife/annotations.h: allocated, release requested, released, as
// PyTorch's trace tracker does; the release is named by its request), each
// block on the step's stream, reused every 64 blocks. --async-allocs A makes A
// stream-ordered allocations per step (cuMemAllocAsync on the step's stream,
// sizes from 256 bytes to 512 KiB, addresses reused every 64 as a pool's), each
// freed on its stream (cuMemFreeAsync) two allocations later, as FSDP2 with
// PyTorch's cudaMallocAsync backend does; every fourth is also used by a
// kernel on the other stream, ordered both ways by an event record and a wait
// (a correct program: no findings). They too go through the fake driver's
// functions, so the validator takes them at the driver's entry points (or
// through CUPTI with driver_entry_points=0). The allocations and frees are made
// through asyncAlloc() and asyncFree(), so that callgrind's inclusive count
// of each, per call, is the call's whole cost. --evict KB models the
// program's own work between its calls (a framework's interpreter and
// dispatch, tens of MB of working set): before each of the step's calls (the
// CUDA calls, each lock and unlock, each block event) outside the warm-up,
// evictCaches() reads and writes one word of each cache line of a buffer of
// KB kilobytes of its own, so that the validator's tables are cold again at
// each callback, as on a real host (run it under callgrind --cache-sim=yes and
// count the misses of the calls; evictCaches' own are its). --driver-ns NS
// spins NS nanoseconds before each of the step's three CUDA calls, the real
// driver's own host time (about 1500 on the H200), so that the validator's
// work arrives as far apart as it does on a GPU. --sync-every K synchronizes
// the step's stream after every K-th step (a host synchronization, which
// replays what is queued on the calling thread). Prints one line:
//   cpu_launch_path: launches=N ns_per_launch_median=X ns_per_launch_mean=Y
// Exit 0; 2 without the fake CUPTI; 3 on bad usage.
//
//===----------------------------------------------------------------------===//
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using CallFn = void (*)(CUpti_CallbackId, const char *, void *, CUresult, const char *);
CallFn Call = nullptr;

CUstream const Streams[2] = {reinterpret_cast<CUstream>(0x5000), reinterpret_cast<CUstream>(0x6000)};
CUevent const Done[2] = {reinterpret_cast<CUevent>(0x7100), reinterpret_cast<CUevent>(0x7200)};
CUdeviceptr const Slots[2] = {0x7f0000000000, 0x7f1000000000};
CUfunction const Tick = reinterpret_cast<CUfunction>(0x1000); // (float *, float *, int), FakeDriver.cpp
CUfunction const ByValue = reinterpret_cast<CUfunction>(0x2000); // one 24-byte struct, FakeDriver.cpp
bool StructParams = false;

/// 512 bytes apart: one slot of the filter's cache (RedundantSyncFilter.cpp).
struct alignas(512) SpacedMutex {
  pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;
};
std::vector<SpacedMutex> Locks;
bool DestroyLocks = false;

/// --evict's buffer (empty: off), touched between the program's calls once
/// the warm-up is done.
std::vector<unsigned char> EvictBuffer;
bool Evicting = false;

/// Reads and writes one byte of each 64-byte line of EvictBuffer: the
/// program's work between two callbacks, as far as the caches see it. Out of
/// line, so that callgrind counts its misses apart from the calls'.
__attribute__((noinline)) void evictCaches() {
  unsigned char *P = EvictBuffer.data();
  for (std::size_t I = 0, N = EvictBuffer.size(); I < N; I += 64)
    P[I] = static_cast<unsigned char>(P[I] + 1);
  __asm__ __volatile__("" ::: "memory");
}
/// --driver-ns: the host time the real driver spends in each CUDA call (0:
/// none, the fake's few nanoseconds). On the H200 a launch, a record and a
/// wait take about 1.5 µs each, so the validator's queued events arrive
/// microseconds apart, not nanoseconds: the spacing the replay thread's
/// batching sees there (ReplayThread.h).
long DriverNs = 0;
/// --sync-every K: a cuStreamSynchronize of the step's stream after every
/// K-th step (0: none). A host synchronization needs the engine's state, so
/// the calling thread replays what is still queued itself: what a framework's
/// synchronizing calls pay when the replay thread lets the queue grow.
long SyncEvery = 0;

/// Spins for --driver-ns before a CUDA call (inside the timed step, plain
/// and validated alike, so that the difference is still the validator's).
__attribute__((noinline)) void driverWork() {
  auto End = std::chrono::steady_clock::now() + std::chrono::nanoseconds(DriverNs);
  while (std::chrono::steady_clock::now() < End)
    __asm__ __volatile__("pause" ::: "memory");
}

/// Before each of the program's calls.
inline void betweenCalls() {
  if (Evicting)
    evictCaches();
}
/// Before each of the step's CUDA calls.
inline void beforeCudaCall() {
  betweenCalls();
  if (DriverNs)
    driverWork();
}

/// The annotation entry points when the validator is preloaded, else null.
struct BlockAnnotations {
  void (*Allocated)(int, const void *, size_t, void *) = nullptr;
  void (*Requested)(int, const void *, void *) = nullptr;
  void (*Released)(int, const void *, void *) = nullptr;
  int Allocator = 0;
  int PerStep = 0;
  long Next = 0;
} Blocks;

/// The stream-ordered allocations of --async-allocs.
struct AsyncAllocations {
  int PerStep = 0;
  long Next = 0;
} Async;
CUevent const CrossReady[2] = {reinterpret_cast<CUevent>(0x7300), reinterpret_cast<CUevent>(0x7400)};
CUevent const CrossDone[2] = {reinterpret_cast<CUevent>(0x7500), reinterpret_cast<CUevent>(0x7600)};

void setUp() {
  for (int S = 0; S < 2; ++S) {
    CUstream Out = Streams[S];
    cuStreamCreate_params Create{&Out, CU_STREAM_NON_BLOCKING};
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, "cuStreamCreate", &Create, CUDA_SUCCESS, nullptr);
    CUdeviceptr Ptr = Slots[S];
    cuMemAlloc_v2_params Alloc{&Ptr, 128};
    Call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &Alloc, CUDA_SUCCESS, nullptr);
  }
}

void launchTick(CUdeviceptr Buffer, CUstream Stream) {
  int Count = 32;
  void *Params[] = {&Buffer, &Buffer, &Count};
  cuLaunchKernel_params Launch{Tick, 1, 1, 1, 32, 1, 1, 0, Stream, Params, nullptr};
  Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &Launch, CUDA_SUCCESS, "_Z4tickPfS_i");
}

void recordAndWait(CUevent Event, CUstream Recorder, CUstream Waiter) {
  cuEventRecord_params Record{Event, Recorder};
  Call(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", &Record, CUDA_SUCCESS, nullptr);
  cuStreamWaitEvent_params Wait{Waiter, Event, 0};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &Wait, CUDA_SUCCESS, nullptr);
}

__attribute__((noinline)) CUdeviceptr asyncAlloc(std::size_t Bytes, CUstream Stream, CUdeviceptr Address) {
  CUdeviceptr Out = Address; // the pool's answer: the fake driver hands back what it is given
  cuMemAllocAsync_params P{&Out, Bytes, Stream};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, "cuMemAllocAsync", &P, CUDA_SUCCESS, nullptr);
  return Out;
}

__attribute__((noinline)) void asyncFree(CUdeviceptr Ptr, CUstream Stream) {
  cuMemFreeAsync_params P{Ptr, Stream};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, "cuMemFreeAsync", &P, CUDA_SUCCESS, nullptr);
}

/// --async-allocs: the step's stream-ordered allocations, each freed two
/// allocations later; every fourth also used on the other stream.
void asyncAllocations(int S) {
  int Other = S ^ 1;
  CUdeviceptr Live[2] = {0, 0};
  for (int A = 0; A < Async.PerStep; ++A) {
    long N = Async.Next++;
    std::size_t Bytes = std::size_t(256) << (N * 7 % 12);
    CUdeviceptr Ptr = asyncAlloc(Bytes, Streams[S], 0x7d0000000000 + CUdeviceptr(N % 64) * 0x100000);
    if (A % 4 == 0) {
      recordAndWait(CrossReady[S], Streams[S], Streams[Other]);
      launchTick(Ptr, Streams[Other]);
      recordAndWait(CrossDone[S], Streams[Other], Streams[S]);
    }
    if (Live[A & 1])
      asyncFree(Live[A & 1], Streams[S]);
    Live[A & 1] = Ptr;
  }
  for (CUdeviceptr Ptr : Live)
    if (Ptr)
      asyncFree(Ptr, Streams[S]);
}

/// The program's lock and unlock, out of line so that callgrind's inclusive
/// count of each, per call, is the interposer's whole cost (the real call
/// included), as asyncAlloc's is.
__attribute__((noinline)) void programLock(pthread_mutex_t *M) { pthread_mutex_lock(M); }
__attribute__((noinline)) void programUnlock(pthread_mutex_t *M) { pthread_mutex_unlock(M); }

/// launch_bound.cu's step: launch on s, record there, make the other stream wait.
void step(long I) {
  int S = int(I & 1), Other = S ^ 1;
  CUdeviceptr Slot = Slots[S];
  int Count = 32;
  void *Params[] = {&Slot, &Slot, &Count};
  struct {
    int N, Flags;
    CUdeviceptr In, Out;
  } Args{Count, 0, Slot, Slot};
  void *StructParamList[] = {&Args};
  cuLaunchKernel_params Launch{StructParams ? ByValue : Tick, 1, 1, 1, 32, 1, 1, 0, Streams[S],
                               StructParams ? StructParamList : Params, nullptr};
  beforeCudaCall();
  Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &Launch, CUDA_SUCCESS,
       StructParams ? "_Z6byvalue4Args" : "_Z4tickPfS_i");
  cuEventRecord_params Record{Done[S], Streams[S]};
  beforeCudaCall();
  Call(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", &Record, CUDA_SUCCESS, nullptr);
  cuStreamWaitEvent_params Wait{Streams[Other], Done[S], 0};
  beforeCudaCall();
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &Wait, CUDA_SUCCESS, nullptr);
  for (SpacedMutex &L : Locks) {
    betweenCalls();
    programLock(&L.M);
    betweenCalls();
    programUnlock(&L.M);
    if (DestroyLocks) {
      betweenCalls();
      pthread_mutex_destroy(&L.M);
      pthread_mutex_init(&L.M, nullptr);
    }
  }
  if (Blocks.Allocator)
    for (int B = 0; B < Blocks.PerStep; ++B) {
      auto *Block = reinterpret_cast<const void *>(0x7e0000000000 + (Blocks.Next++ % 64) * 0x1000);
      betweenCalls();
      Blocks.Allocated(Blocks.Allocator, Block, 0x1000, Streams[S]);
      betweenCalls();
      Blocks.Requested(Blocks.Allocator, Block, Streams[S]);
      betweenCalls();
      Blocks.Released(Blocks.Allocator, Block, Streams[S]);
    }
  if (Async.PerStep)
    asyncAllocations(S);
  if (SyncEvery && I % SyncEvery == SyncEvery - 1) {
    cuStreamSynchronize_params Sync{Streams[S]};
    beforeCudaCall();
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", &Sync, CUDA_SUCCESS, nullptr);
  }
}

__attribute__((noinline)) void deep(int Depth, long I) {
  if (Depth <= 0)
    step(I);
  else
    deep(Depth - 1, I);
  __asm__ __volatile__("" ::: "memory"); // keeps every level's frame
}

} // namespace

int main(int Argc, char **Argv) {
  long Launches = 200000;
  int Batch = 500, Depth = 24, LockCount = 0, BlockCount = 0, AsyncCount = 0;
  long EvictKB = 0;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--launches") && I + 1 < Argc)
      Launches = std::atol(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--batch") && I + 1 < Argc)
      Batch = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--depth") && I + 1 < Argc)
      Depth = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--struct"))
      StructParams = true;
    else if (!std::strcmp(Argv[I], "--locks") && I + 1 < Argc)
      LockCount = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--destroy-locks"))
      DestroyLocks = true;
    else if (!std::strcmp(Argv[I], "--blocks") && I + 1 < Argc)
      BlockCount = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--async-allocs") && I + 1 < Argc)
      AsyncCount = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--evict") && I + 1 < Argc)
      EvictKB = std::atol(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--driver-ns") && I + 1 < Argc)
      DriverNs = std::atol(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--sync-every") && I + 1 < Argc)
      SyncEvery = std::atol(Argv[++I]);
    else {
      std::fprintf(stderr, "error: unknown option '%s'\nusage: %s [--launches N] [--batch B] [--depth D] [--struct] [--locks K] [--destroy-locks] [--blocks L] [--async-allocs A] [--evict KB] [--driver-ns NS] [--sync-every K]\n",
                   Argv[I], Argv[0]);
      return 3;
    }
  }
  if (Launches <= 0 || Batch <= 0 || Depth < 0 || LockCount < 0 || BlockCount < 0 || AsyncCount < 0 || EvictKB < 0 ||
      DriverNs < 0 || SyncEvery < 0) {
    std::fprintf(stderr, "error: --launches and --batch must be positive, --depth, --locks, --blocks, --async-allocs, "
                         "--evict, --driver-ns and --sync-every not negative\n");
    return 3;
  }
  Async.PerStep = AsyncCount;
  Locks = std::vector<SpacedMutex>(static_cast<std::size_t>(LockCount));
  const char *Cupti = std::getenv("STREAMLIFE_CUPTI_LIBRARY");
  void *Lib = Cupti ? dlopen(Cupti, RTLD_NOW) : nullptr;
  Call = Lib ? reinterpret_cast<CallFn>(dlsym(Lib, "fakeCuptiCall")) : nullptr;
  if (!Call) {
    std::fprintf(stderr, "error: set STREAMLIFE_CUPTI_LIBRARY to the fake CUPTI (test/fakecuda/libcupti.so)\n");
    return 2;
  }
  setUp();
  if (BlockCount) {
    using RegisterFn = int (*)(const char *, int);
    auto Register = reinterpret_cast<RegisterFn>(dlsym(RTLD_DEFAULT, "__streamlife_register_allocator"));
    Blocks.Allocated = reinterpret_cast<decltype(Blocks.Allocated)>(dlsym(RTLD_DEFAULT, "__streamlife_block_allocated"));
    Blocks.Requested =
        reinterpret_cast<decltype(Blocks.Requested)>(dlsym(RTLD_DEFAULT, "__streamlife_block_release_requested"));
    Blocks.Released = reinterpret_cast<decltype(Blocks.Released)>(dlsym(RTLD_DEFAULT, "__streamlife_block_released"));
    Blocks.Allocator = Register && Blocks.Allocated && Blocks.Requested && Blocks.Released
                           ? Register("bench pool", 1) // STREAMLIFE_REUSE_SAME_STREAM
                           : 0;
    Blocks.PerStep = BlockCount;
  }
  for (long I = 0; I < 2000; ++I) // warm-up: tables, sampled stacks
    deep(Depth, I);
  EvictBuffer.assign(static_cast<std::size_t>(EvictKB) * 1024, 0);
  Evicting = EvictKB > 0;
  std::vector<double> PerLaunch;
  for (long Start = 0; Start < Launches; Start += Batch) {
    long N = std::min<long>(Batch, Launches - Start);
    auto T0 = std::chrono::steady_clock::now();
    for (long I = Start; I < Start + N; ++I)
      deep(Depth, I);
    auto T1 = std::chrono::steady_clock::now();
    PerLaunch.push_back(std::chrono::duration<double, std::nano>(T1 - T0).count() / double(N));
  }
  double Mean = 0;
  for (double V : PerLaunch)
    Mean += V;
  Mean /= double(PerLaunch.size());
  std::nth_element(PerLaunch.begin(), PerLaunch.begin() + PerLaunch.size() / 2, PerLaunch.end());
  std::printf("cpu_launch_path: launches=%ld ns_per_launch_median=%.1f ns_per_launch_mean=%.1f\n", Launches,
              PerLaunch[PerLaunch.size() / 2], Mean);
  return 0;
}
