//===- DeferredFrees.cpp - UnsafeFree of caching allocators, at the reuse --===//
//
// A caching allocator's release that leaves an access U of another stream
// unordered is harmless until the allocator can hand the block to new work
// while U may still run. Reporting it at the release itself is a false report
// for correct programs that order the reuse instead of the free: FSDP2 frees a
// gradient block of its reduce-scatter stream RS while AdamW on the default
// stream still reads it, but makes RS wait on the default stream before RS
// allocates again, so nothing can overwrite the block while AdamW reads it.
//
// Only a later allocation of the same pool on the release stream R can get the
// block (PyTorch's and CuPy's pools keep free blocks per stream). EVERY such
// allocation is a reuse opportunity, whatever its address and size: which block
// the allocator picks is its own business, so the verdict must not depend on
// it (a run that happened to pick another block would hide the bug). And
// "later" is the host threads' happens-before order, not arrival order: an
// allocation on R by another thread that does not happen before the release
// could have come right after it in another run. So at the release, the
// allocations on R that other threads made without being ordered before it
// (ConcurrentAllocations.h) are reuse opportunities too, judged with what
// their threads knew then; and after the release, every allocation on R is
// one. U is reported at the first opportunity it is not ordered before
// (R waited on U's stream or event, or the allocating thread synchronized with
// it). Once R's own clock covers U, no later reuse on R can race with it and
// the hazard is dropped; so it is once every CUDA thread knows U completed.
//
// Any allocation that covers the very bytes of a hazard is a reuse opportunity
// too, whatever its kind and stream: the bytes were handed out (a caching
// allocator's segment freed and cudaMalloc'd again).
//
// Stream-ordered frees (CUDA's contract: every access ordered before the free),
// synchronous frees (the memory is back in the driver at once), caching
// releases on a stream we do not know, and every caching release under
// EngineOptions::WaitBeforeFree are decided at the release.
//
// The UnsafeAtRelease flag of the lifetime's Past records (AccessRules.cpp:
// AfterUnsafeFree of a ReuseRace) is set when the hazard is reported, so it
// means exactly "this release was reported as UnsafeFree for this access".
// Every allocation that starts a new lifetime on the bytes decides the hazard
// first, so a new lifetime's access never sees an undecided record.
//
// Hazards decided unreported are deferred releases: counted (Stats) and
// listed per site (DeferredReleases.h).
//
//===----------------------------------------------------------------------===//

#include "engine/EngineImpl.h"

#include <algorithm>

