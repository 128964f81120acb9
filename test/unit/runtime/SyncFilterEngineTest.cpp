//===- SyncFilterEngineTest.cpp - the filter keeps the real engine's clocks ===//
//
// RedundantSyncFilter.h drops a thread's lock event when the engine would
// ignore it, which rests on knowing, when the event is queued, whether the
// thread's clock may have changed since its last release of the object: a
// CUDA call whose engine work moved the thread's own time, an acquire, an
// allocation after a release (its stamp ticks), a thread's first CUDA use.
// This test plays random programs of several host threads through two real
// engines, each fed through the real AnnotatedAllocators queue and replayed
// before each CUDA call as the runtime does (InterceptScope): one gets every
// event, the other only those the filter keeps, with each thread's filter
// told what InterceptContext tells it (the kind of each queued event, the
// engine's published state before and after each CUDA call). After every
// step every thread's clock and flags, every stream's, lock's and recorded
// event's clock, the statistics and every finding must be the same.
//
// The threads are played one at a time on one OS thread (a deterministic
// interleaving), each with its own ThreadFilter. The programs: lock
// acquires, releases and destructions; thread starts (the parent's release
// of a start token, the child's acquire), ends and joins; caching
// allocations, release requests, releases (also of another thread's
// blocks) and declared accesses, queued; launches, records, waits, event,
// stream and device syncs, stream-ordered allocations and frees, synchronous
// frees and calls that touch nothing, as CUDA calls. With Shape::Defer, a
// launch, record, wait or stream-ordered allocation or free that finds events
// queued goes behind them on both sides, as the runtime's defer_cuda_ops does (InterceptContext::deferring),
// and the filter is told so (a queued access; no engine flags read back).
//
//===----------------------------------------------------------------------===//
#include "allocators/AnnotatedAllocators.h"
#include "engine/EngineImpl.h"
#include "intercept/RedundantSyncFilter.h"

#include "../engine/EngineDigest.h"
#include "../engine/EngineTestSupport.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;
using streamlife::rt::test::describe;
namespace filter = streamlife::rt::redundant_sync;

namespace {

bool sameClock(const VectorClock &A, const VectorClock &B) {
  return A.dominates(B) && B.dominates(A);
}

constexpr int Caching = 1; // the first allocator registered
constexpr unsigned StreamCount = 5;
constexpr Handle StreamHandles[StreamCount] = {0, 0x5100, 0x5200, 0x5300, 0x5400};

/// One engine with the runtime's queue in front of it.
struct Side {
  Side()
      : E(Sink), Annotated(E, [](OpId Op) { return std::uint64_t(Op); }),
        StreamOrdered(E, AllocKind::StreamOrdered, ReleaseKind::StreamOrdered) {
    Annotated.setStreamOrderedPool(&StreamOrdered);
    EXPECT_EQ(Annotated.registerAllocator("caching", 1), Caching);
    for (unsigned I = 0; I < StreamCount; ++I) {
      StreamDesc D;
      D.StreamHandle = StreamHandles[I];
      D.Flavor = I == 0 ? StreamFlavor::LegacyDefault
                 : I == 3 ? StreamFlavor::Blocking
                          : StreamFlavor::NonBlocking;
      Ids[StreamHandles[I]] = E.stream(0, D);
    }
  }
  void replay() {
    Annotated.drain([this](ThreadId, Handle H) {
      auto It = Ids.find(H);
      return It == Ids.end() ? NoStream : It->second;
    });
  }
  CollectingSink Sink;
  Engine E;
  AnnotatedAllocators Annotated;
  /// The driver's stream-ordered pool, as the runtime's StreamOrderedPool.
  EngineBlockEvents StreamOrdered;
  std::map<Handle, StreamId> Ids;
};

struct Shape {
  unsigned Threads; ///< started over the run (thread 1 runs from the start)
  unsigned Locks;
  unsigned Blocks;
  unsigned Steps;
  /// How the locks' events are filtered (Exclusive: as pthread mutexes).
  filter::LockKind Kind = filter::LockKind::Shared;
  /// Locks taken and let go as mutexes (a thread releases only a lock it
  /// holds, one in 16 of them unreported, as an ignored caller's would be),
  /// rather than acquired and released at random.
  bool MutexShaped = false;
  /// All locks in one of the filter's buckets (they share counts and records).
  bool OneBucket = false;
  /// Launches, records and waits deferred behind queued events while fewer
  /// than this many wait (0: never; the runtime's replay_batch).
  std::size_t Defer = 0;
  /// FSDP2's autograd pattern instead of random steps: thread 1 locks each
  /// lock in turn ("forward"), hands over to thread 2 through a queue lock,
  /// which locks them again ("backward") and hands back through another.
  bool Fsdp = false;
};

struct Counts {
  std::uint64_t LockEvents = 0, Dropped = 0, Findings = 0, CudaCalls = 0;
  /// Launches, records and waits deferred behind queued events (Shape::Defer).
  std::uint64_t Deferred = 0;
  /// Fsdp: the tensors' acquires queued after the first step.
  std::uint64_t LaterLockAcquiresKept = 0;
};

class Program {
public:
  Program(const Shape &Sh, unsigned Seed)
      : Sh(Sh), Rng(Seed), Seed(Seed), Filters(Sh.Threads + 1), Alive(Sh.Threads + 1, false),
        Block(Sh.Blocks) {
    Alive[1] = true;
    Started = 1;
    // Locks apart from other tests' and other seeds' (the filter's release
    // counters are global).
    LockBase = 0x10000000ull + 0x100000ull * Seed;
    const unsigned Bucket = filter::detail::bucket(LockBase);
    for (SyncId Id = LockBase; LockIds.size() < Sh.Locks + 2; Id += Sh.OneBucket ? 8 : 64)
      if (!Sh.OneBucket || filter::detail::bucket(Id) == Bucket)
        LockIds.push_back(Id);
    Owners.assign(Sh.Locks, 0);
    if (Sh.Fsdp) {
      Started = 2;
      Alive[2] = true;
      queueHost(1, BlockEvent::Kind::HostReleased, token(2));
      queueHost(2, BlockEvent::Kind::HostAcquired, token(2));
      queueHost(2, BlockEvent::Kind::SyncDestroyed, token(2));
    }
  }

