//===- ChangedSlotJoinsTest.cpp - joins by changed slots keep every verdict ===//
//
// EngineOptions::ChangedSlotJoins makes the joins of a host thread's knowledge
// read only the slots that changed since the two sides were last in step: a
// stream inheriting the enqueuing thread's clock, a caching allocation keeping
// what its thread knew (ConcurrentAllocations.h), a lock's release and acquire
// (SyncClocks.h, with the releasers' epochs deciding an acquire that learns
// nothing), the common knowledge computed slot by slot when asked and kept
// until some clock changes (CommonKnowledge.h). It is right when nothing observable changes. The property test
// plays random programs through the public entry points of two engines, one
// with the option and one without (whole-clock joins everywhere), and after
// every call compares every finding, the statistics, and every clock: each
// host thread's, stream's, lock's, recorded event's and each kept caching
// allocation's knowledge, and (every third call, so that the engine's own
// reads of it keep their spacing) the common knowledge, slot by slot as the
// engine asks it. The programs have more streams than
// LoggedClock::NarrowWidth (so the changed-slot paths run), several threads
// taking a few locks, launches, waits, host syncs, caching and stream-ordered
// allocations and releases, stream destruction (slot reuse) and thread ends.
// Each test also demands that most joins took the changed-slot path, so it
// cannot pass by falling back to whole joins.
//
//===----------------------------------------------------------------------===//
#include "engine/EngineImpl.h"

#include "EngineDigest.h"
#include "EngineTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;
using streamlife::rt::test::describe;

namespace {

bool sameClock(const VectorClock &A, const VectorClock &B) {
  return A.dominates(B) && B.dominates(A);
}

/// One engine under test and what it reported.
struct Subject {
  explicit Subject(bool ChangedSlots) {
    EngineOptions O;
    O.ChangedSlotJoins = ChangedSlots;
    E = std::make_unique<Engine>(Sink, O);
  }
  CollectingSink Sink;
  std::unique_ptr<Engine> E;
  Engine::Impl &state() { return E->state(); }
};

struct Shape {
  unsigned Threads;
  unsigned Streams;
  unsigned Locks;
  unsigned Blocks;
  unsigned Steps;
  /// Streams created before the first step (at least 3); the others appear
  /// one by one during the run, so clocks start narrow and widen.
  unsigned InitialStreams = ~0u;
};

/// What the changed-slot paths did, summed over the runs.
struct PathCounts {
  std::uint64_t StreamJoins = 0, WholeStreamJoins = 0;
  std::uint64_t Recorded = 0, WholeCopies = 0;
  std::uint64_t LockJoins = 0, WholeLockJoins = 0, KnownByEpochs = 0;
  std::uint64_t Commons = 0, WholeCommons = 0;
  std::uint64_t Findings = 0;
};

class Program {
public:
  Program(const Shape &Sh, unsigned Seed) : Sh(Sh), Rng(Seed), Seed(Seed) {}

  void run(PathCounts &Counts) {
    for (unsigned S = 0; S < std::min(Sh.Streams, Sh.InitialStreams); ++S)
      addStream();
    Live.assign(Sh.Blocks, false);
    for (unsigned Step = 0; Step < Sh.Steps && !::testing::Test::HasFailure(); ++Step) {
      playOne();
      compare(Step);
    }
    Engine::Impl &C = Changed.state();
    Counts.StreamJoins += C.Streams.hostJoins();
    Counts.WholeStreamJoins += C.Streams.wholeHostJoins();
    Counts.Recorded += C.Recent.recorded();
    Counts.WholeCopies += C.Recent.wholeCopies();
    Counts.WholeLockJoins += C.Syncs.wholeClockJoins();
    Counts.LockJoins += LockEvents;
    Counts.KnownByEpochs += C.Syncs.acquiresKnownByEpochs();
    Counts.Commons += C.Hosts.common().slotComputations();
    Counts.WholeCommons += C.Hosts.common().wholeComputations();
    Counts.Findings += Changed.Sink.Findings.size();
  }

private:
  struct StreamHandle {
    Handle H;
    StreamFlavor Flavor;
    StreamId Id;
  };

