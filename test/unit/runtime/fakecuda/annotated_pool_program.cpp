//===- annotated_pool_program.cpp - a custom pool allocator, annotated ----===//
//
// Usage: annotated_pool_program SCENARIO. A program with its own small
// caching allocator (StreamPool below: blocks carved from one cuMemAlloc'd
// segment, a freed block reused by the next allocation on its stream at once,
// record_stream-style deferred frees) that tells the validator about its blocks
// through <streamlife/annotations.h>, the way PyTorch's feed does. The driver
// calls are played through the fake CUPTI, as in fake_cuda_program.cpp; see
// run-annotated-pool.test for the expectations. Without the validator loaded
// the annotations are no-ops and the program runs the same.
//
//===----------------------------------------------------------------------===//
#include "streamlife/annotations.h"

#include <cupti.h>
#include <dlfcn.h>

#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

using CallFn = void (*)(CUpti_CallbackId, const char *, void *, CUresult, const char *);
CallFn Call = nullptr;

CUstream const Ag = reinterpret_cast<CUstream>(0x5000);
CUstream const Compute = reinterpret_cast<CUstream>(0x6000);
CUfunction const Kernel = reinterpret_cast<CUfunction>(0x1000); // 3 parameters in the fake driver
constexpr CUdeviceptr Segment = 0x7f0000000000;
constexpr CUdeviceptr Output = 0x7f1000000000;
constexpr size_t BlockBytes = 4096;

void createStream(CUstream S) {
  CUstream Out = S;
  cuStreamCreate_params P{&Out, CU_STREAM_NON_BLOCKING};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, "cuStreamCreate", &P, CUDA_SUCCESS, nullptr);
}

void segmentAlloc(CUdeviceptr Ptr, size_t Bytes) {
  CUdeviceptr Out = Ptr;
  cuMemAlloc_v2_params P{&Out, Bytes};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &P, CUDA_SUCCESS, nullptr);
}

void recordEvent(CUevent E, CUstream S) {
  cuEventRecord_params R{E, S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", &R, CUDA_SUCCESS, nullptr);
}

/// cuEventQuery that reports completion.
void queryEvent(CUevent E) {
  cuEventQuery_params Q{E};
  Call(CUPTI_DRIVER_TRACE_CBID_cuEventQuery, "cuEventQuery", &Q, CUDA_SUCCESS, nullptr);
}

/// Waiter waits for everything enqueued on Producer so far.
void order(CUstream Waiter, CUstream Producer) {
  CUevent E = reinterpret_cast<CUevent>(0x7100);
  recordEvent(E, Producer);
  cuStreamWaitEvent_params W{Waiter, E, 0};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &W, CUDA_SUCCESS, nullptr);
}

/// A kernel reading or writing Ptr on S.
void launch(CUdeviceptr Ptr, CUstream S, const char *Name) {
  CUdeviceptr In = Ptr, Out = Output;
  int N = 1024;
  void *Params[] = {&In, &Out, &N};
  cuLaunchKernel_params P{Kernel, 1, 1, 1, 32, 1, 1, 0, S, Params, nullptr};
  Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &P, CUDA_SUCCESS, Name);
}

void syncStream(CUstream S) {
  cuStreamSynchronize_params P{S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", &P, CUDA_SUCCESS,
       nullptr);
}