  void run(Counts &C) {
    for (unsigned Step = 0; Step < Sh.Steps && !::testing::Test::HasFailure(); ++Step) {
      if (Sh.Fsdp)
        playFsdpStep(Step);
      else
        playOne();
      compare(Step);
    }
    Full.replay();
    Filtered.replay();
    compare(Sh.Steps);
    C.LockEvents += LockEvents;
    C.Dropped += Dropped;
    C.Findings += Full.Sink.Findings.size();
    C.CudaCalls += CudaCalls;
    C.Deferred += Deferred;
    C.LaterLockAcquiresKept += LaterLockAcquiresKept;
  }

private:
  struct BlockState {
    bool Live = false;
    Handle Stream = 0;
    bool Ordered = false; ///< a stream-ordered block (cuMemAllocAsync)
  };

  SyncId lock(unsigned L) const { return LockIds[L]; }
  SyncId token(unsigned N) const { return LockBase + 0x80000 + 64 * N; }
  Range range(unsigned B) const { return Range{0x7000000 + 0x10000 * Addr(B), 0x1000}; }

  /// An event T queues: Full gets it; Filtered only if the filter keeps it.
  /// Returns whether it was kept.
  bool queueHost(ThreadId T, BlockEvent::Kind What, SyncId Sync,
                 filter::LockKind Kind = filter::LockKind::Shared) {
    BlockEvent E;
    E.What = What;
    E.Thread = T;
    E.Ptr = Sync;
    Full.Annotated.push(E);
    filter::ThreadFilter &F = Filters[T];
    switch (What) {
    case BlockEvent::Kind::HostReleased:
      ++LockEvents;
      if (F.releaseIsRedundant(Sync)) {
        ++Dropped;
        return false;
      }
      Filtered.Annotated.push(E);
      F.queued(filter::Queued::Release);
      F.releaseQueued(Sync, Kind);
      return true;
    case BlockEvent::Kind::HostAcquired: {
      ++LockEvents;
      filter::AcquireCheck Check = F.checkAcquire(Sync, Kind);
      if (Check.redundant()) {
        ++Dropped;
        return false;
      }
      Filtered.Annotated.push(E);
      F.queued(filter::Queued::Acquire);
      F.acquireQueued(Sync, Check);
      return true;
    }
    case BlockEvent::Kind::SyncDestroyed:
      Filtered.Annotated.push(E);
      F.queued(filter::Queued::Destruction);
      F.destroyQueued(Sync);
      return true;
    default: // HostFinished
      Filtered.Annotated.push(E);
      F.queued(filter::Queued::ThreadEnd);
      return true;
    }
  }

