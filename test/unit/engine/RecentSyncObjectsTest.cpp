//===- RecentSyncObjectsTest.cpp - the objects used lately, forgotten with them ===//
//
// SyncClocks finds an object's clock through a direct-mapped table of the
// objects used lately (RecentSyncObjects.h), holding pointers into its map.
// It is right when a lookup never answers with another id's object or with
// an object that is gone. The table alone is played against a map of what
// was remembered and not forgotten since, with ids that collide in it; then
// SyncClocks, with few objects kept (eviction) and objects destroyed, must
// find exactly the live ones: a table entry left behind by eviction or
// destruction would be found as an object the clocks no longer hold.
//
//===----------------------------------------------------------------------===//
#include "engine/HostClocks.h"
#include "engine/RecentSyncObjects.h"
#include "engine/SyncClocks.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace streamlife::rt;

namespace {

TEST(RecentSyncObjectsTest, AnswersOnlyWhatWasRememberedForTheId) {
  RecentSyncObjects<int> Recent;
  int Objects[512];
  std::map<std::uint64_t, int *> Remembered; // not forgotten since
  std::mt19937 Rng(7);
  for (int Step = 0; Step < 20000; ++Step) {
    // 512 ids over a 64-entry table: most share an entry with others.
    const std::uint64_t Id = 0x7f0000001000ull + 64 * (Rng() % 512);
    int *Object = &Objects[(Id >> 6) % 512];
    if (Rng() % 3) {
      Recent.remember(Id, *Object);
      Remembered[Id] = Object;
    } else {
      Recent.forget(Id);
      Remembered.erase(Id);
    }
    for (int Probe = 0; Probe < 4; ++Probe) {
      const std::uint64_t Asked = 0x7f0000001000ull + 64 * (Rng() % 512);
      int *Found = Recent.find(Asked);
      if (!Found)
        continue; // a miss is always allowed: the caller asks its map
      auto It = Remembered.find(Asked);
      ASSERT_TRUE(It != Remembered.end()) << "step " << Step << ": a forgotten id was found";
      ASSERT_EQ(Found, It->second) << "step " << Step << ": another id's object";
    }
  }
}

TEST(RecentSyncObjectsTest, SyncClocksFindExactlyTheLiveObjects) {
  for (unsigned Seed = 1; Seed <= 20 && !::testing::Test::HasFailure(); ++Seed) {
    SlotAllocator Slots;
    HostClocks Hosts(Slots);
    SyncClocks Syncs(/*MaxObjects=*/4);
    std::mt19937 Rng(Seed);
    for (ClockSlot S = 0; S < 40; ++S)
      Slots.allocate();
    for (int Step = 0; Step < 2000; ++Step) {
      HostClock &H = Hosts.forSync(Rng() % 3);
      const SyncId Id = 0x5000 + 64 * (Rng() % 10);
      switch (Rng() % 4) {
      case 0:
        Syncs.forget(Id);
        break;
      case 1:
        if (SyncClock *C = Syncs.find(Id))
          if (Syncs.acquire(H, *C))
            Hosts.learned(H);
        break;
      default:
        Syncs.release(H, Id);
        Hosts.released(H);
        Hosts.stamp(H);
        break;
      }
      std::size_t Found = 0;
      for (SyncId Asked = 0x5000; Asked < 0x5000 + 64 * 10; Asked += 64)
        Found += Syncs.find(Asked) != nullptr;
      ASSERT_EQ(Found, Syncs.size()) << "seed " << Seed << ", step " << Step;
    }
    EXPECT_GT(Syncs.forgotten(), 0u) << "the cap evicted nothing: eviction went untested";
  }
}

} // namespace
