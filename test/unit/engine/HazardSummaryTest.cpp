//===- HazardSummaryTest.cpp - the pending hazards' summary and its question ===//
//
// Every allocation asks whether it decides any pending hazard (drops one the
// common knowledge covers, or judges one whose release stream's pool or bytes
// it takes: engine/DeferredFrees.cpp). Engine::Impl::mayDecideAnyHazard
// answers from the hazards' summary (PendingHazards.h) instead of asking each
// hazard, and reuseOpportunity skips its scan when the answer is no. Two
// properties keep that exact: the summary is always that of the hazards
// pending (per access slot the oldest access, the release pools, the span of
// the bytes), through adds, merges, the cap and drops; and the summary's
// "nothing to decide" is the scan's answer, asked hazard by hazard, for
// random allocations of random programs whose hazards are decided, dropped
// and left pending (where the scan finds nothing but the summary says it may,
// the allocation's bytes lie within the span of the hazards' bytes: the only
// question the summary answers loosely).
//
//===----------------------------------------------------------------------===//
#include "engine/EngineImpl.h"

#include "EngineTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

bool overlapping(Range A, Range B) { return A.Begin < B.end() && B.Begin < A.end(); }

/// The summary of Hazards computed from scratch.
PendingHazardsSummary summaryOf(const std::vector<PendingHazard> &Hazards) {
  PendingHazardsSummary S;
  for (const PendingHazard &H : Hazards) {
    auto Slot = std::find_if(S.OldestAccessBySlot.begin(), S.OldestAccessBySlot.end(),
                             [&](const Epoch &E) { return E.Slot == H.Access.At.Slot; });
    if (Slot == S.OldestAccessBySlot.end())
      S.OldestAccessBySlot.push_back(H.Access.At);
    else
      Slot->Time = std::min(Slot->Time, H.Access.At.Time);
    if (std::find(S.ReleasePools.begin(), S.ReleasePools.end(),
                  std::make_pair(H.ReleaseStream, H.Pool)) == S.ReleasePools.end())
      S.ReleasePools.emplace_back(H.ReleaseStream, H.Pool);
  }
  if (!Hazards.empty()) {
    Addr Begin = Hazards.front().Bytes.Begin, End = Hazards.front().Bytes.end();
    for (const PendingHazard &H : Hazards) {
      Begin = std::min(Begin, H.Bytes.Begin);
      End = std::max(End, H.Bytes.end());
    }
    S.Span = Range{Begin, End - Begin};
  }
  return S;
}

void expectSameSummary(PendingHazardsSummary Want, PendingHazardsSummary Got) {
  auto BySlot = [](const Epoch &A, const Epoch &B) { return A.Slot < B.Slot; };
  std::sort(Want.OldestAccessBySlot.begin(), Want.OldestAccessBySlot.end(), BySlot);
  std::sort(Got.OldestAccessBySlot.begin(), Got.OldestAccessBySlot.end(), BySlot);
  ASSERT_EQ(Want.OldestAccessBySlot.size(), Got.OldestAccessBySlot.size());
  for (std::size_t I = 0; I < Want.OldestAccessBySlot.size(); ++I) {
    EXPECT_EQ(Want.OldestAccessBySlot[I].Slot, Got.OldestAccessBySlot[I].Slot);
    EXPECT_EQ(Want.OldestAccessBySlot[I].Time, Got.OldestAccessBySlot[I].Time);
  }
  std::sort(Want.ReleasePools.begin(), Want.ReleasePools.end());
  std::sort(Got.ReleasePools.begin(), Got.ReleasePools.end());
  EXPECT_EQ(Want.ReleasePools, Got.ReleasePools);
  if (!Want.OldestAccessBySlot.empty()) {
    EXPECT_EQ(Want.Span.Begin, Got.Span.Begin);
    EXPECT_EQ(Want.Span.Size, Got.Span.Size);
  }
}

TEST(HazardSummaryTest, SummaryIsAlwaysThatOfThePendingHazards) {
  std::mt19937_64 Rng(7);
  for (int Round = 0; Round < 40; ++Round) {
    PendingHazards Store;
    std::vector<std::shared_ptr<Allocation>> Lifetimes;
    for (int I = 0; I < 6; ++I)
      Lifetimes.push_back(std::make_shared<Allocation>());
    const std::size_t Cap = 3 + Rng() % 10;
    for (int Step = 0; Step < 300; ++Step) {
      const unsigned What = Rng() % 10;
      if (What < 6) {
        // Few lifetimes, accesses and addresses: merges (same lifetime and
        // access, other bytes) are frequent.
        PendingHazard H;
        H.Lifetime = Lifetimes[Rng() % Lifetimes.size()];
        H.Bytes = Range{0x1000 * (Rng() % 16), 0x100 * (1 + Rng() % 8)};
        H.Access.Stream = StreamId(Rng() % 3);
        H.Access.At = Epoch{ClockSlot(Rng() % 4), ClockTime(1 + Rng() % 6)};
        H.Access.Op = OpId(Rng() % 2);
        H.ReleaseStream = StreamId(Rng() % 3);
        H.Pool = PoolId(Rng() % 2);
        Store.add(H, Cap);
      } else if (What < 9) {
        // A drop of some, as the scans and the sweep do.
        const std::uint64_t Mask = Rng();
        std::size_t I = 0;
        Store.dropIf([&](PendingHazard &) { return (Mask >> (I++ % 64)) & 1; });
      }
      // Asked after some steps only, so that several changes pile up between
      // two questions.
      if (What % 3 == 0)
        expectSameSummary(summaryOf(Store.all()), Store.summary());
    }
    expectSameSummary(summaryOf(Store.all()), Store.summary());
  }
}