  /// A caching allocator's event T queues (both sides get it).
  void queueBlock(ThreadId T, BlockEvent::Kind What, unsigned B, Handle Stream) {
    BlockEvent E;
    E.What = What;
    E.Allocator = What == BlockEvent::Kind::Accessed ? 0 : Caching;
    E.Thread = T;
    E.Ptr = range(B).Begin + (What == BlockEvent::Kind::Accessed ? 0x100 : 0);
    E.Size = What == BlockEvent::Kind::Allocated ? range(B).Size
             : What == BlockEvent::Kind::Accessed ? 0x100
                                                  : 0;
    E.Stream = Stream;
    E.Site = 500 + static_cast<OpId>(What);
    Full.Annotated.push(E);
    Filtered.Annotated.push(E);
    Filters[T].queued(What == BlockEvent::Kind::Allocated          ? filter::Queued::Allocation
                      : What == BlockEvent::Kind::ReleaseRequested ? filter::Queued::ReleaseRequest
                      : What == BlockEvent::Kind::Released         ? filter::Queued::BlockRelease
                                                                   : filter::Queued::Access);
  }

  /// A CUDA call of T: the queue replayed first, then Verb, on both sides;
  /// the filter sees T's published state around it, as InterceptScope does.
  template <typename Fn> void cudaCall(ThreadId T, Fn &&Verb) {
    ++CudaCalls;
    Full.replay();
    Verb(Full);
    filter::ThreadFilter &F = Filters[T];
    filter::ThreadFilter::CallMark Mark =
        F.cudaCallEntered(Engine::hostWord(Filtered.E.hostState(T)));
    Filtered.replay();
    Verb(Filtered);
    F.cudaCallLeft(Mark, Engine::hostWord(Filtered.E.hostState(T)));
  }

  /// A launch, record or wait of T: deferred behind the queued events on
  /// both sides (Push queues it on a side) when Sh.Defer allows, as the
  /// runtime's InterceptScope::runCommonCase does; otherwise a CUDA call
  /// applying Verb. The decision reads the full side's queue, which holds
  /// every event the filtered one holds.
  template <typename PushFn, typename VerbFn>
  void streamOp(ThreadId T, PushFn &&Push, VerbFn &&Verb, bool Queues = true,
                filter::Queued As = filter::Queued::Access) {
    if (!Sh.Defer || !Full.Annotated.hasPending() || Full.Annotated.unapplied() >= Sh.Defer)
      return cudaCall(T, Verb);
    ++CudaCalls;
    ++Deferred;
    Push(Full);
    filter::ThreadFilter &F = Filters[T];
    filter::ThreadFilter::CallMark Mark = F.cudaCallEntered(Engine::hostWord(Filtered.E.hostState(T)));
    Push(Filtered);
    if (Queues)
      F.queued(As);
    F.cudaCallLeftUnsettled(Mark, Engine::hostWord(Filtered.E.hostState(T)));
  }

