//===- RedundantSyncFilterTest.cpp - dropping sync events keeps the clocks --===//
//
// The filter is right when the engine's clocks are the same with and without
// it. Each test plays host threads (real threads: the filter's state is
// thread-local) through a model of the engine's host synchronization
// (Engine::hostReleases / hostAcquires / syncDestroyed, a queued caching
// allocation's stamp, a CUDA call that stamps and one that changes nothing),
// once with every event and once with the events the filter lets through,
// and compares every thread's and every object's clock after each step.
// SyncFilterEngineTest (engine tests) does the same with the real engine.
//
//===----------------------------------------------------------------------===//
#include "engine/VectorClock.h"
#include "intercept/RedundantSyncFilter.h"
#include "intercept/ThreadState.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using namespace streamlife::rt;
namespace filter = streamlife::rt::redundant_sync;

namespace {

/// The engine's host-synchronization model, as Engine.cpp applies it.
struct EngineModel {
  struct Host {
    ClockSlot Slot;
    VectorClock Clock;
    bool ReleasedSinceTick = false;
    Epoch now() const { return Epoch{Slot, Clock.get(Slot)}; }
  };
  std::vector<Host> Hosts;
  std::map<std::uint64_t, VectorClock> Syncs;

  explicit EngineModel(unsigned Threads) {
    for (unsigned T = 0; T < Threads; ++T) {
      Hosts.push_back(Host{T, {}});
      Hosts.back().Clock.tick(T);
    }
  }
  void release(unsigned T, std::uint64_t S) {
    Host &H = Hosts[T];
    VectorClock &C = Syncs[S];
    if (!C.covers(H.now()))
      C.join(H.Clock);
    H.ReleasedSinceTick = true;
  }
  void acquire(unsigned T, std::uint64_t S) {
    auto It = Syncs.find(S);
    if (It == Syncs.end())
      return;
    Host &H = Hosts[T];
    if (H.Clock.absorb(It->second)) {
      H.Clock.tick(H.Slot);
      H.ReleasedSinceTick = false;
    }
  }
  Engine::HostState state(unsigned T) const {
    Engine::HostState S;
    S.Time = Hosts[T].Clock.get(Hosts[T].Slot);
    S.ReleasedSinceTick = Hosts[T].ReleasedSinceTick;
    S.UsesCuda = true;
    return S;
  }
  /// A stamped operation (a caching allocation, a CUDA call that stamps).
  void cudaCall(unsigned T) {
    Host &H = Hosts[T];
    if (H.ReleasedSinceTick) {
      H.Clock.tick(H.Slot);
      H.ReleasedSinceTick = false;
    }
  }
  void destroy(std::uint64_t S) { Syncs.erase(S); }
};

bool sameClock(const VectorClock &A, const VectorClock &B) {
  return A.dominates(B) && B.dominates(A);
}

/// Runs closures on one long-lived thread, one at a time, synchronously.
class Worker {
public:
  Worker() : Thread([this] { loop(); }) {}
  ~Worker() {
    run(nullptr);
    Thread.join();
  }
  void run(std::function<void()> Job) {
    std::unique_lock<std::mutex> Lock(Mu);
    Pending = std::move(Job);
    HasJob = true;
    Cv.notify_all();
    Cv.wait(Lock, [&] { return !HasJob; });
  }

private:
  void loop() {
    for (;;) {
      std::unique_lock<std::mutex> Lock(Mu);
      Cv.wait(Lock, [&] { return HasJob; });
      std::function<void()> Job = std::move(Pending);
      if (Job)
        Job();
      HasJob = false;
      Cv.notify_all();
      if (!Job)
        return;
    }
  }
  std::mutex Mu;
  std::condition_variable Cv;
  std::function<void()> Pending;
  bool HasJob = false;
  std::thread Thread;
};

enum class Op { Release, Acquire, CudaCall, Launch, Allocation, Destroy };

/// Plays Steps random operations of Threads threads on Objects objects,
/// comparing the filtered model with the full one after each. Returns the
/// number of events the filter dropped.
/// Kind: how the objects' events are filtered; OneBucket: the objects share
/// one of the filter's buckets.
std::uint64_t playRandom(unsigned Threads, unsigned Objects, unsigned Steps, unsigned Seed,
                         std::uint64_t Base, filter::LockKind Kind = filter::LockKind::Shared,
                         bool OneBucket = false) {
  // Objects 8 bytes apart, as mutexes in an array; Base keeps tests apart.
  std::vector<std::uint64_t> Ids;
  for (std::uint64_t Id = Base; Ids.size() < Objects; Id += 8)
    if (!OneBucket || filter::detail::bucket(Id) == filter::detail::bucket(Base))
      Ids.push_back(Id);
  EngineModel Full(Threads), Filtered(Threads);
  std::vector<std::unique_ptr<Worker>> Workers;
  for (unsigned T = 0; T < Threads; ++T)
    Workers.push_back(std::make_unique<Worker>());
  std::mt19937 Rng(Seed);
  std::uint64_t Dropped = 0;
  for (unsigned Step = 0; Step < Steps; ++Step) {
    unsigned T = Rng() % Threads;
    std::uint64_t S = Ids[Rng() % Objects];
    unsigned Pick = Rng() % 100;
    Op What = Pick < 40   ? Op::Release
              : Pick < 75 ? Op::Acquire
              : Pick < 82 ? Op::CudaCall
              : Pick < 90 ? Op::Launch
              : Pick < 97 ? Op::Allocation
                          : Op::Destroy;
    Workers[T]->run([&] {
      filter::ThreadFilter &F = filter::thisThread();
      switch (What) {
      case Op::Release:
        Full.release(T, S);
        if (F.releaseIsRedundant(S)) {
          ++Dropped;
          return;
        }
        Filtered.release(T, S);
        F.queued(filter::Queued::Release);
        F.releaseQueued(S, Kind);
        return;
      case Op::Acquire: {
        Full.acquire(T, S);
        filter::AcquireCheck Check = F.checkAcquire(S, Kind);
        if (Check.redundant()) {
          ++Dropped;
          return;
        }
        Filtered.acquire(T, S);
        F.queued(filter::Queued::Acquire);
        F.acquireQueued(S, Check);
        return;
      }
      case Op::CudaCall:
      case Op::Launch: {
        filter::ThreadFilter::CallMark Mark =
            F.cudaCallEntered(Engine::hostWord(Filtered.state(T)));
        if (What == Op::CudaCall) {
          Full.cudaCall(T);
          Filtered.cudaCall(T);
        }
        F.cudaCallLeft(Mark, Engine::hostWord(Filtered.state(T)));
        return;
      }
      case Op::Allocation:
        F.queued(filter::Queued::Allocation);
        Full.cudaCall(T);
        Filtered.cudaCall(T);
        return;
      case Op::Destroy:
        Full.destroy(S);
        Filtered.destroy(S);
        F.queued(filter::Queued::Destruction);
        F.destroyQueued(S);
        return;
      }
    });
    for (unsigned H = 0; H < Threads; ++H) {
      EXPECT_TRUE(sameClock(Full.Hosts[H].Clock, Filtered.Hosts[H].Clock))
          << "thread " << H << " differs after step " << Step << " (seed " << Seed << ")";
      EXPECT_EQ(Full.Hosts[H].ReleasedSinceTick, Filtered.Hosts[H].ReleasedSinceTick)
          << "thread " << H << " after step " << Step;
    }
    EXPECT_EQ(Full.Syncs.size(), Filtered.Syncs.size()) << "after step " << Step;
    for (const auto &[Id, Clock] : Full.Syncs) {
      auto It = Filtered.Syncs.find(Id);
      if (It == Filtered.Syncs.end()) {
        ADD_FAILURE() << "object missing after step " << Step;
        continue;
      }
      EXPECT_TRUE(sameClock(Clock, It->second)) << "object clock differs after step " << Step;
    }
    if (::testing::Test::HasFailure())
      break;
  }
  return Dropped;
}

TEST(RedundantSyncFilter, ClocksAreTheSameWithAndWithoutItOnRandomSequences) {
  std::uint64_t Dropped = 0;
  for (unsigned Seed = 1; Seed <= 40 && !::testing::Test::HasFailure(); ++Seed)
    Dropped += playRandom(/*Threads=*/3, /*Objects=*/3, /*Steps=*/400, Seed, 0x10000 * Seed);
  // The property holds trivially if nothing is dropped: demand that it was exercised.
  EXPECT_GT(Dropped, 1000u);
}

// Exclusive objects (the last-releaser rule): one thread at a time, the
// events are ordered as a pthread mutex's are, so it must hold for any
// sequence of them, releases without a seen acquire included.
TEST(RedundantSyncFilter, ExclusiveObjectsOnRandomSequences) {
  std::uint64_t Dropped = 0;
  for (unsigned Seed = 200; Seed < 240 && !::testing::Test::HasFailure(); ++Seed)
    Dropped += playRandom(/*Threads=*/4, /*Objects=*/3, /*Steps=*/400, Seed, 0x2000000 + 0x10000 * Seed,
                          filter::LockKind::Exclusive);
  EXPECT_GT(Dropped, 1000u);
}

// ... sharing a bucket: a record names its object.
TEST(RedundantSyncFilter, ExclusiveObjectsSharingABucket) {
  std::uint64_t Dropped = 0;
  for (unsigned Seed = 300; Seed < 330 && !::testing::Test::HasFailure(); ++Seed)
    Dropped += playRandom(/*Threads=*/4, /*Objects=*/3, /*Steps=*/400, Seed, 0x6000000 + 0x10000 * Seed,
                          filter::LockKind::Exclusive, /*OneBucket=*/true);
  EXPECT_GT(Dropped, 500u);
}

/// One lock event of the calling thread through its filter; returns whether
/// it was kept.
bool lockEvent(bool Release, std::uint64_t M, filter::LockKind Kind = filter::LockKind::Exclusive) {
  filter::ThreadFilter &F = filter::thisThread();
  if (Release) {
    if (F.releaseIsRedundant(M))
      return false;
    F.queued(filter::Queued::Release);
    F.releaseQueued(M, Kind);
    return true;
  }
  filter::AcquireCheck Check = F.checkAcquire(M, Kind);
  if (Check.redundant())
    return false;
  F.queued(filter::Queued::Acquire);
  F.acquireQueued(M, Check);
  return true;
}

// FSDP2's fw_grad: the main thread locks each tensor's mutex in forward,
// hands over to the autograd thread through the ready queue's mutex, which
// locks them again in backward and hands back on completion. Once each knows
// the other's clock at the handover, their tensor acquires are dropped.
TEST(RedundantSyncFilter, FsdpHandoverDropsTheTensorAcquires) {
  Worker Main, Autograd;
  constexpr unsigned Tensors = 50, Steps = 4;
  const std::uint64_t Tensor = 0x8000000, Queue = 0x8100000, Done = 0x8200000;
  unsigned Events = 0, Queued = 0;
  auto Lock = [&](std::uint64_t M, unsigned &AcquiresKept) {
    bool AcquireKept = lockEvent(false, M);
    AcquiresKept += AcquireKept;
    Queued += AcquireKept + lockEvent(true, M);
    Events += 2;
  };
  // intercept_stats' count of the dropped events counts these drops too.
  filter::countDropped(true);
  const std::uint64_t DroppedBefore = filter::dropped();
  std::vector<unsigned> Kept;
  for (unsigned Step = 0; Step < Steps; ++Step) {
    unsigned AcquiresKept = 0, Ignored = 0;
    Main.run([&] {
      for (unsigned I = 0; I < Tensors; ++I)
        Lock(Tensor + 8 * I, AcquiresKept);
      Lock(Queue, Ignored);
    });
    Autograd.run([&] {
      Lock(Queue, Ignored);
      for (unsigned I = Tensors; I-- > 0;)
        Lock(Tensor + 8 * I, AcquiresKept);
      Lock(Done, Ignored);
    });
    Main.run([&] { Lock(Done, Ignored); });
    Kept.push_back(AcquiresKept);
  }
  // Step 0: only main's first acquires (of objects never released: the
  // filter cannot know that); the autograd thread's follow main's releases.
  EXPECT_EQ(Kept, (std::vector<unsigned>{Tensors, 0, 0, 0}));
  EXPECT_EQ(filter::dropped() - DroppedBefore, Events - Queued);
  filter::countDropped(false);
}

// A release whose acquire the filter did not see (an ignored caller's lock)
// joins into the object's clock: the object's clock is no longer its
// releaser's, and knowing that releaser is not enough.
TEST(RedundantSyncFilter, AReleaseWithoutASeenAcquireIsNoChain) {
  Worker A, B, C;
  const std::uint64_t M = 0x8400000, Handover = 0x8500000;
  bool Kept = false;
  A.run([&] {
    lockEvent(false, M);
    lockEvent(true, M); // M's clock: A's
  });
  B.run([&] {
    filter::thisThread().clockMayChange(); // B's clock is its own
    lockEvent(true, M);                    // unlock after an unseen lock: A's joined with B's
    lockEvent(false, Handover);
    lockEvent(true, Handover); // C will know B's clock now
  });
  C.run([&] {
    lockEvent(false, Handover);
    Kept = lockEvent(false, M); // C knows B's clock, not A's
  });
  EXPECT_TRUE(Kept);
}

TEST(RedundantSyncFilter, OnlyAnAllocationAfterAReleaseOrTheFirstCudaUseCounts) {
  Worker W;
  const std::uint64_t M = 0x7200008;
  std::vector<bool> Kept;
  W.run([&] {
    filter::ThreadFilter &F = filter::thisThread();
    auto Release = [&] {
      bool Redundant = F.releaseIsRedundant(M);
      if (!Redundant) {
        F.queued(filter::Queued::Release);
        F.releaseQueued(M);
      }
      Kept.push_back(!Redundant);
    };
    Engine::HostState Counted;
    Counted.Time = 3;
    Counted.UsesCuda = true;
    F.cudaCallLeft(F.cudaCallEntered(Engine::hostWord(Counted)),
                   Engine::hostWord(Counted)); // a CUDA thread, nothing released
    F.queued(filter::Queued::Allocation);                // no stamp to tick
    Release();                                           // kept: the first
    F.queued(filter::Queued::ReleaseRequest);
    F.queued(filter::Queued::BlockRelease);
    F.queued(filter::Queued::Access);
    F.queued(filter::Queued::Destruction);
    Release(); // dropped: none of those changes the clock
    F.queued(filter::Queued::Allocation);
    Release(); // kept: the allocation's stamp ticked
    F.queued(filter::Queued::ThreadEnd);
    F.queued(filter::Queued::BlockRelease);
    Release(); // kept: a block event after the thread's end joins again
  });
  EXPECT_EQ(Kept, (std::vector<bool>{true, false, true, true}));
}

TEST(RedundantSyncFilter, ManyThreadsFewObjects) {
  std::uint64_t Dropped = 0;
  for (unsigned Seed = 100; Seed < 110 && !::testing::Test::HasFailure(); ++Seed)
    Dropped += playRandom(/*Threads=*/5, /*Objects=*/2, /*Steps=*/600, Seed, 0x900000 + 0x1000 * Seed);
  EXPECT_GT(Dropped, 100u);
}

TEST(RedundantSyncFilter, OneThreadTakingOneLockAgainQueuesItOnce) {
  Worker W;
  unsigned Queued = 0;
  W.run([&] {
    const std::uint64_t M = 0x7000008;
    filter::ThreadFilter &F = filter::thisThread();
    for (int I = 0; I < 1000; ++I) {
      filter::AcquireCheck Check = F.checkAcquire(M);
      if (!Check.redundant()) {
        ++Queued;
        F.queued(filter::Queued::Acquire);
        F.acquireQueued(M, Check);
      }
      if (!F.releaseIsRedundant(M)) {
        ++Queued;
        F.queued(filter::Queued::Release);
        F.releaseQueued(M);
      }
    }
  });
  EXPECT_EQ(Queued, 2u); // the first lock and the first unlock
}

// The dropped events are counted for intercept_stats only: the count is a
// locked add on a line that every locking thread writes.
TEST(RedundantSyncFilter, DroppedEventsAreCountedOnlyWhenAsked) {
  auto DropsOfARepeatedLockAndUnlock = [](std::uint64_t M) {
    std::uint64_t Before = filter::dropped();
    Worker W;
    W.run([&] {
      filter::ThreadFilter &F = filter::thisThread();
      for (int I = 0; I < 3; ++I) {
        filter::AcquireCheck Check = F.checkAcquire(M);
        if (!Check.redundant()) {
          F.queued(filter::Queued::Acquire);
          F.acquireQueued(M, Check);
        }
        if (!F.releaseIsRedundant(M)) {
          F.queued(filter::Queued::Release);
          F.releaseQueued(M);
        }
      }
    });
    return filter::dropped() - Before;
  };
  filter::countDropped(false);
  EXPECT_EQ(DropsOfARepeatedLockAndUnlock(0x7100008), 0u);
  filter::countDropped(true);
  EXPECT_EQ(DropsOfARepeatedLockAndUnlock(0x7200008), 4u); // all but the first lock and unlock
  filter::countDropped(false);
}

TEST(RedundantSyncFilter, AReleaseAfterACudaCallOrAnotherThreadsReleaseIsKept) {
  Worker A, B;
  const std::uint64_t M = 0x7100008;
  auto Release = [&] {
    filter::ThreadFilter &F = filter::thisThread();
    bool Redundant = F.releaseIsRedundant(M);
    if (!Redundant) {
      F.queued(filter::Queued::Release);
      F.releaseQueued(M);
    }
    return Redundant;
  };
  auto Acquire = [&] {
    filter::ThreadFilter &F = filter::thisThread();
    filter::AcquireCheck Check = F.checkAcquire(M);
    if (!Check.redundant()) {
      F.queued(filter::Queued::Acquire);
      F.acquireQueued(M, Check);
    }
    return Check.redundant();
  };
  /// A CUDA call during which the thread's own time went from From to To.
  auto CudaCall = [](std::uint64_t From, std::uint64_t To) {
    filter::ThreadFilter &F = filter::thisThread();
    Engine::HostState Before, After;
    Before.Time = From;
    After.Time = To;
    Before.UsesCuda = After.UsesCuda = true;
    F.cudaCallLeft(F.cudaCallEntered(Engine::hostWord(Before)), Engine::hostWord(After));
  };
  bool R1 = true, R2 = false, R3 = true, R4 = false, Acq = true;
  A.run([&] {
    R1 = Release();
    R2 = Release();
    CudaCall(5, 5); // a launch: the thread's clock did not move
    R3 = Release();
    CudaCall(5, 6); // a sync: it did
    R4 = Release();
  });
  EXPECT_FALSE(R1);
  EXPECT_TRUE(R2);  // nothing changed since the first
  EXPECT_TRUE(R3);  // nor during the launch
  EXPECT_FALSE(R4); // the sync in between changed the clock
  B.run([&] { Release(); });
  A.run([&] { Acq = Acquire(); });
  EXPECT_FALSE(Acq); // B's release is news to A
}

} // namespace
