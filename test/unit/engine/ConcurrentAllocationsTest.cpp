//===- ConcurrentAllocationsTest.cpp - which kept allocation a release meets ===//
//
// ConcurrentAllocations::forEachUnorderedBefore finds, per other thread, the
// earliest caching allocation a release's clock does not cover with a binary
// search over the thread's list (its stamps never go back). Random lists of
// 1-4 threads on two streams and two pools, the threads' times repeating and
// jumping, then random release clocks: every answer must be the entry a scan
// of the whole list (forEach, in list order) finds.
//
// An entry kept by changes reads what its thread knew from its list's
// buffer of changes (entries' changes end to end, the dropped ones'
// forgotten): with clocks wider than LoggedClock::NarrowWidth, joins between
// the threads, and a cap that drops the oldest entries, every entry's
// knowledge must be, slot by slot, that of the same entry kept with a whole
// copy of the clock.
//
//===----------------------------------------------------------------------===//
#include "engine/ConcurrentAllocations.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

using namespace streamlife::rt;

namespace {

void playRandom(unsigned Threads, unsigned Seed) {
  std::mt19937 Rng(Seed);
  SlotAllocator Slots;
  std::vector<HostClock> Hosts(Threads);
  for (ThreadId T = 0; T < Threads; ++T) {
    Hosts[T].Thread = T;
    Hosts[T].Slot = Slots.allocate();
    Hosts[T].Clock.tick(Hosts[T].Slot);
  }
  ConcurrentAllocations Recent(4096);
  for (int Step = 0; Step < 600; ++Step) {
    HostClock &H = Hosts[Rng() % Threads];
    // Several allocations per epoch, and epochs that skip (ticks nobody saw).
    if (Rng() % 3 == 0)
      for (unsigned Ticks = 1 + Rng() % 3; Ticks; --Ticks)
        H.Clock.tick(H.Slot);
    const StreamId S = Rng() % 2;
    Recent.record(S, H, H.now(), OpId(1000 + Step), Rng() % 2);
  }
  ASSERT_GT(Recent.entries(), 100u);

  for (int Ask = 0; Ask < 400; ++Ask) {
    const StreamId S = Rng() % 2;
    const ThreadId Releaser = Rng() % Threads;
    const std::uint32_t Pool = Rng() % 2;
    VectorClock Release;
    for (const HostClock &H : Hosts)
      Release.raise(H.Slot, Rng() % (H.Clock.get(H.Slot) + 2));
    // The scan: per thread, the first entry of the pool the clock does not cover.
    std::map<ThreadId, const RecentAllocation *> Expected;
    Recent.forEach([&](StreamId At, ThreadId T, const RecentAllocation &A,
                       const ConcurrentAllocations::Knowledge &) {
      if (At == S && T != Releaser && A.Pool == Pool && !Release.covers(A.Stamp))
        Expected.emplace(T, &A); // the first one in list order stays
    });
    std::vector<const RecentAllocation *> Got;
    Recent.forEachUnorderedBefore(S, Releaser, Release, Pool,
                                  [&](const RecentAllocation &A,
                                      const ConcurrentAllocations::Knowledge &) {
                                    Got.push_back(&A);
                                  });
    std::vector<const RecentAllocation *> Want;
    for (const auto &[T, A] : Expected)
      Want.push_back(A);
    ASSERT_EQ(Got, Want) << "seed " << Seed << " ask " << Ask;
  }
}

void compareKnowledge(unsigned Threads, unsigned Seed) {
  std::mt19937 Rng(Seed);
  SlotAllocator Slots;
  constexpr ClockSlot Width = 40; // wider than NarrowWidth: kept by changes
  while (Slots.count() < Width)
    Slots.allocate();
  std::vector<HostClock> Hosts(Threads);
  for (ThreadId T = 0; T < Threads; ++T) {
    Hosts[T].Thread = T;
    Hosts[T].Slot = T;
    for (ClockSlot S = 0; S < Width; ++S)
      Hosts[T].Clock.tick(S); // wide from the start
  }
  const std::size_t Cap = 1 + Rng() % 12;
  ConcurrentAllocations ByChanges(Cap, true), Whole(Cap, false);
  for (int Step = 0; Step < 3000; ++Step) {
    HostClock &H = Hosts[Rng() % Threads];
    switch (Rng() % 4) {
    case 0: // learns from another thread (a lock handover)
      H.Clock.absorb(Hosts[Rng() % Threads].Clock);
      H.Clock.tick(H.Slot);
      break;
    case 1: // learns a stream's progress (a sync)
      for (unsigned Grown = 1 + Rng() % 4; Grown; --Grown)
        H.Clock.tick(static_cast<ClockSlot>(Threads + Rng() % (Width - Threads)));
      H.Clock.tick(H.Slot);
      break;
    default:
      break;
    }
    const StreamId S = Rng() % 2;
    const std::uint32_t Pool = Rng() % 2;
    ByChanges.record(S, H, H.now(), OpId(Step), Pool);
    Whole.record(S, H, H.now(), OpId(Step), Pool);
    if (Step % 97)
      continue;
    std::vector<std::vector<ClockTime>> Got, Want;
    auto Collect = [](std::vector<std::vector<ClockTime>> &Out) {
      return [&Out](StreamId, ThreadId, const RecentAllocation &,
                    const ConcurrentAllocations::Knowledge &K) {
        std::vector<ClockTime> Times;
        for (ClockSlot Slot = 0; Slot < Width; ++Slot)
          Times.push_back(K.get(Slot));
        Out.push_back(Times);
      };
    };
    ByChanges.forEach(Collect(Got));
    Whole.forEach(Collect(Want));
    ASSERT_EQ(Got, Want) << "seed " << Seed << " step " << Step;
  }
  EXPECT_LT(ByChanges.wholeCopies(), ByChanges.recorded()) << "kept by changes";
}

} // namespace

