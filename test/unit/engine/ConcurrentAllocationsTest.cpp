//===- ConcurrentAllocationsTest.cpp - which kept allocation a release meets ===//
//
// ConcurrentAllocations::forEachUnorderedBefore finds, per other thread, the
// earliest caching allocation a release's clock does not cover with a binary
// search over the thread's list (its stamps never go back). Random lists of
// 1-4 threads on two streams and two pools, the threads' times repeating and
// jumping, then random release clocks: every answer must be the entry a scan
// of the whole list (forEach, in list order) finds.
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

} // namespace

TEST(ConcurrentAllocationsTest, FirstUnorderedEntryIsTheScansOne) {
  for (unsigned Threads = 1; Threads <= 4; ++Threads)
    for (unsigned Seed = 0; Seed < 20; ++Seed)
      playRandom(Threads, Seed * 7 + Threads);
}