  void playOne() {
    std::vector<ThreadId> Running;
    for (ThreadId T = 1; T < Alive.size(); ++T)
      if (Alive[T])
        Running.push_back(T);
    const ThreadId T = Running[Rng() % Running.size()];
    const unsigned LockIndex = Rng() % Sh.Locks;
    const SyncId L = lock(LockIndex);
    const Handle S = StreamHandles[Rng() % StreamCount];
    const unsigned B = Rng() % Sh.Blocks;
    const Handle Ev = 0xe000 + Rng() % 4;
    const unsigned Pick = Rng() % 1000;
    if (Pick < 420 && Sh.MutexShaped) {
      // Locked when free, unlocked by its owner; a lock held by another
      // thread blocks (nothing happens).
      ThreadId &Owner = Owners[LockIndex];
      const bool Reported = Rng() % 16 != 0;
      if (Owner == 0) {
        Owner = T;
        if (Reported)
          queueHost(T, BlockEvent::Kind::HostAcquired, L, Sh.Kind);
      } else if (Owner == T) {
        Owner = 0;
        if (Reported)
          queueHost(T, BlockEvent::Kind::HostReleased, L, Sh.Kind);
      }
    } else if (Pick < 220) {
      queueHost(T, BlockEvent::Kind::HostReleased, L, Sh.Kind);
    } else if (Pick < 420) {
      queueHost(T, BlockEvent::Kind::HostAcquired, L, Sh.Kind);
    } else if (Pick < 430) {
      if (Owners[LockIndex] == 0) // a held mutex is not destroyed
        queueHost(T, BlockEvent::Kind::SyncDestroyed, L);
    } else if (Pick < 550) {
      BlockState &Bl = Block[B];
      if (!Bl.Live) {
        Bl = BlockState{true, StreamHandles[Rng() % 3], false};
        queueBlock(T, BlockEvent::Kind::Allocated, B, Bl.Stream);
      } else if (!Bl.Ordered) {
        Bl.Live = false;
        queueBlock(T, BlockEvent::Kind::ReleaseRequested, B, Bl.Stream);
        queueBlock(T, BlockEvent::Kind::Released, B, Bl.Stream);
      }
    } else if (Pick < 580) {
      queueBlock(T, BlockEvent::Kind::Accessed, B, S);
    } else if (Pick < 720) {
      const Range Touched = range(B);
      streamOp(
          T, [&](Side &Sd) { Sd.Annotated.pushTouched(T, Sd.Ids[S], &Touched, 1, 100); },
          [&](Side &Sd) { Sd.E.launched(T, Sd.Ids[S], {Touched}, 100); });
    } else if (Pick < 760) {
      streamOp(
          T, [&](Side &Sd) { Sd.Annotated.pushEventRecorded(T, Ev, Sd.Ids[S]); },
          [&](Side &Sd) { Sd.E.eventRecorded(T, Ev, Sd.Ids[S]); });
    } else if (Pick < 800) {
      streamOp(
          T, [&](Side &Sd) { Sd.Annotated.pushStreamWaited(T, Sd.Ids[S], Ev); },
          [&](Side &Sd) { Sd.E.streamWaitsEvent(T, Sd.Ids[S], Ev); });
    } else if (Pick < 825) {
      cudaCall(T, [&](Side &Sd) { Sd.E.hostSyncsEvent(T, Ev); });
    } else if (Pick < 845) {
      cudaCall(T, [&](Side &Sd) { Sd.E.hostSyncsStream(T, Sd.Ids[S]); });
    } else if (Pick < 850) {
      cudaCall(T, [&](Side &Sd) { Sd.E.hostSyncsDevice(T, 0); });
    } else if (Pick < 880) {
      // cuMemAllocAsync / cuMemFreeAsync, or cudaMalloc / cudaFree.
      BlockState &Bl = Block[B];
      const bool Sync = Rng() % 4 == 0;
      if (!Bl.Live) {
        Bl = BlockState{true, S, true};
        auto Allocate = [&](Side &Sd) {
          Sd.E.allocated(T, range(B), Sync ? AllocKind::Device : AllocKind::StreamOrdered,
                         Sync ? NoStream : Sd.Ids[S], 600, 0);
        };
        if (Sync)
          cudaCall(T, Allocate);
        else // cuMemAllocAsync: deferrable, replayed into the pool
          streamOp(
              T, [&](Side &Sd) { Sd.Annotated.pushPoolAllocated(T, range(B).Begin, range(B).Size, Sd.Ids[S], 600, 0); },
              Allocate, true, filter::Queued::Allocation);
      } else if (Bl.Ordered) {
        Bl.Live = false;
        auto Release = [&](Side &Sd) {
          Sd.E.released(T, range(B).Begin, Sync ? ReleaseKind::SyncFree : ReleaseKind::StreamOrdered,
                        Sync ? NoStream : Sd.Ids[S], 601);
        };
        if (Sync)
          cudaCall(T, Release);
        else // cuMemFreeAsync
          streamOp(
              T, [&](Side &Sd) { Sd.Annotated.pushPoolFreed(T, range(B).Begin, Sd.Ids[S], 601); }, Release,
              true, filter::Queued::BlockRelease);
      }
    } else if (Pick < 900 && Sh.Defer) {
      // A deferrable call that reaches no engine (a graph launch, a launch on
      // a capturing stream): with events queued it replays nothing, and the
      // filter must not read back the engine's flags then.
      streamOp(T, [](Side &) {}, [](Side &) {}, /*Queues=*/false);
    } else if (Pick < 920) {
      cudaCall(T, [](Side &) {}); // cudaGetDevice: nothing for the engine
    } else if (Pick < 940 && Started + 1 < Alive.size()) {
      // T starts a thread: its start token, released by T, acquired by it.
      const ThreadId Child = ++Started;
      queueHost(T, BlockEvent::Kind::HostReleased, token(Child));
      Alive[Child] = true;
      queueHost(Child, BlockEvent::Kind::HostAcquired, token(Child));
      queueHost(Child, BlockEvent::Kind::SyncDestroyed, token(Child));
    } else if (Pick < 950 && T != 1) {
      // T ends; thread 1 joins it.
      queueHost(T, BlockEvent::Kind::HostReleased, token(0x1000 + T));
      queueHost(T, BlockEvent::Kind::HostFinished, 0);
      Alive[T] = false;
      queueHost(1, BlockEvent::Kind::HostAcquired, token(0x1000 + T));
      queueHost(1, BlockEvent::Kind::SyncDestroyed, token(0x1000 + T));
    }
  }

