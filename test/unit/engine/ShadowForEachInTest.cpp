//===- ShadowForEachInTest.cpp - forEachIn's cached walk against the map --===//
//
// Shadow::forEachIn finds its range's first segment through the lookup cache
// and makes the range's end a boundary by walking from there (Shadow.h),
// where it searched the map for both ends and split them first. Random maps
// that grow (fillGaps), split (forEachIn) and merge (sweep), with ranges
// often asked again (a release after its allocation, a launch repeated), so
// that the cache answers: each call must visit the segments the map's search
// gives, clipped at the range's ends, in order; leave the map split exactly
// at those ends; and say whether they covered the range. It fails when the
// exact-segment shortcut takes a segment that only begins at the range, or
// when the walk splits at the wrong end.
//
//===----------------------------------------------------------------------===//
#include "engine/Shadow.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <tuple>
#include <vector>

using namespace streamlife::rt;

namespace {

using Piece = std::tuple<Addr, Addr, const Allocation *, bool>; // begin, end, owner, live

std::vector<Piece> pieces(const Shadow &M) {
  std::vector<Piece> Out;
  for (const auto &[Begin, Seg] : M.map())
    Out.emplace_back(Begin, Seg.End, Seg.Owner.get(), Seg.Live);
  return Out;
}

/// What forEachIn(R) must do, from the map before it: the pieces it visits
/// (clipped at R's ends), the map after (split at R's ends), the coverage.
struct Expected {
  std::vector<Piece> Visited;
  std::vector<Piece> After;
  bool Covered = false;
};

Expected expectedFor(const std::vector<Piece> &Before, Range R) {
  Expected E;
  Addr Covered = R.Begin;
  for (const Piece &P : Before) {
    auto [Begin, End, Owner, Live] = P;
    std::vector<Piece> Parts;
    for (Addr Cut : {R.Begin, R.end()})
      if (Begin < Cut && Cut < End) {
        Parts.emplace_back(Begin, Cut, Owner, Live);
        Begin = Cut;
      }
    Parts.emplace_back(Begin, End, Owner, Live);
    for (const Piece &Part : Parts) {
      E.After.push_back(Part);
      if (std::get<0>(Part) < R.end() && std::get<1>(Part) > R.Begin) {
        E.Visited.push_back(Part);
        if (std::get<0>(Part) <= Covered)
          Covered = std::max(Covered, std::get<1>(Part));
      }
    }
  }
  E.Covered = Covered >= R.end();
  return E;
}

TEST(ShadowForEachInTest, VisitsAndSplitsAsTheMapsSearchSays) {
  std::mt19937 Rng(17);
  std::vector<std::shared_ptr<Allocation>> Owners;
  for (int I = 0; I < 4; ++I)
    Owners.push_back(std::make_shared<Allocation>());
  std::size_t Calls = 0, Exact = 0;
  for (int Round = 0; Round < 300; ++Round) {
    Shadow M;
    const Addr Base = Round % 2 ? 0x7f0000000000 : 4096;
    std::vector<Range> Recent;
    for (int Op = 0; Op < 80; ++Op) {
      const unsigned What = Rng() % 6;
      if (What == 0) {
        Range R{Base + Rng() % 4096, 1 + Rng() % 512};
        M.fillGaps(R, Owners[Rng() % Owners.size()]);
        Recent.push_back(R);
      } else if (What == 1) {
        M.sweep([](Segment &Seg) { Seg.Live = true; });
      } else {
        // Half the time a range asked before: its segments are cached and
        // often exactly one.
        Range R = !Recent.empty() && Rng() % 2 ? Recent[Rng() % Recent.size()]
                                               : Range{Base + Rng() % 4200, 1 + Rng() % 300};
        const std::vector<Piece> Before = pieces(M);
        const Expected Want = expectedFor(Before, R);
        std::vector<Piece> Visited;
        const bool Covered = M.forEachIn(R, [&](Addr Begin, Segment &Seg) {
          Visited.emplace_back(Begin, Seg.End, Seg.Owner.get(), Seg.Live);
        });
        ASSERT_EQ(Visited, Want.Visited) << "round " << Round << ", op " << Op;
        ASSERT_EQ(pieces(M), Want.After) << "round " << Round << ", op " << Op;
        ASSERT_EQ(Covered, Want.Covered) << "round " << Round << ", op " << Op;
        Exact += Visited.size() == 1 && Before == Want.After && std::get<0>(Visited[0]) == R.Begin &&
                 std::get<1>(Visited[0]) == R.end();
        ++Calls;
        // Mark what was visited apart, so that sweeps keep some boundaries.
        M.forEachIn(R, [&](Addr, Segment &Seg) { Seg.Live = Rng() % 2; });
        Recent.push_back(R);
      }
      if (Recent.size() > 8)
        Recent.erase(Recent.begin());
    }
  }
  EXPECT_GT(Calls, 10000u);
  EXPECT_GT(Exact, 1000u); // the shortcut was taken
}

} // namespace
