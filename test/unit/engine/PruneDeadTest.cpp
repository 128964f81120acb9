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
// random and lazily met. A release prunes only Past, before its loop over
// Current (a dead record of Current is covered by the releasing thread, so
// never kept): it must leave what pruning the segments first, then
// releasing, leaves. That fails without the release's pruning of Past, and
// with the release keeping the records its thread covers.
//
//===----------------------------------------------------------------------===//
#include "EngineDigest.h"
#include "EngineTestSupport.h"
#include "engine/EngineImpl.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

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

// Two engines play one random program of two threads on three streams
// (caching and stream-ordered blocks, launches on their own stream and on
// others, waits, lock handovers, host syncs that make records dead); before
// each release the second engine prunes the released block's segments. After
// every release both keep the same records, and they end with the same
// findings and statistics.
TEST(PruneDeadTest, AReleaseDropsWhatPruningFirstDrops) {
  test::CollectingSink SinkA, SinkB;
  Engine A(SinkA), B(SinkB);
  Engine *Both[] = {&A, &B};
  std::vector<StreamId> Streams;
  for (Handle H : {Handle(0xa), Handle(0xb), Handle(0xc)})
    for (Engine *E : Both)
      if (E == &A)
        Streams.push_back(E->stream(1, StreamDesc{H, 0, StreamFlavor::NonBlocking, 0}));
      else
        ASSERT_EQ(E->stream(1, StreamDesc{H, 0, StreamFlavor::NonBlocking, 0}), Streams.back());
  struct Live {
    Range Bytes;
    unsigned Stream;
    ThreadId Thread;
    bool Caching;
  };
  std::vector<Live> Lives;
  std::mt19937_64 Rng(23);
  auto Records = [](Engine &E, Range Bytes) {
    std::string Text;
    E.state().Memory.forEachIn(Bytes, [&](Addr Begin, Segment &Seg) {
      Text += std::to_string(Begin) + (Seg.Live ? " live:" : " released:");
      for (const AccessRecord &R : Seg.Current)
        Text += " c" + std::to_string(R.Stream) + "@" + std::to_string(R.At.Slot) + "." +
                std::to_string(R.At.Time);
      for (const PastAccess &P : Seg.Past)
        Text += " p" + std::to_string(P.Access.Stream) + "@" + std::to_string(P.Access.At.Slot) +
                "." + std::to_string(P.Access.At.Time) + (P.UnsafeAtRelease ? "!" : "") + "#" +
                std::to_string(P.Lifetime ? P.Lifetime->Id : 0);
      Text += "\n";
    });
    return Text;
  };
  std::size_t Releases = 0, DeadAtRelease = 0, DeadPastAtRelease = 0;
  Handle NextEvent = 0xe000;
  for (int Step = 0; Step < 100000; ++Step) {
    const ThreadId T = ThreadId(1 + Rng() % 2);
    const unsigned What = Rng() % 16;
    if (What < 4) {
      const unsigned S = Rng() % 3;
      const bool Caching = Rng() % 4 != 0;
      const Range Bytes{0x7f0000000000 + 0x1000000 * Addr(S) + 0x100000 * Addr(Caching) +
                            0x10000 * Addr(Rng() % 4),
                        0x8000};
      if (std::none_of(Lives.begin(), Lives.end(),
                       [&](const Live &L) { return L.Bytes.Begin == Bytes.Begin; })) {
        for (Engine *E : Both)
          E->allocated(T, Bytes, Caching ? AllocKind::CachingAllocator : AllocKind::StreamOrdered,
                       Streams[S], test::AllocSite, 0, 1);
        Lives.push_back(Live{Bytes, S, T, Caching});
      }
    } else if (What < 8 && !Lives.empty()) {
      const Live &L = Lives[Rng() % Lives.size()];
      const unsigned S = Rng() % 2 ? L.Stream : unsigned(Rng() % 3);
      const OpId Op = OpId(test::FirstLoopOp + Rng() % 8);
      for (Engine *E : Both)
        E->launched(T, Streams[S], std::vector<Range>{L.Bytes}, Op);
    } else if (What < 10 && !Lives.empty()) {
      const std::size_t I = Rng() % Lives.size();
      const Live L = Lives[I];
      Lives.erase(Lives.begin() + static_cast<std::ptrdiff_t>(I));
      // The slow path's pruning first, in B.
      Engine::Impl &P = B.state();
      P.Memory.forEachIn(L.Bytes, [&](Addr, Segment &Seg) {
        if (!Seg.Live)
          return;
        const std::size_t Before = Seg.Current.size() + Seg.Past.size();
        const std::size_t PastBefore = Seg.Past.size();
        P.pruneDead(Seg, P.Hosts.common());
        DeadAtRelease += Seg.Current.size() + Seg.Past.size() < Before;
        DeadPastAtRelease += Seg.Past.size() < PastBefore;
      });
      for (Engine *E : Both)
        E->released(L.Thread, L.Bytes.Begin,
                    L.Caching ? ReleaseKind::CachingAllocator : ReleaseKind::StreamOrdered,
                    Streams[L.Stream], test::FreeSite);
      ++Releases;
      ASSERT_EQ(Records(A, L.Bytes), Records(B, L.Bytes)) << "step " << Step;
    } else if (What < 12) {
      const Handle Ev = NextEvent++;
      const StreamId From = Streams[Rng() % 3], To = Streams[Rng() % 3];
      for (Engine *E : Both) {
        E->eventRecorded(T, Ev, From);
        E->streamWaitsEvent(T, To, Ev);
      }
    } else if (What < 14) {
      const SyncId Lock = 0x5000 + 64 * (Rng() % 2);
      for (Engine *E : Both) {
        E->hostReleases(T, Lock);
        E->hostAcquires(ThreadId(3 - T), Lock);
      }
    } else {
      // A stream synchronized by one thread, or by both: its work so far
      // becomes common knowledge, and its records dead.
      const StreamId S = Streams[Rng() % 3];
      const bool BothThreads = Rng() % 2;
      for (Engine *E : Both) {
        E->hostSyncsStream(T, S);
        if (BothThreads)
          E->hostSyncsStream(ThreadId(3 - T), S);
      }
    }
  }
  std::string FindingsA, FindingsB;
  for (const Finding &F : SinkA.Findings)
    FindingsA += test::describe(F) + "\n";
  for (const Finding &F : SinkB.Findings)
    FindingsB += test::describe(F) + "\n";
  EXPECT_EQ(FindingsA, FindingsB);
  EXPECT_EQ(test::describe(A.stats()), test::describe(B.stats()));
  EXPECT_GT(Releases, 1000u);
  EXPECT_GT(DeadAtRelease, 200u) << "releases that find dead records";
  EXPECT_GT(DeadPastAtRelease, 100u) << "releases that find dead past records";
  EXPECT_GT(SinkA.Findings.size(), 0u) << "releases that leave accesses unordered";
}

} // namespace