  /// One step of FSDP2's pattern: thread 1's forward locks every lock but
  /// the last two (a tensor's AutogradMeta mutex, fw_grad) around a launch,
  /// pushes onto the ready queue (lock Locks), thread 2 pops it and locks
  /// them again in reverse around launches, and completes the graph task
  /// (lock Locks + 1), which thread 1 waits for. From the second step on,
  /// each thread knows the other's clock at its tensor releases through the
  /// handover, so none of the tensors' acquires needs queuing.
  void playFsdpStep(unsigned Step) {
    const SyncId Queue = lock(Sh.Locks), Done = lock(Sh.Locks + 1);
    const filter::LockKind Kind = Sh.Kind;
    auto Locked = [&](ThreadId T, SyncId L, bool Tensor) {
      if (queueHost(T, BlockEvent::Kind::HostAcquired, L, Kind) && Tensor && Step > 0)
        ++LaterLockAcquiresKept;
      queueHost(T, BlockEvent::Kind::HostReleased, L, Kind);
    };
    auto Launch = [&](ThreadId T, unsigned I) {
      const Handle S = StreamHandles[1 + T];
      const Range Touched = range(I % Sh.Blocks);
      streamOp(
          T, [&](Side &Sd) { Sd.Annotated.pushTouched(T, Sd.Ids[S], &Touched, 1, 100); },
          [&](Side &Sd) { Sd.E.launched(T, Sd.Ids[S], {Touched}, 100); });
    };
    for (unsigned I = 0; I < Sh.Locks; ++I) {
      Locked(1, lock(I), true);
      if (I % 3 == 0) {
        Launch(1, I);
        if (!Block[I % Sh.Blocks].Live) {
          Block[I % Sh.Blocks] = BlockState{true, StreamHandles[2], false};
          queueBlock(1, BlockEvent::Kind::Allocated, I % Sh.Blocks, StreamHandles[2]);
        }
      }
    }
    Locked(1, Queue, false);
    queueHost(2, BlockEvent::Kind::HostAcquired, Queue, Kind); // the pop's condition wait
    queueHost(2, BlockEvent::Kind::HostReleased, Queue, Kind);
    for (unsigned I = Sh.Locks; I-- > 0;) {
      Locked(2, lock(I), true);
      if (I % 2 == 0)
        Launch(2, I);
    }
    Locked(2, Done, false);
    Locked(1, Done, false);
    cudaCall(1, [&](Side &Sd) { Sd.E.hostSyncsDevice(1, 0); });
  }

