//===- LoggedClockTest.cpp - a clock's changes since a position, owner apart ===//
//
// A LoggedClock keeps the slots that grew linked in the order they grew, and
// its owner's slot (a thread's own) apart with the position of its latest
// change (LoggedClock.h). Whoever held the clock as of a position catches up
// by reading only what changed since. A random program of owner ticks and
// joins from random clocks (a thread's life: learning from streams, from
// locks, ticking) is played into a clock with an owner and a clock without,
// narrow at first and widening; after each step, from every earlier
// position, the slots walked must be exactly those whose time differs from
// the clock kept then (each once), and a copy of the clock kept then that
// catches up (absorbChangesSince, joinChangesInto) must be the clock now.
// Clocks that learn from each other by their walks, as threads and locks do,
// must record every growth in their own order, also where a lock keeps its
// order only from its first read on (orderWhenAsked).
//
//===----------------------------------------------------------------------===//
#include "engine/LoggedClock.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

using namespace streamlife::rt;

namespace {

bool sameClock(const VectorClock &A, const VectorClock &B) { return A.dominates(B) && B.dominates(A); }

void playRandom(bool WithOwner, unsigned Seed) {
  std::mt19937 Rng(Seed);
  const ClockSlot Own = 3;
  LoggedClock Clock;
  if (WithOwner)
    Clock.setOwner(Own);
  struct Kept {
    LoggedClock::Position At;
    VectorClock Then;
    LoggedClock Logged; ///< the clock then, to catch up with absorbChangesSince
  };
  std::vector<Kept> History;
  ClockSlot Width = 4; // narrow first (LoggedClock::NarrowWidth), then wider
  for (int Step = 0; Step < 300; ++Step) {
    if (Step == 60)
      Width = 40;
    if (Rng() % 3 == 0) {
      Clock.tick(Own);
    } else {
      VectorClock Learned;
      for (int N = Rng() % 4; N-- > 0;)
        Learned.raise(static_cast<ClockSlot>(Rng() % Width), Clock.get(0) + 1 + Rng() % 3);
      if (Clock.absorb(Learned))
        Clock.tick(Own); // a thread ticks after it learned something
    }
    for (const Kept &K : History) {
      if (!Clock.readsChangesSince(K.At))
        continue; // before the order (narrow then): the reader joins whole
      std::set<ClockSlot> Walked;
      Clock.forEachChangeSince(K.At, [&](ClockSlot S) {
        ASSERT_TRUE(Walked.insert(S).second) << "slot " << S << " walked twice, step " << Step;
      });
      for (ClockSlot S = 0; S < Width; ++S)
        ASSERT_EQ(Walked.count(S) != 0, Clock.get(S) != K.Then.get(S))
            << "slot " << S << " since position " << K.At << ", step " << Step << ", seed " << Seed;
      VectorClock Joined = K.Then;
      Clock.joinChangesInto(Joined, K.At, [](ClockSlot, ClockTime) {});
      ASSERT_TRUE(sameClock(Joined, Clock)) << "joinChangesInto, step " << Step;
      LoggedClock Absorbed = K.Logged;
      Absorbed.absorbChangesSince(Clock, K.At);
      ASSERT_TRUE(sameClock(Absorbed, Clock)) << "absorbChangesSince, step " << Step;
    }
    History.push_back(Kept{Clock.position(), Clock.clock(), Clock});
    if (History.size() > 24)
      History.erase(History.begin());
  }
}

TEST(LoggedClockTest, ChangesSinceAPositionAreExactlyTheSlotsThatDiffer) {
  for (unsigned Seed = 1; Seed <= 40 && !::testing::Test::HasFailure(); ++Seed) {
    playRandom(/*WithOwner=*/true, Seed);
    playRandom(/*WithOwner=*/false, Seed);
  }
}

/// Clocks that learn from each other by their walks (absorbChangesSince), as
/// threads and locks do, all of one width or some wider than others: the
/// absorbing clock's own order must record every growth of the walk, so that
/// from every position it held, its own walk reads exactly the slots that
/// differ; the times must be the plain joins'. The walk has two paths (a wide
/// clock at least as wide as the other's, the replay's case, asks no width
/// per slot; the general one widens): both are played here against the
/// plain joins, and against each other by their results. With LocksOnDemand
/// the locks keep their order only once first read (orderWhenAsked, as
/// SyncClocks' objects): their walks into them relink nothing until then,
/// and from then on the order must serve every reader as above.
struct WalkCounts {
  unsigned UnorderedWalks = 0; ///< walks into a lock that kept no order yet
  unsigned OrderedWalksFromLocks = 0;
};
void playWalks(bool SameWidth, unsigned Seed, bool LocksOnDemand = false,
               WalkCounts *Counts = nullptr) {
  std::mt19937 Rng(Seed);
  constexpr int Clocks = 4;
  LoggedClock Logged[Clocks];
  VectorClock Plain[Clocks];
  for (int C = 0; C < 2; ++C)
    Logged[C].setOwner(static_cast<ClockSlot>(C)); // two "threads", two "locks"
  if (LocksOnDemand)
    for (int C = 2; C < Clocks; ++C)
      Logged[C].orderWhenAsked();
  // Every clock starts wide (beyond NarrowWidth); with SameWidth false the
  // locks start narrower than the threads, so their first walks widen them.
  for (int C = 0; C < Clocks; ++C) {
    VectorClock Start;
    Start.raise(static_cast<ClockSlot>(SameWidth || C < 2 ? 39 : 20), 1);
    Logged[C].absorb(Start);
    Plain[C].join(Start);
  }
  // Per clock and peer: the peer's position up to which the clock holds it.
  LoggedClock::Position Held[Clocks][Clocks];
  for (auto &Row : Held)
    for (auto &P : Row)
      P = LoggedClock::Unknown;
  struct Kept {
    LoggedClock::Position At;
    VectorClock Then;
  };
  std::vector<Kept> History[Clocks];
  for (int Step = 0; Step < 400; ++Step) {
    const int Into = Rng() % Clocks;
    if (Into < 2 && Rng() % 3 == 0) {
      Logged[Into].tick(static_cast<ClockSlot>(Into));
      Plain[Into].tick(static_cast<ClockSlot>(Into));
    } else if (Into < 2 && Rng() % 4 == 0) {
      VectorClock Stream; // a thread learns a stream's slot
      Stream.raise(static_cast<ClockSlot>(2 + Rng() % 38), Plain[Into].get(0) + 1 + Rng() % 3);
      Logged[Into].absorb(Stream);
      Plain[Into].join(Stream);
    } else {
      const int From = Rng() % Clocks;
      if (From == Into)
        continue;
      LoggedClock::Position &Mark = Held[Into][From];
      // A lock is read by a thread (its acquire) only now and then: before
      // the first read its walks keep no order.
      if (LocksOnDemand && From >= 2 && Rng() % 8 == 0)
        Logged[From].keepOrder();
      if (Counts && Into >= 2 && !Logged[Into].keepsOrder() && Logged[From].readsChangesSince(Mark))
        ++Counts->UnorderedWalks;
      if (Counts && From >= 2 && Logged[From].keepsOrder() && Logged[From].readsChangesSince(Mark) &&
          Mark != Logged[From].position())
        ++Counts->OrderedWalksFromLocks;
      if (Logged[From].readsChangesSince(Mark))
        Logged[Into].absorbChangesSince(Logged[From], Mark);
      else
        Logged[Into].absorb(Logged[From]);
      Mark = Logged[From].position();
      Plain[Into].join(Plain[From]);
    }
    for (int C = 0; C < Clocks; ++C) {
      ASSERT_TRUE(sameClock(Logged[C], Plain[C])) << "clock " << C << ", step " << Step << ", seed " << Seed;
      for (const Kept &K : History[C]) {
        if (!Logged[C].readsChangesSince(K.At))
          continue;
        std::set<ClockSlot> Walked;
        Logged[C].forEachChangeSince(K.At, [&](ClockSlot S) { Walked.insert(S); });
        for (ClockSlot S = 0; S < 40; ++S)
          ASSERT_EQ(Walked.count(S) != 0, Logged[C].get(S) != K.Then.get(S))
              << "clock " << C << ", slot " << S << " since position " << K.At << ", step " << Step
              << ", seed " << Seed;
      }
      History[C].push_back(Kept{Logged[C].position(), Logged[C].clock()});
      if (History[C].size() > 16)
        History[C].erase(History[C].begin());
    }
  }
}

TEST(LoggedClockTest, WalksRecordEveryGrowthOfTheAbsorbingClock) {
  for (unsigned Seed = 1; Seed <= 40 && !::testing::Test::HasFailure(); ++Seed) {
    playWalks(/*SameWidth=*/true, Seed);
    playWalks(/*SameWidth=*/false, Seed);
  }
}

TEST(LoggedClockTest, AnOrderKeptOnlyOnceAskedServesEveryLaterReader) {
  WalkCounts Counts;
  for (unsigned Seed = 1; Seed <= 40 && !::testing::Test::HasFailure(); ++Seed) {
    playWalks(/*SameWidth=*/true, Seed, /*LocksOnDemand=*/true, &Counts);
    playWalks(/*SameWidth=*/false, Seed, /*LocksOnDemand=*/true, &Counts);
  }
  // Both halves of a lock's life ran: walks into it with no order kept, and
  // walks of its order once kept.
  EXPECT_GT(Counts.UnorderedWalks, 200u);
  EXPECT_GT(Counts.OrderedWalksFromLocks, 200u);
}

} // namespace
