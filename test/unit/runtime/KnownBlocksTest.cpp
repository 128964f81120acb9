//===- KnownBlocksTest.cpp - the accounting's blocks against a hashed map -===//
//
// allocators/KnownBlocks.h replaced a std::unordered_map<Addr, KnownBlock>
// in AnnotatedAllocators' accounting, whose forgotten blocks were erased.
// Played against that map on random sequences of the accounting's operations
// (a block allocated and counted by a site, requested, released, forgotten
// when no site counts it), with addresses that crowd the same slots and
// enough forgotten blocks to sweep the table, it must hold exactly the map's
// blocks. And a block's last counting site (KnownBlock::countedBy's fast
// path) must answer as the search of its list.
//
//===----------------------------------------------------------------------===//
#include "allocators/KnownBlocks.h"

#include "../AddressTableKeys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>
#include <vector>

using namespace streamlife;
using namespace streamlife::rt;

namespace {

bool sameBlock(const KnownBlock &A, const KnownBlock &B) {
  return A.Live == B.Live && A.ReleaseRequested == B.ReleaseRequested &&
         A.RequestSite == B.RequestSite && A.CountedBy == B.CountedBy &&
         (!A.Live || (A.Size == B.Size && A.Account == B.Account));
}

/// Plays Steps random operations on addresses from Pool against the map;
/// with CountSome a quarter of the allocations are counted by their site
/// (the others, as past every site's cap, are forgotten at their release).
/// Returns the table's sweeps.
std::size_t playAgainstTheMap(const std::vector<Addr> &Pool, int Steps, unsigned Seed,
                              bool CountSome) {
  std::mt19937_64 Rng(Seed);
  KnownBlocks Table;
  std::unordered_map<Addr, KnownBlock> Map;
  for (int Step = 0; Step < Steps; ++Step) {
    Addr Ptr = Pool[Rng() % Pool.size()];
    const auto Site = static_cast<std::uint32_t>(Rng() % 4);
    switch (Rng() % 3) {
    case 0: { // an allocation, counted by its site unless capped
      KnownBlock &Block = Table.findOrMake(Ptr);
      KnownBlock &Ref = Map[Ptr];
      EXPECT_TRUE(sameBlock(Block, Ref)) << "step " << Step;
      const bool Count = CountSome && Rng() % 4 == 0;
      for (KnownBlock *B : {&Block, &Ref}) {
        if (Count && !B->countedBy(Site))
          B->countBy(Site);
        B->Size = Step;
        B->Account = Site;
        B->Live = true;
        B->ReleaseRequested = false;
        B->RequestSite = NoOp;
      }
      break;
    }
    case 1: { // a release request
      KnownBlock *Block = Table.find(Ptr);
      auto It = Map.find(Ptr);
      EXPECT_EQ(Block && Block->Live, It != Map.end() && It->second.Live) << "step " << Step;
      if (Block && Block->Live && !Block->ReleaseRequested && It != Map.end()) {
        Block->ReleaseRequested = It->second.ReleaseRequested = true;
        Block->RequestSite = It->second.RequestSite = 2000 + Site;
      }
      break;
    }
    default: { // a release: forgotten when no site counts it
      KnownBlock *Block = Table.find(Ptr);
      auto It = Map.find(Ptr);
      EXPECT_EQ(Block && Block->Live, It != Map.end() && It->second.Live) << "step " << Step;
      if (!Block || !Block->Live || It == Map.end())
        break;
      EXPECT_TRUE(sameBlock(*Block, It->second)) << "step " << Step;
      Block->Live = It->second.Live = false;
      Block->ReleaseRequested = It->second.ReleaseRequested = false;
      Block->RequestSite = It->second.RequestSite = NoOp;
      if (Block->CountedBy.empty()) {
        Table.forget(*Block);
        Map.erase(It);
      }
      break;
    }
    }
    EXPECT_EQ(Table.size(), Map.size()) << "step " << Step;
    if (Table.size() != Map.size())
      return 0;
  }
  for (const auto &[Ptr, Ref] : Map) {
    KnownBlock *Block = Table.find(Ptr);
    EXPECT_TRUE(Block && sameBlock(*Block, Ref));
  }
  return Table.sweeps();
}

TEST(KnownBlocksTest, PyTorchLikeAddressesAsTheMap) {
  for (unsigned Seed : {1u, 2u, 3u})
    EXPECT_GT(playAgainstTheMap(test::pytorchLikeBlocks(), 200000, Seed, /*CountSome=*/false), 0u);
}

TEST(KnownBlocksTest, CountedBlocksAsTheMap) {
  for (unsigned Seed : {4u, 5u})
    playAgainstTheMap(test::pytorchLikeBlocks(), 200000, Seed, /*CountSome=*/true);
}

TEST(KnownBlocksTest, CrowdedAddressesAsTheMap) {
  playAgainstTheMap(test::crowdedAddresses(), 100000, 6, /*CountSome=*/true);
}

TEST(KnownBlocksTest, LastCountingSiteAnswersAsTheList) {
  std::mt19937_64 Rng(7);
  KnownBlock Block;
  std::vector<std::uint32_t> Counted;
  for (int Step = 0; Step < 20000; ++Step) {
    const auto Site = static_cast<std::uint32_t>(Rng() % 12);
    const bool InList = std::find(Counted.begin(), Counted.end(), Site) != Counted.end();
    ASSERT_EQ(Block.countedBy(Site), InList) << "step " << Step;
    if (!InList && Rng() % 2) {
      Block.countBy(Site);
      Counted.push_back(Site);
    }
    if (Rng() % 500 == 0) { // the block forgotten and made again
      Block = KnownBlock();
      Counted.clear();
    }
  }
}

} // namespace
