//===- ShadowLookupCacheTest.cpp - Shadow::find's cache against the map ---===//
//
// Shadow::find answers from its latest answer and a small cache of the
// segments it found lately (Shadow.h's Latest, LookupCache). Random maps that split (forEachIn), grow
// (fillGaps) and merge (sweep) between lookups: every answer, the segment
// and its begin, must be the one a search of the map gives. It fails when a
// merge leaves an erased node in the cache or as the latest answer (a crash),
// or when an entry or the latest answer answers for an address its node no
// longer contains (after a split).
//
//===----------------------------------------------------------------------===//
#include "engine/Shadow.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

using namespace streamlife::rt;

namespace {

/// The plain search: the map's segment containing A, or null.
const Segment *searched(const Shadow &M, Addr A, Addr *Begin) {
  auto It = M.map().upper_bound(A);
  if (It == M.map().begin())
    return nullptr;
  --It;
  if (It->second.End <= A)
    return nullptr;
  *Begin = It->first;
  return &It->second;
}

TEST(ShadowLookupCacheTest, FindIsTheMapsAnswerThroughSplitsFillsAndMerges) {
  std::mt19937 Rng(5);
  auto Owner = std::make_shared<Allocation>();
  std::size_t Hits = 0;
  for (int Round = 0; Round < 200; ++Round) {
    Shadow M;
    // Far-apart bases as well as neighbours, so that entries share slots.
    const Addr Base = Round % 2 ? 0x7f0000000000 : 4096;
    for (int Op = 0; Op < 60; ++Op) {
      switch (Rng() % 4) {
      case 0:
        M.fillGaps(Range{Base + Rng() % 4096, 1 + Rng() % 512}, Owner);
        break;
      case 1: // splits at both ends; marks the segments apart
        M.forEachIn(Range{Base + Rng() % 4096, 1 + Rng() % 256},
                    [&](Addr, Segment &Seg) { Seg.Live = !Seg.Live; });
        break;
      case 2: // neighbours become equal and merge (erases nodes)
        M.sweep([](Segment &Seg) { Seg.Live = true; });
        break;
      default:
        break;
      }
      for (int Ask = 0; Ask < 40; ++Ask) {
        const Addr A = Base + Rng() % 4700;
        Addr WantBegin = 0, GotBegin = 0;
        const Segment *Want = searched(M, A, &WantBegin);
        const Segment *Got = M.find(A, &GotBegin);
        ASSERT_EQ(Got, Want) << "round " << Round << ", address " << A;
        if (Want) {
          ASSERT_EQ(GotBegin, WantBegin);
          Hits += M.find(A) == Want;
        }
      }
    }
  }
  EXPECT_GT(Hits, 0u);
}

} // namespace