TEST(ConcurrentAllocationsTest, EntriesKeptByChangesKnowWhatTheirThreadKnew) {
  for (unsigned Threads = 1; Threads <= 4; ++Threads)
    for (unsigned Seed = 0; Seed < 10; ++Seed)
      compareKnowledge(Threads, Seed * 13 + Threads);
}

TEST(ConcurrentAllocationsTest, FirstUnorderedEntryIsTheScansOne) {
  for (unsigned Threads = 1; Threads <= 4; ++Threads)
    for (unsigned Seed = 0; Seed < 20; ++Seed)
      playRandom(Threads, Seed * 7 + Threads);
}

// record() remembers the last list it used; a prune that erases that list
// (empty for two prunes in a row) must make the next record() make it anew.
TEST(ConcurrentAllocationsTest, RecordAfterItsListWasErased) {
  SlotAllocator Slots;
  HostClock H;
  H.Thread = 3;
  H.Slot = Slots.allocate();
  H.Clock.tick(H.Slot);
  ConcurrentAllocations Recent(16);
  Recent.record(/*S=*/1, H, H.now(), OpId(7), 0);
  VectorClock Everything; // a common knowledge that covers every entry
  Everything.raise(H.Slot, 1000);
  CommonKnowledge Common;
  Common.join(Everything);
  Recent.prune(Common); // drops the entry; the list idles
  Recent.prune(Common); // erases the list
  ASSERT_EQ(Recent.entries(), 0u);
  H.Clock.tick(H.Slot);
  Recent.record(/*S=*/1, H, H.now(), OpId(8), 0);
  std::vector<std::pair<StreamId, OpId>> Seen;
  Recent.forEach([&](StreamId S, ThreadId T, const RecentAllocation &A,
                     const ConcurrentAllocations::Knowledge &) {
    EXPECT_EQ(T, 3u);
    Seen.push_back({S, A.Site});
  });
  EXPECT_EQ(Seen, (std::vector<std::pair<StreamId, OpId>>{{1, 8}}));
}
