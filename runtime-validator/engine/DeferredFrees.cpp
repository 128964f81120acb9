//===- DeferredFrees.cpp - UnsafeFree, decided at the reuse opportunity ----===//
//
// A release that leaves an access U of another stream unordered is harmless
// until the allocator can hand the bytes to new work while U may still run.
// Reporting at the release itself is a false report for correct programs that
// order the reuse instead of the free: FSDP2 frees a gradient block of its
// reduce-scatter stream RS while AdamW on the default stream still reads it,
// but makes RS wait on the default stream before RS allocates again, so
// nothing can overwrite the block while AdamW reads it. Where the bytes can go
// next depends on who takes them back:
//
//   * CachingAllocator (PyTorch's allocator, annotated SAME_STREAM pools): only
//     a later allocation on the release stream R can get the block. EVERY
//     caching allocation on R is a reuse opportunity, whatever its address and
//     size: which block the allocator picks is its own business, so the
//     verdict must not depend on it (a run that happened to pick another block
//     would hide the bug). U is reported unless it is ordered before R's next
//     work then (R waited on U's stream or event, or the host synchronized
//     with it); once R's own clock covers U, no later reuse on R can race with
//     it and the hazard is dropped.
//   * StreamOrdered (cudaFreeAsync, annotated STREAM_ORDERED pools): the
//     driver's pool may hand the block to the next allocation on R, to a
//     stream that waited on an event recorded after the free, or, once the
//     free completed, to any stream. So every later stream-ordered allocation
//     on the device is a reuse opportunity, checked against that allocation's
//     point; the hazard stays until every host knows U completed (or it was
//     reported).
//   * SyncFree (cudaFree): the implicit device synchronization orders every
//     access of the device; an access of ANOTHER device's stream can still
//     run, and the memory is back in the driver at once: reported at the
//     release, as before.
// Any allocation that covers the very bytes of a hazard is a reuse opportunity
// too, whatever its kind and stream: the bytes were handed out (a caching
// allocator's segment freed and cudaMalloc'd again, a second pool).
//
// The UnsafeAtRelease flag of the lifetime's Past records (AccessRules.cpp:
// AfterUnsafeFree of a ReuseRace) is set when the hazard is reported, so it
// means exactly "this release was reported as UnsafeFree for this access".
// Every allocation that starts a new lifetime on the bytes decides the
// hazard first, so a new lifetime's access never sees an undecided record.
//
// Hazards nobody reuses are counted (Stats::DeferredNotReported): the
// summary says how many unordered releases stayed silent and why.
//
//===----------------------------------------------------------------------===//

#include "engine/EngineImpl.h"

namespace streamlife {
namespace rt {

namespace {

bool overlaps(Range A, Range B) { return A.Begin < B.end() && B.Begin < A.end(); }

} // namespace

bool Engine::Impl::unorderedAtRelease(const std::shared_ptr<Allocation> &A, Range Bytes,
                                      const AccessRecord &Rec, ReleaseKind Kind,
                                      const StreamState *R, OpId Site) {
  // A caching release on a stream we do not know has no reuse stream to
  // watch: decide at once, as for a synchronous free.
  bool Deferred = Kind == ReleaseKind::StreamOrdered || (Kind == ReleaseKind::CachingAllocator && R);
  if (!Deferred) {
    Finding F = describeFinding(FindingKind::UnsafeFree, Bytes, *A);
    F.Unordered = AccessPoint{Rec.Stream, Rec.Op};
    F.Released = AccessPoint{R ? R->Id : NoStream, Site};
    Findings.offer(*A, F);
    return true;
  }
  PendingHazard H;
  H.Lifetime = A;
  H.Bytes = Bytes;
  H.Access = Rec;
  H.How = Kind;
  H.ReleaseStream = R ? R->Id : NoStream;
  H.Device = A->Device;
  if (!Hazards.add(H, Opts.MaxPendingHazards))
    ++DroppedRecords;
  return false;
}

void Engine::Impl::reuseOpportunity(const HostClock &H, const StreamState *St, AllocKind Kind,
                                    int Device, Range Bytes, OpId Site) {
  if (Hazards.empty())
    return;
  const VectorClock &Common = Hosts.commonKnowledge();
  std::vector<PendingHazard> Report;
  Hazards.dropIf([&](PendingHazard &Hz) {
    const Epoch &U = Hz.Access.At;
    if (Common.covers(U)) {
      ++HazardsResolved;
      return true;
    }
    bool SameStreamPool = Hz.How == ReleaseKind::CachingAllocator &&
                          Kind == AllocKind::CachingAllocator && St && St->Id == Hz.ReleaseStream;
    bool DevicePool = Hz.How == ReleaseKind::StreamOrdered && Kind == AllocKind::StreamOrdered &&
                      Device == Hz.Device;
    if (!SameStreamPool && !DevicePool && !overlaps(Bytes, Hz.Bytes))
      return false;
    // The allocation's work (a stream-ordered allocation point was enqueued
    // already) and whatever this host knows.
    bool Ordered = St ? Streams.nextWorkOrderedAfter(*St, H, U) : H.Clock.covers(U);
    if (!Ordered) {
      Report.push_back(Hz);
      return true;
    }
    // Every later reuse from R's pool is ordered after R's clock, which only
    // grows. Host knowledge alone is not enough there: with per-thread host
    // knowledge another thread may allocate on R next.
    if (SameStreamPool && St->Clock.covers(U)) {
      ++HazardsResolved;
      return true;
    }
    return false;
  });

  for (const PendingHazard &Hz : Report) {
    Finding F = describeFinding(FindingKind::UnsafeFree, Hz.Bytes, *Hz.Lifetime);
    F.Unordered = AccessPoint{Hz.Access.Stream, Hz.Access.Op};
    F.Released = AccessPoint{Hz.Lifetime->ReleaseStream, Hz.Lifetime->ReleaseSite};
    F.ReusedBy = AccessPoint{St ? St->Id : NoStream, Site};
    Findings.offer(*Hz.Lifetime, F);
    // From now on a new lifetime's access that is not ordered after U is the
    // corruption this unsafe free allows (ReuseRace, AfterUnsafeFree).
    Memory.forEachIn(Hz.Bytes, [&](Addr, Segment &Seg) {
      for (PastAccess &P : Seg.Past)
        if (P.Lifetime == Hz.Lifetime && P.Access == Hz.Access)
          P.UnsafeAtRelease = true;
    });
  }
}

void Engine::Impl::pruneHazards(const VectorClock &Common) {
  Hazards.dropIf([&](const PendingHazard &Hz) {
    if (!Common.covers(Hz.Access.At))
      return false;
    ++HazardsResolved;
    return true;
  });
}

} // namespace rt
} // namespace streamlife
