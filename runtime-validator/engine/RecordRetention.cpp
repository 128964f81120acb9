//===- RecordRetention.cpp - which access records are kept, and how long --===//
//
// The memory bound. An access record that the common host knowledge covers can
// never be part of a finding again: a release checks against a host clock that
// contains it, and every future enqueue starts from a host clock (and a thread
// that starts using CUDA later first joins the common knowledge, HostClocks.h). Such records are
// dropped whenever a segment is touched and by a periodic sweep, which also
// merges neighbouring segments whose state became identical. Of the rest, one
// record per stream per segment suffices: a later access on the same stream is
// ordered after the earlier one, so whatever is ordered after the later access
// is ordered after both (the later op is the one reports name). A cap per
// segment (EngineOptions::MaxRecordsPerSegment) bounds programs with very many
// streams; what it drops is counted (Stats::DroppedRecords).
//
// The sweep runs at most every max(4096, 2 x segments) operations and only when
// some host learnt something since the last one, so its cost per operation is
// constant. It prunes and merges in one walk of the shadow (Shadow::sweep):
// with thousands of live segments its cost is the walk's cache misses.
//
// The live-by-base lists that emptied are dropped (dropEmptyBases, a walk of
// every base) only once they may outnumber the live allocations plus
// EmptyBasesKept: a caching allocator hands the same few thousand block
// addresses out again and again, and an empty list answers as no list does
// (takeLive), so walking them at every sweep bought nothing. Between sweeps
// the map grows by at most one base per operation, so it stays linear in
// the live allocations and the sweep's interval (MemoryBoundTest).
//
//===----------------------------------------------------------------------===//

#include "engine/EngineImpl.h"

#include <algorithm>

namespace streamlife {
namespace rt {

void Engine::Impl::pruneDeadRecords(Segment &Seg, const CommonKnowledge &Common) {
  Seg.Current.erase(std::remove_if(Seg.Current.begin(), Seg.Current.end(),
                                   [&](const AccessRecord &R) { return Common.covers(R.At); }),
                    Seg.Current.end());
  pruneDeadPast(Seg, Common);
}

void Engine::Impl::pruneDeadPast(Segment &Seg, const CommonKnowledge &Common) {
  Seg.Past.erase(std::remove_if(Seg.Past.begin(), Seg.Past.end(),
                                [&](const PastAccess &P) { return Common.covers(P.Access.At); }),
                 Seg.Past.end());
}

void Engine::Impl::keepPast(Segment &Seg, PastAccess &&Kept) {
  for (PastAccess &Old : Seg.Past) {
    if (Old.Access.Stream != Kept.Access.Stream)
      continue;
    // Same stream: whatever is ordered after the later access is ordered after
    // the earlier one too (even from an older lifetime), so one record does.
    if (Old.Access.At.Time <= Kept.Access.At.Time)
      Old = std::move(Kept);
    return;
  }
  if (Seg.Past.size() >= Opts.MaxRecordsPerSegment) {
    Seg.Past.erase(Seg.Past.begin());
    ++DroppedRecords;
  }
  Seg.Past.push_back(std::move(Kept));
}

void Engine::Impl::recordAccess(Segment &Seg, StreamId S, Epoch At, OpId Op, const CommonKnowledge &Common) {
  bool Updated = false;
  std::size_t Out = 0;
  for (std::size_t I = 0; I < Seg.Current.size(); ++I) {
    AccessRecord &R = Seg.Current[I];
    if (R.Stream == S) {
      R.At = At;
      R.Op = Op;
      Updated = true;
    } else if (Common.covers(R.At)) {
      continue; // dead: drop while we are here
    }
    if (Out != I)
      Seg.Current[Out] = R;
    ++Out;
  }
  Seg.Current.resize(Out);
  if (Updated)
    return;
  if (Seg.Current.size() >= Opts.MaxRecordsPerSegment) {
    Seg.Current.erase(Seg.Current.begin());
    ++DroppedRecords;
  }
  Seg.Current.push_back(AccessRecord{S, At, Op});
}

void Engine::Impl::sweep() {
  OpsSinceSweep = 0;
  if (LiveByBase.size() > EmptyBasesKept + 2 * LiveAllocations)
    dropEmptyBases();
  if (Hosts.version() == SweptAtVersion)
    return; // nothing died since the last sweep
  SweptAtVersion = Hosts.version();
  const CommonKnowledge &Common = Hosts.common();
  Memory.sweep([&](Segment &Seg) { pruneDead(Seg, Common); });
  pruneHazards(Common);
  Recent.prune(Common);
}
} // namespace rt
} // namespace streamlife