  void compare(unsigned Step) {
    const std::string Where =
        " after step " + std::to_string(Step) + " (seed " + std::to_string(Seed) + ")";
    ASSERT_EQ(Full.Sink.Findings.size(), Filtered.Sink.Findings.size()) << Where;
    for (std::size_t I = Checked; I < Full.Sink.Findings.size(); ++I)
      ASSERT_EQ(describe(Full.Sink.Findings[I]), describe(Filtered.Sink.Findings[I]))
          << "finding " << I << Where;
    Checked = Full.Sink.Findings.size();
    ASSERT_EQ(describe(Full.E.stats()), describe(Filtered.E.stats())) << Where;
    Engine::Impl &A = Full.E.state(), &B = Filtered.E.state();
    for (ThreadId T = 1; T < Alive.size(); ++T) {
      const HostClock *HA = A.Hosts.find(T), *HB = B.Hosts.find(T);
      ASSERT_EQ(HA == nullptr, HB == nullptr) << "thread " << T << Where;
      if (!HA)
        continue;
      ASSERT_TRUE(sameClock(HA->Clock, HB->Clock)) << "thread " << T << Where;
      ASSERT_EQ(HA->ReleasedSinceTick, HB->ReleasedSinceTick) << "thread " << T << Where;
      ASSERT_EQ(HA->UsesCuda, HB->UsesCuda) << "thread " << T << Where;
    }
    for (StreamId S = 0; S < A.Streams.size(); ++S)
      ASSERT_TRUE(sameClock(A.Streams.get(S)->Clock, B.Streams.get(S)->Clock))
          << "stream " << S << Where;
    for (unsigned L = 0; L < Sh.Locks; ++L) {
      const SyncClock *CA = A.Syncs.find(lock(L)), *CB = B.Syncs.find(lock(L));
      ASSERT_EQ(CA == nullptr, CB == nullptr) << "lock " << L << Where;
      if (CA)
        ASSERT_TRUE(sameClock(CA->Clock, CB->Clock)) << "lock " << L << Where;
    }
    for (Handle Ev = 0xe000; Ev < 0xe004; ++Ev) {
      const RecordedEvent *EA = A.Events.find(Ev), *EB = B.Events.find(Ev);
      ASSERT_EQ(EA == nullptr, EB == nullptr) << "event " << Ev << Where;
      if (EA)
        ASSERT_TRUE(sameClock(EA->Snapshot, EB->Snapshot)) << "event " << Ev << Where;
    }
  }