/// The pool's own lock. A spin lock, as in many allocators: like PyTorch's
/// allocator mutex (which the validator does not count), it must not order
/// the threads that allocate and release, or the verdict would depend on
/// which of them got the lock first.
class SpinLock {
public:
  void lock() {
    while (Flag.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { Flag.clear(std::memory_order_release); }

private:
  std::atomic_flag Flag = ATOMIC_FLAG_INIT;
};

/// The allocator under test: fixed-size blocks from one segment; a released
/// block is reused by the next allocation on its stream at once, unless other
/// streams were recorded on it (then it waits for events on them).
class StreamPool {
public:
  /// Thread-safe entry points for the threaded scenarios.
  CUdeviceptr allocateLocked(CUstream S) {
    Lock.lock();
    CUdeviceptr P = allocate(S);
    Lock.unlock();
    return P;
  }
  void releaseLocked(CUdeviceptr P) {
    Lock.lock();
    release(P);
    Lock.unlock();
  }

  StreamPool() : Id(streamlife_register_allocator("test pool", STREAMLIFE_REUSE_SAME_STREAM)) {
    segmentAlloc(Segment, 64 * BlockBytes);
  }

  CUdeviceptr allocate(CUstream S) {
    processEvents();
    CUdeviceptr P;
    std::vector<CUdeviceptr> &Free = FreeBlocks[S];
    if (!Free.empty()) {
      P = Free.back();
      Free.pop_back();
    } else {
      P = Segment + Next++ * BlockBytes;
    }
    StreamOf[P] = S;
    streamlife_block_allocated(Id, reinterpret_cast<void *>(P), BlockBytes, S);
    return P;
  }

  void recordStream(CUdeviceptr P, CUstream Consumer) { Recorded[P].push_back(Consumer); }

  void release(CUdeviceptr P) {
    CUstream S = StreamOf[P];
    streamlife_block_release_requested(Id, reinterpret_cast<void *>(P), S);
    std::vector<CUstream> Uses = Recorded[P];
    Recorded.erase(P);
    if (Uses.empty())
      return releaseNow(P);
    for (CUstream U : Uses) { // record an event on every recorded stream
      CUevent E = reinterpret_cast<CUevent>(0x8000 + Pending.size() * 0x10);
      recordEvent(E, U);
      Pending.push_back(Deferred{P, E, 0});
    }
  }

private:
  void releaseNow(CUdeviceptr P) {
    streamlife_block_released(Id, reinterpret_cast<void *>(P), StreamOf[P]);
    FreeBlocks[StreamOf[P]].push_back(P);
  }
  /// An event is seen complete at the second allocation after its record
  /// (the GPU lags one layer behind the host, as in a pipeline).
  void processEvents() {
    std::vector<Deferred> Still;
    for (Deferred &D : Pending) {
      if (D.Age++ == 0) {
        Still.push_back(D);
        continue;
      }
      if (QueryEvents)
        queryEvent(D.Event);
      releaseNow(D.Ptr);
    }
    Pending = Still;
  }

public:
  /// A broken pool takes deferred blocks back without asking whether the
  /// recorded streams are done.
  bool QueryEvents = true;

private:
  int Id;
  SpinLock Lock;
  std::size_t Next = 0;
  std::map<CUstream, std::vector<CUdeviceptr>> FreeBlocks;
  std::map<CUdeviceptr, CUstream> StreamOf;
  std::map<CUdeviceptr, std::vector<CUstream>> Recorded;
  struct Deferred {
    CUdeviceptr Ptr;
    CUevent Event;
    int Age;
  };
  std::vector<Deferred> Pending;
};

/// The tests' libtorch_cpu.so (FakeTorchCpu.cpp): fakeTorchLocked(Function,
/// Mutex, Work, Arg) runs Work under Mutex, locked and unlocked inside the
/// library function so named. Null, said on stderr, when it is not found.
using FakeTorchLockedFn = int (*)(const char *, pthread_mutex_t *, void (*)(void *), void *);
FakeTorchLockedFn loadFakeTorchLocked() {
  void *Torch = dlopen("libtorch_cpu.so", RTLD_NOW | RTLD_LOCAL);
  auto Locked = Torch ? reinterpret_cast<FakeTorchLockedFn>(dlsym(Torch, "fakeTorchLocked")) : nullptr;
  if (!Locked)
    std::fprintf(stderr, "annotated_pool_program: no libtorch_cpu.so of the tests: %s\n", dlerror());
  return Locked;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Scenario = Argc > 1 ? Argv[1] : "";
  const char *Cupti = std::getenv("STREAMLIFE_CUPTI_LIBRARY");
  void *Lib = Cupti ? dlopen(Cupti, RTLD_NOW) : nullptr;
  Call = Lib ? reinterpret_cast<CallFn>(dlsym(Lib, "fakeCuptiCall")) : nullptr;
  if (!Call) {
    std::fprintf(stderr, "annotated_pool_program: set STREAMLIFE_CUPTI_LIBRARY to the fake CUPTI\n");
    return 2;
  }
  createStream(Ag);
  createStream(Compute);
  segmentAlloc(Output, BlockBytes);
  StreamPool Pool;

  if (Scenario == "no-wait" || Scenario == "wait-first" || Scenario == "wait-before-reuse") {
    // Produced on ag, consumed on compute, released: the seed's pipeline.
    // wait-before-reuse orders ag after the consumer only after the release,
    // but before ag's next allocation (FSDP2's reduce-scatter stream).
    for (int Layer = 0; Layer < 2; ++Layer) {
      if (Scenario == "wait-before-reuse")
        order(Ag, Compute);
      CUdeviceptr W = Pool.allocate(Ag);
      launch(W, Ag, "touch");
      order(Compute, Ag);
      launch(W, Compute, "touch");
      if (Scenario == "wait-first")
        order(Ag, Compute);
      Pool.release(W);
    }
  } else if (Scenario == "record-stream" || Scenario == "deferred-without-query") {
    // The consumer stream is recorded: the pool takes the block back only
    // after an event on it completed, and hands out a second block meanwhile.
    Pool.QueryEvents = Scenario == "record-stream";
    for (int Layer = 0; Layer < 3; ++Layer) {
      CUdeviceptr W = Pool.allocate(Ag);
      launch(W, Ag, "touch");
      order(Compute, Ag);
      launch(W, Compute, "touch");
      Pool.recordStream(W, Compute);
      Pool.release(W);
    }
  } else if (Scenario == "access") {
    // A use the validator cannot see as a kernel argument, annotated by hand.
    CUdeviceptr W = Pool.allocate(Ag);
    streamlife_buffer_accessed(reinterpret_cast<void *>(W), BlockBytes, Compute, 0);
    Pool.release(W);
    Pool.allocate(Ag); // the next block on ag: W itself
  } else if (Scenario == "locked-launches") {
    // A framework's dispatcher lock around each op: 100 launches, each
    // under the lock, a stream synchronization before every tenth. Only
    // the first lock and unlock and the unlock after each synchronization
    // change a clock (RedundantSyncFilter.h): a launch changes none.
    pthread_mutex_t Dispatch = PTHREAD_MUTEX_INITIALIZER;
    CUdeviceptr W = Pool.allocate(Ag);
    for (int Op = 0; Op < 100; ++Op) {
      if (Op % 10 == 9)
        syncStream(Ag);
      pthread_mutex_lock(&Dispatch);
      launch(W, Ag, "touch");
      pthread_mutex_unlock(&Dispatch);
    }
    Pool.release(W);
  } else if (Scenario == "busy-pipeline") {
    // The seed's pipeline for 2,000 layers, each op under a dispatcher lock
    // and every fiftieth layer's hand-off through a fresh mutex (a kept lock
    // event), with one missing wait (layer 1,500): long enough that the
    // validator's replay thread (ReplayThread.h) replays while the program
    // queues, so its report must equal the program threads' own replays.
    pthread_mutex_t Dispatch = PTHREAD_MUTEX_INITIALIZER;
    for (int Layer = 0; Layer < 2000; ++Layer) {
      pthread_mutex_lock(&Dispatch);
      CUdeviceptr W = Pool.allocate(Ag);
      launch(W, Ag, "produce");
      pthread_mutex_unlock(&Dispatch);
      if (Layer % 50 == 0) {
        pthread_mutex_t HandOff = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&HandOff);
        pthread_mutex_unlock(&HandOff);
      }
      pthread_mutex_lock(&Dispatch);
      order(Compute, Ag);
      launch(W, Compute, "consume");
      if (Layer != 1500)
        order(Ag, Compute);
      Pool.release(W);
      pthread_mutex_unlock(&Dispatch);
    }
  } else if (Scenario == "long-lock-queue") {
    // A process that locks a lot and calls CUDA little: a second thread
    // locks 70,000 fresh mutexes (each acquire changes a clock: kept, and
    // queued) with no CUDA call to replay them, twice. Then the main thread
    // releases: the first time a release the filter drops (it locked and
    // unlocked the mutex before, nothing learned since), the second time one
    // it keeps (a mutex it never released). Either release finds more than
    // 65,536 events queued and drains the queue itself, after its real
    // unlock (InterceptThreads.cpp): two drains. The flags are atomics,
    // which order nothing the validator sees.
    constexpr int Fresh = 70000;
    // Left locked and never freed: only their owner could unlock them, and
    // its 140,000 releases would drain the queue again.
    auto &Many = *new std::vector<pthread_mutex_t>(2 * Fresh);
    for (pthread_mutex_t &M : Many)
      pthread_mutex_init(&M, nullptr);
    pthread_mutex_t Again = PTHREAD_MUTEX_INITIALIZER, Once = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&Again);
    pthread_mutex_unlock(&Again);
    pthread_mutex_lock(&Again);
    std::atomic<int> Phase{0};
    std::thread Locker([&] {
      for (int I = 0; I < Fresh; ++I)
        pthread_mutex_lock(&Many[I]);
      Phase.store(1);
      while (Phase.load() != 2)
        std::this_thread::yield();
      for (int I = Fresh; I < 2 * Fresh; ++I)
        pthread_mutex_lock(&Many[I]);
      Phase.store(3);
    });
    while (Phase.load() != 1)
      std::this_thread::yield();
    pthread_mutex_unlock(&Again); // dropped, with the queue long
    Phase.store(2);
    while (Phase.load() != 3)
      std::this_thread::yield();
    pthread_mutex_lock(&Once);
    pthread_mutex_unlock(&Once); // kept, with the queue long
    Locker.join();
  } else if (Scenario == "torch-relock") {
    // One thread locking one mutex again and again inside a library's
    // function (FakeTorchCpu.cpp's ReadyQueue::push), nothing learned in
    // between: after the first lock and unlock the filter drops every event
    // (RedundantSyncFilter.h), and intercept-stats names the function whose
    // events it dropped.
    FakeTorchLockedFn Locked = loadFakeTorchLocked();
    if (!Locked)
      return 2;
    pthread_mutex_t Queue = PTHREAD_MUTEX_INITIALIZER;
    for (int Push = 0; Push < 100; ++Push)
      Locked("push", &Queue, [](void *) {}, nullptr);
  } else if (Scenario == "torch-fw-grad" || Scenario == "torch-ready-queue") {
    // A mutex locked inside a function of a library named libtorch_cpu.so
    // (FakeTorchCpu.cpp), as worker-mutex-ordered below locks its own: the
    // main thread allocates on ag under it, then a worker that read the
    // block on compute releases the block under it. The lock alone orders
    // the allocation before the release. Locked by ReadyQueue::push (a
    // hand-over of autograd's work) it is the program's synchronization:
    // clean. Locked by AutogradMeta::fw_grad, whose lock guards its
    // object's own state (PrivateLockFunctions.h), it orders nothing, and the
    // allocation is a reuse opportunity: reported.
    FakeTorchLockedFn Locked = loadFakeTorchLocked();
    if (!Locked)
      return 2;
    const char *Function = Scenario == "torch-fw-grad" ? "fw_grad" : "push";
    struct Work {
      StreamPool *Pool;
      CUdeviceptr Block;
    } Shared{&Pool, Pool.allocateLocked(Ag)};
    launch(Shared.Block, Ag, "touch");
    order(Compute, Ag);
    pthread_mutex_t Handoff = PTHREAD_MUTEX_INITIALIZER;
    std::atomic<int> Step{0};
    auto AwaitStep = [&Step](int N) {
      while (Step.load() < N) {
      }
    };
    std::thread Worker([&] {
      launch(Shared.Block, Compute, "touch");
      Step.store(1); // read enqueued
      AwaitStep(2);
      Locked(Function, &Handoff, [](void *W) {
        static_cast<Work *>(W)->Pool->releaseLocked(static_cast<Work *>(W)->Block);
      }, &Shared);
    });
    AwaitStep(1);
    Locked(Function, &Handoff, [](void *W) { static_cast<Work *>(W)->Pool->allocateLocked(Ag); }, &Shared);
    Step.store(2); // after the unlock: the worker's lock follows it
    Worker.join();
  } else if (Scenario.rfind("worker-", 0) == 0) {
    // A worker thread reads the main thread's block on its own stream and
    // drops it; the main thread allocates on the block's stream meanwhile.
    // Which call reaches the pool first is forced with a flag that orders
    // nothing the validator sees (an atomic, like a scheduler's whim):
    //   worker-{alloc,release}-first           the bug: reported in both orders;
    //   worker-waited-{alloc,release}-first    the worker makes ag wait on its
    //                                          read before the release: clean;
    //   worker-mutex-ordered                   the main thread allocates, then
    //                                          unlocks a mutex the worker locks
    //                                          before its release: the allocation
    //                                          happens before the release, clean;
    //   worker-mutex-unordered                 the same mutex, but the allocation
    //                                          comes after the unlock: reported;
    //   worker-sync-passed                     the main thread synchronizes the
    //                                          worker's stream and passes that on
    //                                          through the mutex: the worker's
    //                                          release and its own next allocation
    //                                          on ag are clean.
    bool AllocFirst = Scenario.find("alloc-first") != std::string::npos;
    bool Waited = Scenario.find("waited") != std::string::npos;
    bool MutexOrdered = Scenario == "worker-mutex-ordered";
    bool MutexUnordered = Scenario == "worker-mutex-unordered";
    bool SyncPassed = Scenario == "worker-sync-passed";
    bool UsesMutex = MutexOrdered || MutexUnordered || SyncPassed;
    pthread_mutex_t Handoff = PTHREAD_MUTEX_INITIALIZER;
    std::atomic<int> Step{0};
    auto AwaitStep = [&Step](int N) {
      while (Step.load() < N) {
      }
    };
    CUdeviceptr W = Pool.allocateLocked(Ag);
    launch(W, Ag, "touch");
    order(Compute, Ag);
    if (UsesMutex)
      pthread_mutex_lock(&Handoff);
    std::thread Worker([&] {
      launch(W, Compute, "touch");
      if (Waited)
        order(Ag, Compute);
      Step.store(1); // read enqueued
      if (UsesMutex) {
        pthread_mutex_lock(&Handoff);
        Pool.releaseLocked(W);
        if (SyncPassed)
          Pool.allocateLocked(Ag);
        pthread_mutex_unlock(&Handoff);
        return;
      }
      if (AllocFirst)
        AwaitStep(2);
      Pool.releaseLocked(W);
      Step.store(3);
    });
    AwaitStep(1);
    if (UsesMutex) {
      if (SyncPassed)
        syncStream(Compute);
      if (MutexOrdered)
        Pool.allocateLocked(Ag);
      pthread_mutex_unlock(&Handoff);
      if (MutexUnordered)
        Pool.allocateLocked(Ag);
    } else {
      if (!AllocFirst)
        AwaitStep(3);
      Pool.allocateLocked(Ag);
      Step.store(2);
    }
    Worker.join();
  } else {
    std::fprintf(stderr, "annotated_pool_program: unknown scenario '%s'\n", Scenario.c_str());
    return 2;
  }
  std::puts("ran");
  return 0;
}