  void addStream() {
    const std::size_t S = Handles.size();
    Handles.push_back(newStream(S == 0 ? StreamFlavor::LegacyDefault
                                : S % 5 == 1 ? StreamFlavor::Blocking
                                             : StreamFlavor::NonBlocking));
  }

  StreamHandle newStream(StreamFlavor Flavor) {
    StreamDesc D;
    D.StreamHandle = Flavor == StreamFlavor::LegacyDefault ? 0 : NextHandle++;
    D.Flavor = Flavor;
    StreamId A = Changed.E->stream(0, D), B = Whole.E->stream(0, D);
    EXPECT_EQ(A, B);
    return StreamHandle{D.StreamHandle, Flavor, A};
  }

  template <typename Fn> void both(Fn &&F) {
    F(*Changed.E);
    F(*Whole.E);
  }

  void playOne() {
    const ThreadId T = 1 + Rng() % Sh.Threads;
    if (Handles.size() < Sh.Streams && Rng() % 40 == 0)
      addStream();
    const unsigned SI = Rng() % Handles.size();
    const StreamId S = Handles[SI].Id;
    const SyncId Lock = 0x7000 + 16 * (Rng() % Sh.Locks);
    const Handle Ev = 0xe000 + Rng() % 6;
    const unsigned B = Rng() % Sh.Blocks;
    const Range Block{0x100000 + 0x10000 * Addr(B), 0x1000};
    const OpId Op = 100 + Rng() % 50;
    const unsigned Pick = Rng() % 1000;
    if (Pick < 160) {
      ++LockEvents;
      both([&](Engine &E) { E.hostReleases(T, Lock); });
    } else if (Pick < 330) {
      ++LockEvents;
      both([&](Engine &E) { E.hostAcquires(T, Lock); });
    } else if (Pick < 480) {
      both([&](Engine &E) { E.launched(T, S, {Block}, Op); });
    } else if (Pick < 540) {
      both([&](Engine &E) { E.eventRecorded(T, Ev, S); });
    } else if (Pick < 600) {
      both([&](Engine &E) { E.streamWaitsEvent(T, S, Ev); });
    } else if (Pick < 630) {
      both([&](Engine &E) { E.hostSyncsEvent(T, Ev); });
    } else if (Pick < 660) {
      both([&](Engine &E) { E.hostSyncsStream(T, S); });
    } else if (Pick < 665) {
      both([&](Engine &E) { E.hostSyncsDevice(T, 0); });
    } else if (Pick < 840) {
      // Caching blocks (two pools) and, now and then, stream-ordered ones, on
      // a few streams (a program allocates on few of its streams, and a
      // (stream, thread) list's first entry copies the whole clock).
      const StreamId S = Handles[SI % 3].Id;
      const bool Ordered = Rng() % 8 == 0;
      const PoolId Pool = Rng() % 2;
      if (!Live[B]) {
        Live[B] = true;
        both([&](Engine &E) {
          E.allocated(T, Block,
                      Ordered ? AllocKind::StreamOrdered : AllocKind::CachingAllocator, S, Op, 0,
                      Pool);
        });
      } else {
        Live[B] = false;
        // The engine finds the kind from the live allocation; a mismatched
        // kind is a release the engine does not track: both see the same.
        both([&](Engine &E) {
          E.released(T, Block.Begin,
                     Ordered ? ReleaseKind::StreamOrdered : ReleaseKind::CachingAllocator, S, Op);
        });
      }
    } else if (Pick < 960) {
      both([&](Engine &E) { E.accessed(T, S, Range{Block.Begin + 0x100, 0x100}, Op); });
    } else if (Pick < 975) {
      both([&](Engine &E) { E.syncDestroyed(Lock); });
    } else if (Pick < 985) {
      both([&](Engine &E) { E.hostFinished(T); });
    } else if (SI != 0) {
      // A stream dies and another is created: its slot may be reused.
      const StreamFlavor F = Handles[SI].Flavor;
      both([&](Engine &E) { E.streamDestroyed(T, S); });
      Handles[SI] = newStream(F);
    }
  }

