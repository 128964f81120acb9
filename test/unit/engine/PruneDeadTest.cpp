//===- PruneDeadTest.cpp - pruneDead's inline check against the pruning ---===//
//
// Engine::Impl::pruneDead skips the call when the segment keeps no record
// (EngineImpl.h): what it leaves must be what pruneDeadRecords, the pruning
// itself, leaves, for segments with no records, records of the current
// lifetime only, of past lifetimes only, or both, dead and alive. It fails
// when the check skips a segment that keeps records of one kind only.
// pruneDeadKnownTo (an allocation's: it skips the pruning when the
// allocating thread, one of the common knowledge's members, covers no
// record) must leave what the pruning leaves too, with the members' clocks
// random and lazily met.
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

TEST(PruneDeadTest, AMembersQuestionLeavesWhatThePruningLeaves) {
  NoFindings Sink;
  Engine E(Sink);
  Engine::Impl &Impl = E.state();
  std::mt19937 Rng(11);
  auto Record = [&] {
    AccessRecord R;
    R.Stream = Rng() % 3;
    R.At = Epoch{static_cast<ClockSlot>(Rng() % 4), static_cast<ClockTime>(1 + Rng() % 8)};
    R.Op = Rng() % 5;
    return R;
  };
  std::size_t Skipped = 0, PrunedSome = 0, OnlyPastPruned = 0;
  for (int Round = 0; Round < 400; ++Round) {
    // Three members with random clocks; the asker is one of them.
    std::vector<VectorClock> Members(3);
    for (VectorClock &M : Members)
      for (ClockSlot S = 0; S < 4; ++S)
        M.raise(S, static_cast<ClockTime>(Rng() % 9));
    CommonKnowledge Common;
    for (const VectorClock &M : Members)
      Common.join(M);
    const VectorClock &Asker = Members[Rng() % Members.size()];
    for (int Case = 0; Case < 20; ++Case) {
      Segment Seg;
      for (unsigned N = Rng() % 2 ? 0 : 1 + Rng() % 3; N > 0; --N)
        Seg.Current.push_back(Record());
      for (unsigned N = Rng() % 2 ? 0 : 1 + Rng() % 3; N > 0; --N)
        Seg.Past.push_back(PastAccess{Record(), nullptr, Rng() % 2 == 0});
      Segment Pruned = Seg;
      const std::size_t Before = Seg.Current.size() + Seg.Past.size();
      Skipped += !Engine::Impl::someRecordCoveredBy(Seg, Asker);
      Impl.pruneDeadKnownTo(Seg, Common, Asker);
      Impl.pruneDeadRecords(Pruned, Common);
      ASSERT_EQ(Seg.Current, Pruned.Current) << "round " << Round << " case " << Case;
      ASSERT_EQ(Seg.Past, Pruned.Past) << "round " << Round << " case " << Case;
      PrunedSome += Seg.Current.size() + Seg.Past.size() < Before;
      OnlyPastPruned += Seg.Current.empty() && !Seg.Past.empty() &&
                        Seg.Past.size() < Before;
    }
  }
  // Both ways taken: skipped without asking, and records found dead (some in
  // segments that keep past records only).
  EXPECT_GT(Skipped, 500u);
  EXPECT_GT(PrunedSome, 500u);
  EXPECT_GT(OnlyPastPruned, 0u);
}

} // namespace
