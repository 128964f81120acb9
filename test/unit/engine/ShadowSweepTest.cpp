//===- ShadowSweepTest.cpp - the sweep's one walk against two walks -------===//
//
// Shadow::sweep(Fn) prunes and merges in one walk of the map: Fn on each
// segment, then a merge of the segment with the last one kept when their
// states are equal. The reference is the two walks it replaced: Fn on every
// segment, then Shadow::mergeEqualNeighbours(). Random shadows (several
// owners, live and released segments, gaps, records of several streams
// that the random prune drops in part or whole) must come out of both with
// the same segments, bounds and states, and find() must answer from the
// map. It fails when the one walk compares a segment with its neighbour
// before Fn pruned it (neighbours that only the prune made equal stay
// apart), and when a merge moves on from the kept segment (a run of three
// equal segments merges into two).
//
//===----------------------------------------------------------------------===//
#include "engine/Shadow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

using namespace streamlife::rt;

namespace {

constexpr Addr Base = 0x7f0000000000;
constexpr Addr Span = 4096;

/// The same random shadow, built into M (the same seed gives the same one).
void build(Shadow &M, unsigned Seed, const std::vector<std::shared_ptr<Allocation>> &Owners) {
  std::mt19937 Rng(Seed);
  for (int Op = 0; Op < 80; ++Op) {
    const Range R{Base + Rng() % Span, 1 + Rng() % 384};
    switch (Rng() % 4) {
    case 0:
      M.fillGaps(R, Owners[Rng() % Owners.size()]);
      break;
    case 1: { // an access: one record per stream, as the engine keeps them
      const StreamId S = 1 + Rng() % 3;
      const ClockTime T = 1 + Rng() % 8;
      M.forEachIn(R, [&](Addr, Segment &Seg) {
        auto Same = std::find_if(Seg.Current.begin(), Seg.Current.end(),
                                 [&](const AccessRecord &Rec) { return Rec.Stream == S; });
        const AccessRecord Rec{S, Epoch{ClockSlot(S), T}, OpId(T)};
        if (Same != Seg.Current.end())
          *Same = Rec;
        else
          Seg.Current.push_back(Rec);
      });
      break;
    }
    case 2: // a release: the records become the past lifetime's
      M.forEachIn(R, [&](Addr, Segment &Seg) {
        for (const AccessRecord &Rec : Seg.Current)
          Seg.Past.push_back(PastAccess{Rec, Seg.Owner, false});
        Seg.Current.clear();
        Seg.Live = false;
      });
      break;
    default: // a new owner over part of it (what an allocation does)
      M.forEachIn(R, [&](Addr, Segment &Seg) {
        Seg.Owner = Owners[Rng() % Owners.size()];
        Seg.Live = true;
      });
      break;
    }
  }
}

/// What the common knowledge does to a segment: drops the records at or
/// before Known (per segment, from its own state only).
auto pruneUpTo(ClockTime Known) {
  return [Known](Segment &Seg) {
    auto Dead = [&](const AccessRecord &R) { return R.At.Time <= Known; };
    Seg.Current.erase(std::remove_if(Seg.Current.begin(), Seg.Current.end(), Dead),
                      Seg.Current.end());
    Seg.Past.erase(std::remove_if(Seg.Past.begin(), Seg.Past.end(),
                                  [&](const PastAccess &P) { return Dead(P.Access); }),
                   Seg.Past.end());
  };
}

TEST(ShadowSweepTest, OneWalkLeavesWhatPruningThenMergingLeaves) {
  std::vector<std::shared_ptr<Allocation>> Owners;
  for (int I = 0; I < 3; ++I)
    Owners.push_back(std::make_shared<Allocation>());
  std::mt19937 Rng(11);
  std::size_t Merged = 0, Pruned = 0;
  for (unsigned Round = 0; Round < 400; ++Round) {
    Shadow OneWalk, TwoWalks;
    build(OneWalk, Round, Owners);
    build(TwoWalks, Round, Owners);
    ASSERT_EQ(OneWalk.segments(), TwoWalks.segments());
    // Fill the lookup caches, so that a merge that left them would show.
    for (const auto &Entry : OneWalk.map())
      OneWalk.find(Entry.first);
    const ClockTime Known = Rng() % 10; // 0: nothing dies; 9: every record
    const std::size_t Before = OneWalk.segments();

    OneWalk.sweep(pruneUpTo(Known));
    auto Prune = pruneUpTo(Known);
    TwoWalks.forEachIn(Range{Base, 2 * Span}, [&](Addr, Segment &Seg) { Prune(Seg); });
    TwoWalks.mergeEqualNeighbours();

    ASSERT_EQ(OneWalk.segments(), TwoWalks.segments()) << "round " << Round;
    auto Want = TwoWalks.map().begin();
    for (const auto &[Begin, Seg] : OneWalk.map()) {
      ASSERT_EQ(Begin, Want->first) << "round " << Round;
      ASSERT_EQ(Seg.End, Want->second.End) << "round " << Round;
      ASSERT_TRUE(Seg.sameStateAs(Want->second)) << "round " << Round << ", segment " << Begin;
      Pruned += Seg.Current.empty() && Seg.Past.empty();
      ++Want;
    }
    ASSERT_TRUE(OneWalk.wellFormed());
    for (const auto &Entry : OneWalk.map())
      ASSERT_EQ(OneWalk.find(Entry.second.End - 1), &Entry.second) << "round " << Round;
    Merged += Before - OneWalk.segments();
  }
  // The shadows were varied enough to merge and prune.
  EXPECT_GT(Merged, 400u);
  EXPECT_GT(Pruned, 400u);
}

} // namespace
