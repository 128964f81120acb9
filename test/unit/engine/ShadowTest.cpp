//===- ShadowTest.cpp - the shadow map's coverage answer ------------------===//
//
// Shadow::forEachIn says whether its segments covered every byte of the
// range, so that an allocation of bytes already in the map (a caching
// allocator's block handed out again) skips fillGaps. Random maps and
// ranges, against a byte-by-byte look at the map before the call; a range
// said to be covered must gain no segment from fillGaps.
//
//===----------------------------------------------------------------------===//
#include "engine/Shadow.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

using namespace streamlife::rt;

namespace {

bool coveredByteByByte(const Shadow &M, Range R) {
  for (Addr A = R.Begin; A < R.end(); ++A)
    if (!M.find(A))
      return false;
  return true;
}

TEST(ShadowTest, ForEachInSaysWhetherTheSegmentsCoveredTheRange) {
  std::mt19937 Rng(99);
  auto Owner = std::make_shared<Allocation>();
  std::size_t Covered = 0, NotCovered = 0;
  for (int Round = 0; Round < 300; ++Round) {
    Shadow M;
    for (int I = 0; I < 6; ++I) {
      const Addr Begin = 64 + Rng() % 200;
      M.fillGaps(Range{Begin, 1 + Rng() % 24}, Owner);
    }
    for (int I = 0; I < 20; ++I) {
      const Range R{48 + Rng() % 240, 1 + Rng() % 32};
      const bool Expected = coveredByteByByte(M, R);
      std::size_t Calls = 0;
      const bool Said = M.forEachIn(R, [&](Addr, Segment &) { ++Calls; });
      ASSERT_EQ(Said, Expected) << "round " << Round << ", range [" << R.Begin << ", " << R.end()
                                << ")";
      if (Said) {
        const std::size_t Before = M.segments();
        M.fillGaps(R, Owner);
        EXPECT_EQ(M.segments(), Before);
      }
      (Expected ? Covered : NotCovered) += 1;
    }
  }
  EXPECT_GT(Covered, 100u);
  EXPECT_GT(NotCovered, 100u);
}

} // namespace
