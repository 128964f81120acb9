//===- LiveBasesTest.cpp - the live bases against a hashed map ------------===//
//
// engine/LiveBases.h replaced Engine::Impl's std::unordered_map of the live
// allocations by base. Played against that map on random sequences of the
// engine's operations (an allocation added at its base, a release taking one
// out, lookups of bases never used, the sweep dropping the empty lists),
// with PyTorch-like addresses and with addresses that crowd the same slots,
// through growth and sweeps, it must hold exactly the map's lists.
//
//===----------------------------------------------------------------------===//
#include "engine/LiveBases.h"
#include "engine/Shadow.h"

#include "../AddressTableKeys.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

using namespace streamlife::rt;

namespace {

using Map = std::unordered_map<Addr, LiveBases::Lives>;

/// Plays Steps random operations on bases from Pool against the map.
void playAgainstTheMap(const std::vector<Addr> &Pool, int Steps, unsigned Seed) {
  std::mt19937_64 Rng(Seed);
  LiveBases Table;
  Map Reference;
  AllocId NextId = 1;
  for (int Step = 0; Step < Steps; ++Step) {
    const Addr Base = Pool[Rng() % Pool.size()];
    switch (Rng() % 8) {
    case 0:
    case 1:
    case 2: { // an allocation at Base
      auto A = std::make_shared<Allocation>();
      A->Id = NextId++;
      LiveBases::Lives &Here = Table.findOrMake(Base);
      LiveBases::Lives &There = Reference[Base];
      ASSERT_EQ(Here, There) << "step " << Step;
      Here.push_back(A);
      There.push_back(A);
      break;
    }
    case 3:
    case 4:
    case 5: { // a release at Base: its oldest allocation, if any
      LiveBases::Lives *Here = Table.find(Base);
      auto It = Reference.find(Base);
      ASSERT_EQ(Here != nullptr, It != Reference.end()) << "step " << Step;
      if (Here) {
        ASSERT_EQ(*Here, It->second) << "step " << Step;
        if (!Here->empty()) {
          Here->erase(Here->begin());
          It->second.erase(It->second.begin());
        }
      }
      break;
    }
    case 6: // the sweep, now and then
      if (Rng() % 32 == 0) {
        Table.dropEmpty();
        for (auto It = Reference.begin(); It != Reference.end();)
          It = It->second.empty() ? Reference.erase(It) : std::next(It);
      }
      break;
    default: // bases never used
      ASSERT_EQ(Table.find(Base + 8), nullptr);
      ASSERT_EQ(Table.find(LiveBases::NoBase), nullptr);
      break;
    }
    ASSERT_EQ(Table.size(), Reference.size()) << "step " << Step;
  }
  for (const auto &[Base, Lives] : Reference) {
    LiveBases::Lives *Here = Table.find(Base);
    ASSERT_NE(Here, nullptr);
    EXPECT_EQ(*Here, Lives);
  }
}

TEST(LiveBasesTest, AnEmptyTableKnowsNothing) {
  LiveBases Table;
  EXPECT_EQ(Table.find(0x1000), nullptr);
  EXPECT_EQ(Table.find(0), nullptr);
  EXPECT_EQ(Table.size(), 0u);
  Table.dropEmpty();
  EXPECT_EQ(Table.size(), 0u);
}

TEST(LiveBasesTest, BaseZeroIsABase) {
  LiveBases Table;
  Table.findOrMake(0).push_back(std::make_shared<Allocation>());
  ASSERT_NE(Table.find(0), nullptr);
  EXPECT_EQ(Table.find(0)->size(), 1u);
  EXPECT_EQ(Table.size(), 1u);
}

TEST(LiveBasesTest, TheSweepKeepsExactlyTheNonEmptyListsAndShrinks) {
  LiveBases Table;
  for (Addr I = 1; I <= 3000; ++I) {
    LiveBases::Lives &Here = Table.findOrMake(I * 4096);
    if (I % 300 == 0)
      Here.push_back(std::make_shared<Allocation>());
  }
  Table.dropEmpty();
  EXPECT_EQ(Table.size(), 10u);
  for (Addr I = 1; I <= 3000; ++I)
    EXPECT_EQ(Table.find(I * 4096) != nullptr, I % 300 == 0) << I;
  // Still a table: bases come and go after the sweep.
  Table.findOrMake(5).push_back(std::make_shared<Allocation>());
  EXPECT_EQ(Table.size(), 11u);
}

TEST(LiveBasesTest, RandomSequencesMatchTheMap) {
  for (unsigned Seed = 1; Seed <= 6; ++Seed)
    playAgainstTheMap(streamlife::test::pytorchLikeBlocks(), 40000, Seed);
}

TEST(LiveBasesTest, CrowdedSlotsMatchTheMap) {
  for (unsigned Seed = 1; Seed <= 6; ++Seed)
    playAgainstTheMap(streamlife::test::crowdedAddresses(), 20000, Seed);
}

} // namespace