  void compare(unsigned Step) {
    const std::string Where = " after step " + std::to_string(Step) + " (seed " +
                              std::to_string(Seed) + ")";
    ASSERT_EQ(Changed.Sink.Findings.size(), Whole.Sink.Findings.size()) << Where;
    for (std::size_t I = Checked; I < Changed.Sink.Findings.size(); ++I)
      ASSERT_EQ(describe(Changed.Sink.Findings[I]), describe(Whole.Sink.Findings[I]))
          << "finding " << I << Where;
    Checked = Changed.Sink.Findings.size();
    ASSERT_EQ(describe(Changed.E->stats()), describe(Whole.E->stats())) << Where;

    Engine::Impl &A = Changed.state(), &B = Whole.state();
    ASSERT_EQ(A.Slots.count(), B.Slots.count()) << Where;
    for (ThreadId T = 1; T <= Sh.Threads; ++T) {
      const HostClock *HA = A.Hosts.find(T), *HB = B.Hosts.find(T);
      ASSERT_EQ(HA == nullptr, HB == nullptr) << "thread " << T << Where;
      if (HA)
        ASSERT_TRUE(sameClock(HA->Clock, HB->Clock)) << "thread " << T << Where;
    }
    if (Step % 3 == 2)
      for (ClockSlot S = 0; S < A.Slots.count(); ++S)
        ASSERT_EQ(A.Hosts.common().get(S), B.Hosts.commonKnowledge().get(S))
            << "common knowledge, slot " << S << Where;
    for (StreamId S = 0; S < A.Streams.size(); ++S)
      ASSERT_TRUE(sameClock(A.Streams.get(S)->Clock, B.Streams.get(S)->Clock))
          << "stream " << S << Where;
    for (unsigned L = 0; L < Sh.Locks; ++L) {
      const SyncClock *CA = A.Syncs.find(0x7000 + 16 * L), *CB = B.Syncs.find(0x7000 + 16 * L);
      ASSERT_EQ(CA == nullptr, CB == nullptr) << "lock " << L << Where;
      if (CA)
        ASSERT_TRUE(sameClock(CA->Clock, CB->Clock)) << "lock " << L << Where;
    }
    for (Handle Ev = 0xe000; Ev < 0xe006; ++Ev) {
      const RecordedEvent *EA = A.Events.find(Ev), *EB = B.Events.find(Ev);
      ASSERT_EQ(EA == nullptr, EB == nullptr) << "event " << Ev << Where;
      if (EA)
        ASSERT_TRUE(sameClock(EA->Snapshot, EB->Snapshot)) << "event " << Ev << Where;
    }
    // Every kept allocation's knowledge, slot by slot.
    std::vector<std::string> KA, KB;
    const ClockSlot Width = A.Slots.count();
    auto Collect = [Width](std::vector<std::string> &Out) {
      return [&Out, Width](StreamId S, ThreadId T, const RecentAllocation &R,
                           const ConcurrentAllocations::Knowledge &K) {
        std::ostringstream O;
        O << S << '/' << T << '@' << R.Stamp.Slot << ':' << R.Stamp.Time << ' ' << R.Site << ' '
          << R.Pool << " |";
        for (ClockSlot Slot = 0; Slot < Width; ++Slot)
          O << ' ' << K.get(Slot);
        Out.push_back(O.str());
      };
    };
    A.Recent.forEach(Collect(KA));
    B.Recent.forEach(Collect(KB));
    ASSERT_EQ(KA, KB) << "kept allocations" << Where;
  }