/// A random program of two host threads on three streams, with the caching
/// releases FSDP2 defers (a block read on another stream, released with no
/// wait) and the orderings that decide them, and at random allocations the
/// summary's answer against the scan's.
class HazardQuestionTest : public EngineTest {
protected:
  bool scanWouldDecide(const StreamState *St, AllocKind Kind, PoolId Pool, Range Bytes) {
    Engine::Impl &P = E->state();
    for (const PendingHazard &Hz : P.Hazards.all()) {
      if (P.Hosts.common().covers(Hz.Access.At))
        return true;
      if (Kind == AllocKind::CachingAllocator && St && St->Id == Hz.ReleaseStream &&
          Pool == Hz.Pool)
        return true;
      if (overlapping(Bytes, Hz.Bytes))
        return true;
    }
    return false;
  }
};

TEST_F(HazardQuestionTest, SummaryAnswersAsTheScanDoes) {
  std::mt19937_64 Rng(11);
  const StreamId Streams[] = {stream(0xa), stream(0xb), stream(0xc)};
  // Blocks of each stream's own segment, as a caching allocator's pools hold them.
  auto blockOf = [](unsigned Stream, unsigned Index) {
    return Range{0x7f0000000000 + 0x1000000 * Addr(Stream) + 0x10000 * Addr(Index), 0x8000};
  };
  struct Live {
    Range Bytes;
    unsigned Stream;
    ThreadId Thread;
  };
  std::vector<Live> Lives;
  std::size_t Asked = 0, Decidable = 0, Undecidable = 0, Skipped = 0, WithHazards = 0;
  Handle NextEvent = 0xe000;
  for (int Step = 0; Step < 20000; ++Step) {
    const ThreadId T = ThreadId(1 + Rng() % 2);
    const unsigned What = Rng() % 16;
    if (What < 4) {
      const unsigned S = Rng() % 3;
      const Range Bytes = blockOf(S, Rng() % 24);
      const AllocKind Kind = Rng() % 8 ? AllocKind::CachingAllocator : AllocKind::StreamOrdered;
      const PoolId Pool = PoolId(Rng() % 4);
      Engine::Impl &P = E->state();
      const StreamState *St = P.Streams.live(Streams[S]);
      const bool Want = scanWouldDecide(St, Kind, Pool, Bytes);
      const bool Got = P.mayDecideAnyHazard(St, Kind, Pool, Bytes);
      // No skipped scan could have decided a hazard; and a scan asked for in
      // vain is asked only for bytes within the span of the hazards' bytes.
      if (!Got)
        ASSERT_FALSE(Want) << "step " << Step;
      else if (!Want)
        ASSERT_TRUE(overlapping(Bytes, P.Hazards.summary().Span)) << "step " << Step;
      ++Asked;
      Want ? ++Decidable : ++Undecidable;
      Skipped += !Got;
      WithHazards += !P.Hazards.empty();
      // Only caching allocations of blocks not live: the program stays one of
      // blocks handed out and back.
      if (Kind == AllocKind::CachingAllocator &&
          std::none_of(Lives.begin(), Lives.end(),
                       [&](const Live &L) { return overlapping(L.Bytes, Bytes); })) {
        E->allocated(T, Bytes, Kind, Streams[S], AllocSite, 0, Pool);
        Lives.push_back(Live{Bytes, S, T});
      }
    } else if (What < 8 && !Lives.empty()) {
      // A launch on a random stream reads a live block (mostly its own stream's).
      const Live &L = Lives[Rng() % Lives.size()];
      const unsigned S = Rng() % 2 ? L.Stream : unsigned(Rng() % 3);
      E->launched(T, Streams[S], std::vector<Range>{L.Bytes}, OpId(FirstLoopOp + Rng() % 8));
    } else if (What < 10 && !Lives.empty()) {
      const std::size_t I = Rng() % Lives.size();
      E->released(Lives[I].Thread, Lives[I].Bytes.Begin, ReleaseKind::CachingAllocator,
                  Streams[Lives[I].Stream], FreeSite);
      Lives.erase(Lives.begin() + static_cast<std::ptrdiff_t>(I));
    } else if (What < 12) {
      // One stream waits on another's work so far.
      const Handle Ev = NextEvent++;
      E->eventRecorded(T, Ev, Streams[Rng() % 3]);
      E->streamWaitsEvent(T, Streams[Rng() % 3], Ev);
    } else if (What < 14) {
      // A lock handover between the two threads.
      const SyncId Lock = 0x5000 + 64 * (Rng() % 2);
      E->hostReleases(T, Lock);
      E->hostAcquires(ThreadId(3 - T), Lock);
    } else if (What == 14) {
      E->hostSyncsStream(T, Streams[Rng() % 3]);
    }
  }
  std::printf("asked %zu, decidable %zu, undecidable %zu (skipped %zu), with hazards %zu\n", Asked,
              Decidable, Undecidable, Skipped, WithHazards);
  // The program must exercise both answers, with hazards pending.
  EXPECT_GT(Asked, 1000u);
  EXPECT_GT(Decidable, 100u);
  EXPECT_GT(Skipped, 100u);
  EXPECT_GT(WithHazards, 300u);
}

} // namespace
