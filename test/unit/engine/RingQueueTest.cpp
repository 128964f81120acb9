//===- RingQueueTest.cpp - the ring of reused slots against std::deque ----===//
//
// ConcurrentAllocations keeps its per-(stream, thread) entries in a RingQueue
// (RingQueue.h) instead of a std::deque. Random appends, drops from the front
// and partition points, with the ring wrapping and growing while it holds
// entries: every index, front, back and partition point must be the deque's.
//
//===----------------------------------------------------------------------===//
#include "engine/RingQueue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <set>
#include <vector>

using namespace streamlife::rt;

namespace {

/// A value that owns storage, as an entry's whole clock does.
struct Entry {
  unsigned Key = 0;
  std::vector<unsigned> Owned;
};

void expectSame(const RingQueue<Entry> &Ring, const std::deque<Entry> &Reference) {
  ASSERT_EQ(Ring.size(), Reference.size());
  ASSERT_EQ(Ring.empty(), Reference.empty());
  for (std::size_t I = 0; I < Reference.size(); ++I) {
    ASSERT_EQ(Ring[I].Key, Reference[I].Key) << "index " << I;
    ASSERT_EQ(Ring[I].Owned, Reference[I].Owned) << "index " << I;
  }
  if (!Reference.empty()) {
    EXPECT_EQ(Ring.front().Key, Reference.front().Key);
    EXPECT_EQ(Ring.back().Key, Reference.back().Key);
  }
}

} // namespace

TEST(RingQueueTest, AppendsAndDropsAreTheDequesThroughWrapsAndGrowth) {
  std::mt19937 Rng(12345);
  for (int Round = 0; Round < 20; ++Round) {
    RingQueue<Entry> Ring;
    std::deque<Entry> Reference;
    unsigned Next = 0;
    // Phases that fill, drain and hold a level, so the ring wraps at every
    // capacity it grows to and reuses slots that owned storage.
    for (int Step = 0; Step < 3000; ++Step) {
      const int Phase = (Step / 250 + Round) % 3;
      const unsigned Roll = Rng() % 100;
      const bool Append = Phase == 0 ? Roll < 80 : Phase == 1 ? Roll < 20 : Roll < 50;
      if (Append || Reference.empty()) {
        Entry E;
        E.Key = Next++;
        E.Owned.assign(Rng() % 4, E.Key);
        Entry &Slot = Ring.appendSlot();
        Slot.Key = E.Key;
        Slot.Owned = E.Owned;
        Reference.push_back(E);
      } else {
        Ring.pop_front();
        Reference.pop_front();
      }
      ASSERT_NO_FATAL_FAILURE(expectSame(Ring, Reference));
      // Keys increase from front to back: every threshold's partition point.
      const unsigned Threshold = Next ? Rng() % (Next + 1) : 0;
      auto Below = [Threshold](const Entry &E) { return E.Key < Threshold; };
      EXPECT_EQ(Ring.partitionPoint(Below),
                static_cast<std::size_t>(
                    std::partition_point(Reference.begin(), Reference.end(), Below) -
                    Reference.begin()));
    }
  }
}

TEST(RingQueueTest, AQueueAtItsLongestRunAllocatesNoMore) {
  // A list at its cap drops one entry per entry it takes: once the ring has
  // held the longest run (and gone round once), every new entry lands in a
  // slot it has handed out before.
  RingQueue<Entry> Ring;
  std::set<const Entry *> Seen;
  for (unsigned I = 0; I < 100; ++I)
    Seen.insert(&(Ring.appendSlot() = Entry{I, {}}));
  for (unsigned I = 100; I < 1000; ++I) {
    Ring.pop_front();
    Seen.insert(&(Ring.appendSlot() = Entry{I, {}}));
  }
  const std::size_t SlotsUsed = Seen.size();
  for (unsigned I = 1000; I < 10000; ++I) {
    Ring.pop_front();
    Entry &Slot = Ring.appendSlot();
    Slot.Key = I;
    ASSERT_TRUE(Seen.count(&Slot)) << "entry " << I;
  }
  EXPECT_LE(SlotsUsed, 2 * Ring.size());
  EXPECT_EQ(Ring.front().Key, 9900u);
  EXPECT_EQ(Ring.back().Key, 9999u);
}