namespace streamlife {
namespace rt {

namespace {

bool overlaps(Range A, Range B) { return A.Begin < B.end() && B.Begin < A.end(); }

} // namespace

void Engine::Impl::reportUnsafeFree(const std::shared_ptr<Allocation> &A, Range Bytes,
                                    const AccessRecord &Rec, AccessPoint ReusedBy,
                                    bool Concurrently) {
  Finding F = describeFinding(FindingKind::UnsafeFree, Bytes, *A);
  F.Unordered = AccessPoint{Rec.Stream, Rec.Op};
  F.Released = AccessPoint{A->ReleaseStream, A->ReleaseSite};
  F.ReusedBy = ReusedBy;
  F.ReusedConcurrently = Concurrently;
  Findings.offer(*A, F);
}

void Engine::Impl::markUnsafeAtRelease(const std::shared_ptr<Allocation> &A, Range Bytes,
                                       const AccessRecord &Rec) {
  // From now on a new lifetime's access that is not ordered after Rec is the
  // corruption this unsafe free allows (ReuseRace, AfterUnsafeFree).
  Memory.forEachIn(Bytes, [&](Addr, Segment &Seg) {
    for (PastAccess &P : Seg.Past)
      if (P.Lifetime == A && P.Access == Rec)
        P.UnsafeAtRelease = true;
  });
}

void Engine::Impl::deferredUnreported(const PendingHazard &Hz) {
  ++HazardsResolved;
  Deferred.add(AccessPoint{Hz.Lifetime->ReleaseStream, Hz.Lifetime->ReleaseSite},
               AccessPoint{Hz.Access.Stream, Hz.Access.Op});
}

bool Engine::Impl::unorderedAtRelease(const std::shared_ptr<Allocation> &A, Range Bytes,
                                      const AccessRecord &Rec, ReleaseKind Kind,
                                      const StreamState *R, const HostClock &Releaser) {
  bool Deferrable = Kind == ReleaseKind::CachingAllocator && R && !Opts.WaitBeforeFree;
  if (!Deferrable) {
    reportUnsafeFree(A, Bytes, Rec, AccessPoint{}, false);
    return true;
  }
  // Allocations on R that other threads made before this release arrived,
  // without happening before it: in another run they come right after it.
  bool Reported = false;
  Recent.forEachUnorderedBefore(R->Id, Releaser.Thread, Releaser.Clock, A->Pool,
                                [&](const RecentAllocation &Other,
                                    const ConcurrentAllocations::Knowledge &Knew) {
                                  if (Reported ||
                                      Streams.nextWorkOrderedAfter(*R, Knew.covers(Rec.At),
                                                                   Rec.At))
                                    return;
                                  reportUnsafeFree(A, Bytes, Rec, AccessPoint{R->Id, Other.Site},
                                                   true);
                                  Reported = true;
                                });
  if (Reported)
    return true;
  PendingHazard H;
  H.Lifetime = A;
  H.Bytes = Bytes;
  H.Access = Rec;
  H.ReleaseStream = R->Id;
  H.Pool = A->Pool;
  if (!Hazards.add(H, Opts.MaxPendingHazards))
    ++DroppedRecords;
  return false;
}

bool Engine::Impl::mayDecideAnyHazard(const StreamState *St, AllocKind Kind, PoolId Pool,
                                      Range Bytes) {
  if (Hazards.empty())
    return false;
  // The questions of reuseOpportunity's scan, asked of all hazards at once:
  // a hazard is decided only where the common knowledge covers its access
  // (then it covers its slot's oldest access, and that hazard is decided),
  // where the allocation is of its release stream's pool, or where the bytes
  // overlap its own (then they overlap the span of all; the converse need
  // not hold, and then the scan finds nothing to do).
  const PendingHazardsSummary &All = Hazards.summary();
  const CommonKnowledge &Common = Hosts.common();
  for (const Epoch &Oldest : All.OldestAccessBySlot)
    if (Common.covers(Oldest))
      return true;
  if (Kind == AllocKind::CachingAllocator && St &&
      std::find(All.ReleasePools.begin(), All.ReleasePools.end(),
                std::pair<StreamId, PoolId>{St->Id, Pool}) != All.ReleasePools.end())
    return true;
  return overlaps(Bytes, All.Span);
}

void Engine::Impl::reuseOpportunity(const HostClock &H, const StreamState *St, AllocKind Kind,
                                    PoolId Pool, Range Bytes, OpId Site) {
  // Most allocations decide no hazard: the summary says so without asking
  // each (PendingHazards.h). The scan below asks the common knowledge about
  // the same slots, so its cache and counts are the same either way.
  if (!mayDecideAnyHazard(St, Kind, Pool, Bytes))
    return;
  const CommonKnowledge &Common = Hosts.common();
  std::vector<PendingHazard> Report;
  Hazards.dropIf([&](PendingHazard &Hz) {
    const Epoch &U = Hz.Access.At;
    if (Common.covers(U)) {
      deferredUnreported(Hz);
      return true;
    }
    bool SamePool = Kind == AllocKind::CachingAllocator && St && St->Id == Hz.ReleaseStream &&
                    Pool == Hz.Pool;
    if (!SamePool && !overlaps(Bytes, Hz.Bytes))
      return false;
    bool Ordered = St ? Streams.nextWorkOrderedAfter(*St, H, U) : H.Clock.covers(U);
    if (!Ordered) {
      Report.push_back(Hz);
      return true;
    }
    // Every later reuse from R's pool is ordered after R's clock, which only
    // grows. The allocating thread's knowledge alone is not enough: another
    // thread may allocate on R next.
    if (SamePool && St->Clock.covers(U)) {
      deferredUnreported(Hz);
      return true;
    }
    return false;
  });

  for (const PendingHazard &Hz : Report) {
    reportUnsafeFree(Hz.Lifetime, Hz.Bytes, Hz.Access, AccessPoint{St ? St->Id : NoStream, Site},
                     false);
    markUnsafeAtRelease(Hz.Lifetime, Hz.Bytes, Hz.Access);
  }
}

void Engine::Impl::pruneHazards(const CommonKnowledge &Common) {
  Hazards.dropIf([&](const PendingHazard &Hz) {
    if (!Common.covers(Hz.Access.At))
      return false;
    deferredUnreported(Hz);
    return true;
  });
}

} // namespace rt
} // namespace streamlife