  Shape Sh;
  std::mt19937 Rng;
  unsigned Seed;
  Subject Changed{true}, Whole{false};
  std::vector<StreamHandle> Handles;
  std::vector<bool> Live;
  Handle NextHandle = 0x5000;
  std::size_t Checked = 0;
  std::uint64_t LockEvents = 0;
};

PathCounts playMany(const Shape &Sh, unsigned FirstSeed, unsigned Seeds) {
  PathCounts Counts;
  for (unsigned Seed = FirstSeed; Seed < FirstSeed + Seeds && !::testing::Test::HasFailure();
       ++Seed)
    Program(Sh, Seed).run(Counts);
  return Counts;
}

/// The comparison checked the changed-slot paths, not whole-clock fallbacks:
/// at least 1/Share of each kind of join read only the changed slots.
void expectChangedSlotPaths(const PathCounts &C, std::uint64_t Share = 2) {
  std::printf("compared %llu findings; stream joins %llu (whole %llu), kept allocations %llu "
              "(whole copies %llu), lock events %llu (whole joins %llu, acquires known by "
              "epochs %llu), common knowledge %llu (whole %llu)\n",
              (unsigned long long)C.Findings, (unsigned long long)C.StreamJoins,
              (unsigned long long)C.WholeStreamJoins, (unsigned long long)C.Recorded,
              (unsigned long long)C.WholeCopies, (unsigned long long)C.LockJoins,
              (unsigned long long)C.WholeLockJoins, (unsigned long long)C.KnownByEpochs,
              (unsigned long long)C.Commons, (unsigned long long)C.WholeCommons);
  EXPECT_GT(C.Findings, 0u) << "no verdicts were compared";
  EXPECT_GT(C.StreamJoins, 0u);
  EXPECT_LT(C.WholeStreamJoins * Share, C.StreamJoins * (Share - 1))
      << C.WholeStreamJoins << " of " << C.StreamJoins << " stream joins read the whole clock";
  EXPECT_GT(C.Recorded, 0u);
  EXPECT_LT(C.WholeCopies * Share, C.Recorded * (Share - 1))
      << C.WholeCopies << " of " << C.Recorded << " kept allocations copied the whole clock";
  EXPECT_LT(C.WholeLockJoins * Share, C.LockJoins * (Share - 1))
      << C.WholeLockJoins << " of " << C.LockJoins << " lock events joined whole clocks";
  EXPECT_GT(C.KnownByEpochs, 0u) << "no acquire was decided by the releasers' epochs";
  EXPECT_LT(C.WholeCommons * Share, C.Commons * (Share - 1))
      << C.WholeCommons << " whole common knowledge computations against " << C.Commons
      << " of one slot";
}

TEST(ChangedSlotJoinsTest, RandomProgramsGiveTheSameVerdictsAndClocks) {
  PathCounts C = playMany(Shape{/*Threads=*/3, /*Streams=*/24, /*Locks=*/3, /*Blocks=*/6,
                                /*Steps=*/700},
                          1, 20);
  expectChangedSlotPaths(C);
}

TEST(ChangedSlotJoinsTest, ManyThreadsWideClocks) {
  PathCounts C = playMany(Shape{/*Threads=*/6, /*Streams=*/40, /*Locks=*/2, /*Blocks=*/8,
                                /*Steps=*/1200},
                          100, 8);
  expectChangedSlotPaths(C);
}

TEST(ChangedSlotJoinsTest, ClocksThatWidenAsStreamsAppear) {
  // Marks and epochs noted while the clocks were narrow (joined whole) must
  // still be true when they widen and the changed-slot paths take over.
  PathCounts C = playMany(Shape{/*Threads=*/3, /*Streams=*/40, /*Locks=*/3, /*Blocks=*/6,
                                /*Steps=*/1200, /*InitialStreams=*/3},
                          300, 16);
  // The clocks are narrow for a good part of each run: a third is enough.
  expectChangedSlotPaths(C, /*Share=*/3);
}

TEST(ChangedSlotJoinsTest, NarrowClocks) {
  // Few streams: the clocks stay at most LoggedClock::NarrowWidth wide and
  // join whole; the marks and epochs must stay true for when they widen.
  PathCounts C = playMany(Shape{/*Threads=*/3, /*Streams=*/4, /*Locks=*/3, /*Blocks=*/4,
                                /*Steps=*/1500},
                          200, 10);
  EXPECT_GT(C.Findings, 0u);
}

} // namespace
