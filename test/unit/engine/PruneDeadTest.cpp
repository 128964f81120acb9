//===- PruneDeadTest.cpp - pruneDead's inline check against the pruning ---===//
//
// Engine::Impl::pruneDead skips the call when the segment keeps no record
// (EngineImpl.h): what it leaves must be what pruneDeadRecords, the pruning
// itself, leaves, for segments with no records, records of the current
// lifetime only, of past lifetimes only, or both, dead and alive. It fails
// when the check skips a segment that keeps records of one kind only.
//
//===----------------------------------------------------------------------===//
#include "EngineTestSupport.h"
#include "engine/EngineImpl.h"

#include <gtest/gtest.h>

#include <random>

using namespace streamlife::rt;

namespace {

class NoFindings : public FindingSink {
public:
  void report(const Finding &) override {}
};

TEST(PruneDeadTest, TheInlineCheckLeavesWhatThePruningLeaves) {
  NoFindings Sink;
  Engine E(Sink);
  Engine::Impl &Impl = E.state();
  VectorClock Member; // every member knows slot 0 up to 5, slot 1 up to 3
  Member.raise(0, 5);
  Member.raise(1, 3);
  CommonKnowledge Common(false);
  Common.join(Member);
  std::mt19937 Rng(7);
  auto Record = [&] {
    AccessRecord R;
    R.Stream = Rng() % 3;
    R.At = Epoch{static_cast<ClockSlot>(Rng() % 3), static_cast<ClockTime>(1 + Rng() % 8)};
    R.Op = Rng() % 5;
    return R;
  };
  std::size_t OneKindPruned = 0;
  for (int Round = 0; Round < 4000; ++Round) {
    Segment Seg;
    for (unsigned N = Rng() % 2 ? 0 : 1 + Rng() % 3; N > 0; --N)
      Seg.Current.push_back(Record());
    for (unsigned N = Rng() % 2 ? 0 : 1 + Rng() % 3; N > 0; --N)
      Seg.Past.push_back(PastAccess{Record(), nullptr, Rng() % 2 == 0});
    Segment Pruned = Seg;
    const std::size_t Before = Seg.Current.size() + Seg.Past.size();
    const bool OneKind = Seg.Current.empty() != Seg.Past.empty();
    Impl.pruneDead(Seg, Common);
    Impl.pruneDeadRecords(Pruned, Common);
    ASSERT_EQ(Seg.Current, Pruned.Current) << "round " << Round;
    ASSERT_EQ(Seg.Past, Pruned.Past) << "round " << Round;
    OneKindPruned += OneKind && Seg.Current.size() + Seg.Past.size() < Before;
  }
  EXPECT_GT(OneKindPruned, 500u); // records of one kind only, some dead
}

} // namespace