  Shape Sh;
  std::mt19937 Rng;
  unsigned Seed;
  Side Full, Filtered;
  std::vector<filter::ThreadFilter> Filters; ///< by thread
  std::vector<bool> Alive;                   ///< by thread
  std::vector<BlockState> Block;
  ThreadId Started = 0;
  SyncId LockBase = 0;
  std::vector<SyncId> LockIds;  ///< by lock (two more for Fsdp's handovers)
  std::vector<ThreadId> Owners; ///< by lock, when MutexShaped (0: free)
  std::uint64_t LaterLockAcquiresKept = 0;
  std::size_t Checked = 0;
  std::uint64_t LockEvents = 0, Dropped = 0, CudaCalls = 0, Deferred = 0;
};

Counts playMany(const Shape &Sh, unsigned FirstSeed, unsigned Seeds) {
  Counts C;
  for (unsigned Seed = FirstSeed; Seed < FirstSeed + Seeds && !::testing::Test::HasFailure(); ++Seed)
    Program(Sh, Seed).run(C);
  std::printf("%llu lock events, %llu dropped; %llu CUDA calls, %llu findings compared\n",
              (unsigned long long)C.LockEvents, (unsigned long long)C.Dropped,
              (unsigned long long)C.CudaCalls, (unsigned long long)C.Findings);
  return C;
}

TEST(SyncFilterEngineTest, RandomProgramsKeepEveryClockAndFinding) {
  Counts C = playMany(Shape{/*Threads=*/4, /*Locks=*/3, /*Blocks=*/8, /*Steps=*/800}, 1, 30);
  // It must have dropped, and compared verdicts, to mean anything.
  EXPECT_GT(C.Dropped * 4, C.LockEvents) << "the filter dropped less than a quarter";
  EXPECT_GT(C.Findings, 0u);
}

TEST(SyncFilterEngineTest, ManyThreadsOneLock) {
  Counts C = playMany(Shape{/*Threads=*/7, /*Locks=*/1, /*Blocks=*/6, /*Steps=*/1200}, 100, 10);
  EXPECT_GT(C.Dropped * 5, C.LockEvents);
}

// Exclusive locks (RedundantSyncFilter.h's last-releaser rule): random
// acquires and releases, in the deterministic interleaving, are ordered as a
// pthread mutex's are, so the rule must hold for them too.
TEST(SyncFilterEngineTest, RandomProgramsWithExclusiveLocks) {
  Shape Sh{/*Threads=*/4, /*Locks=*/3, /*Blocks=*/8, /*Steps=*/800};
  Sh.Kind = filter::LockKind::Exclusive;
  Counts C = playMany(Sh, 200, 30);
  EXPECT_GT(C.Dropped * 4, C.LockEvents);
}

// Mutexes with some events unreported (the acquire of a release the filter
// sees, or the release after an acquire it saw), destroyed when free,
// threads started and ended: the record of a release whose acquire was not
// seen must not be taken for the object's whole clock.
TEST(SyncFilterEngineTest, MutexesWithUnreportedEvents) {
  Shape Sh{/*Threads=*/6, /*Locks=*/4, /*Blocks=*/6, /*Steps=*/1200};
  Sh.Kind = filter::LockKind::Exclusive;
  Sh.MutexShaped = true;
  Counts C = playMany(Sh, 300, 30);
  EXPECT_GT(C.Dropped * 10, C.LockEvents);
}

// The same with every lock in one bucket: each release's record replaces
// the other locks', and only the object named in it may use it.
TEST(SyncFilterEngineTest, MutexesSharingABucket) {
  Shape Sh{/*Threads=*/4, /*Locks=*/3, /*Blocks=*/6, /*Steps=*/1200};
  Sh.Kind = filter::LockKind::Exclusive;
  Sh.MutexShaped = true;
  Sh.OneBucket = true;
  Counts C = playMany(Sh, 400, 20);
  EXPECT_GT(C.Dropped * 10, C.LockEvents);
}

TEST(SyncFilterEngineTest, FsdpHandoverDropsEveryLaterTensorAcquire) {
  Shape Sh{/*Threads=*/2, /*Locks=*/40, /*Blocks=*/8, /*Steps=*/6};
  Sh.Kind = filter::LockKind::Exclusive;
  Sh.Fsdp = true;
  Counts C = playMany(Sh, 500, 3);
  EXPECT_EQ(C.LaterLockAcquiresKept, 0u);
  // As shared locks, each thread's acquires learn the other's releases.
  Sh.Kind = filter::LockKind::Shared;
  Counts Shared = playMany(Sh, 510, 3);
  EXPECT_EQ(Shared.LaterLockAcquiresKept, 3u * 5 * 2 * 40);
}

// Launches, records and waits deferred behind the queued events, as the
// runtime's defer_cuda_ops does: the filter, told of them as queued accesses
// and reading back no engine flags after such a call, still drops only what
// changes nothing, and the engine meets every event in the same order.
TEST(SyncFilterEngineTest, DeferredLaunchesRecordsAndWaits) {
  for (filter::LockKind Kind : {filter::LockKind::Shared, filter::LockKind::Exclusive}) {
    Shape Sh{/*Threads=*/4, /*Locks=*/3, /*Blocks=*/8, /*Steps=*/800};
    Sh.Kind = Kind;
    Sh.Defer = 16;
    Counts C = playMany(Sh, 600, 30);
    EXPECT_GT(C.Deferred * 4, C.CudaCalls) << "deferred less than a quarter of the calls";
    EXPECT_GT(C.Dropped * 5, C.LockEvents);
    EXPECT_GT(C.Findings, 0u);
  }
  Shape Fsdp{/*Threads=*/2, /*Locks=*/40, /*Blocks=*/8, /*Steps=*/6};
  Fsdp.Kind = filter::LockKind::Exclusive;
  Fsdp.Fsdp = true;
  Fsdp.Defer = 256;
  Counts C = playMany(Fsdp, 700, 3);
  EXPECT_GT(C.Deferred, 0u);
  EXPECT_EQ(C.LaterLockAcquiresKept, 0u);
}

} // namespace
