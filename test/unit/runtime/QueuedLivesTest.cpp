//===- QueuedLivesTest.cpp - the queue's lives against a hashed map -------===//
//
// allocators/QueuedLives.h replaced a std::unordered_map<Addr, QueuedLife>
// under the block queue's lock. Played against that map on random sequences
// of the queue's operations (a life made or found, changed, the released
// ones forgotten), with addresses that crowd the same slots and tables that
// grow and are swept, it must hold exactly the map's lives.
//
//===----------------------------------------------------------------------===//
#include "allocators/QueuedLives.h"

#include "../AddressTableKeys.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

using namespace streamlife::rt;

namespace {

bool sameLife(const QueuedLife &A, const QueuedLife &B) {
  return A.Live == B.Live && A.ReleaseRequested == B.ReleaseRequested && A.RequestSite == B.RequestSite;
}

/// Plays Steps random operations on addresses from Pool against the map.
void playAgainstTheMap(const std::vector<Addr> &Pool, int Steps, unsigned Seed) {
  std::mt19937_64 Rng(Seed);
  QueuedLives Table;
  std::unordered_map<Addr, QueuedLife> Map;
  for (int Step = 0; Step < Steps; ++Step) {
    Addr Ptr = Pool[Rng() % Pool.size()];
    switch (Rng() % 8) {
    case 0:
    case 1: { // an allocation: made if new, then live
      QueuedLife &Life = Table.findOrMake(Ptr);
      auto [It, New] = Map.try_emplace(Ptr);
      ASSERT_TRUE(sameLife(Life, It->second)) << "step " << Step;
      Life = It->second = QueuedLife{true, false, NoOp};
      break;
    }
    case 2:
    case 3: { // a request
      QueuedLife *Life = Table.find(Ptr);
      auto It = Map.find(Ptr);
      ASSERT_EQ(Life != nullptr, It != Map.end()) << "step " << Step;
      if (Life && Life->Live && !Life->ReleaseRequested)
        *Life = It->second = QueuedLife{true, true, static_cast<OpId>(Rng() % 50)};
      break;
    }
    case 4:
    case 5: { // a release
      QueuedLife *Life = Table.find(Ptr);
      auto It = Map.find(Ptr);
      ASSERT_EQ(Life != nullptr, It != Map.end()) << "step " << Step;
      if (Life)
        *Life = It->second = QueuedLife{};
      break;
    }
    case 6: // the sweep, now and then
      if (Rng() % 64 == 0) {
        Table.forgetReleased();
        for (auto It = Map.begin(); It != Map.end();)
          It = It->second.Live ? std::next(It) : Map.erase(It);
      }
      break;
    default: // a lookup of an address never queued
      ASSERT_EQ(Table.find(Ptr + 8), nullptr);
      break;
    }
    ASSERT_EQ(Table.size(), Map.size()) << "step " << Step;
  }
  for (Addr Ptr : Pool) {
    QueuedLife *Life = Table.find(Ptr);
    auto It = Map.find(Ptr);
    ASSERT_EQ(Life != nullptr, It != Map.end());
    if (Life)
      EXPECT_TRUE(sameLife(*Life, It->second));
  }
}

TEST(QueuedLivesTest, AnEmptyTableKnowsNothing) {
  QueuedLives Table;
  EXPECT_EQ(Table.find(0x1000), nullptr);
  EXPECT_EQ(Table.find(0), nullptr);
  EXPECT_EQ(Table.size(), 0u);
  Table.forgetReleased();
  EXPECT_EQ(Table.size(), 0u);
}

TEST(QueuedLivesTest, ALifeIsMadeOnceAndKeptAcrossGrowth) {
  QueuedLives Table;
  QueuedLife &First = Table.findOrMake(0x7f0000000200);
  EXPECT_FALSE(First.Live);
  First = QueuedLife{true, true, 7};
  for (Addr I = 1; I <= 1000; ++I) // grows several times
    Table.findOrMake(0x7f0000000200 + 512 * I).Live = true;
  EXPECT_EQ(Table.size(), 1001u);
  QueuedLife *Again = Table.find(0x7f0000000200);
  ASSERT_NE(Again, nullptr);
  EXPECT_TRUE(sameLife(*Again, QueuedLife{true, true, 7}));
  EXPECT_EQ(&Table.findOrMake(0x7f0000000200), Again);
  EXPECT_EQ(Table.size(), 1001u);
}

TEST(QueuedLivesTest, TheSweepKeepsExactlyTheLiveOnes) {
  QueuedLives Table;
  for (Addr I = 1; I <= 300; ++I)
    Table.findOrMake(I * 4096).Live = I % 3 == 0;
  Table.forgetReleased();
  EXPECT_EQ(Table.size(), 100u);
  for (Addr I = 1; I <= 300; ++I)
    EXPECT_EQ(Table.find(I * 4096) != nullptr, I % 3 == 0) << I;
}

TEST(QueuedLivesTest, RandomSequencesMatchTheMap) {
  for (unsigned Seed = 1; Seed <= 8; ++Seed)
    playAgainstTheMap(streamlife::test::pytorchLikeBlocks(), 40000, Seed);
}

TEST(QueuedLivesTest, CrowdedSlotsMatchTheMap) {
  for (unsigned Seed = 1; Seed <= 8; ++Seed)
    playAgainstTheMap(streamlife::test::crowdedAddresses(), 20000, Seed);
}

} // namespace
