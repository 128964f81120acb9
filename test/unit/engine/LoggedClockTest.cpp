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

} // namespace
