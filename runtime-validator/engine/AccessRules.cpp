//===- AccessRules.cpp - ReuseRace, UseBeforeAlloc, UseAfterFree ----------===//
//
// What an access enqueued on a stream is checked against:
//   * a released range: UseAfterFree (the release was enqueued before it);
//   * a live range: every access of earlier lifetimes that the segment still
//     keeps (Segment::Past, chosen at the release, LifetimeRules.cpp) must be
//     ordered before it, or the new lifetime's work overwrites or reads bytes
//     the old work still uses: ReuseRace;
//   * a stream-ordered allocation: the allocation point on its stream must be
//     ordered before it: UseBeforeAlloc. Only AllocKind::StreamOrdered: there
//     the allocation is an operation on its stream. A caching allocator's
//     allocation is a host-side decision whose hazard is the ReuseRace above
//     (FBGEMM's fresh temporary written from another stream).
// Then the access is recorded (RecordRetention.cpp).
//
//===----------------------------------------------------------------------===//

#include "engine/EngineImpl.h"

namespace streamlife {
namespace rt {

void Engine::Impl::touch(StreamState &S, Epoch At, Range R, OpId Op, const Allocation *Only) {
  Memory.forEachIn(R, [&](Addr Begin, Segment &Seg) {
    if (Only && Seg.Owner.get() != Only)
      return;
    touchSegment(S, At, Begin, Seg, Op);
  });
}

void Engine::Impl::touchSegment(StreamState &S, Epoch At, Addr Begin, Segment &Seg, OpId Op) {
  const CommonKnowledge &Common = Hosts.common();
  Allocation &A = *Seg.Owner;
  Range Bytes{Begin, Seg.End - Begin};
  if (!Seg.Live) {
    Finding F = describeFinding(FindingKind::UseAfterFree, Bytes, A);
    F.Released = AccessPoint{A.ReleaseStream, A.ReleaseSite};
    F.NewAccess = AccessPoint{S.Id, Op};
    Findings.offer(A, F);
    return;
  }

  for (std::size_t I = 0; I < Seg.Past.size();) {
    const PastAccess &Before = Seg.Past[I];
    if (Common.covers(Before.Access.At)) {
      Seg.Past.erase(Seg.Past.begin() + I);
      continue;
    }
    ++I;
    if (S.Clock.covers(Before.Access.At))
      continue;
    const Allocation &Old = *Before.Lifetime;
    Finding F = describeFinding(FindingKind::ReuseRace, Bytes, Old);
    F.Unordered = AccessPoint{Before.Access.Stream, Before.Access.Op};
    F.Released = AccessPoint{Old.ReleaseStream, Old.ReleaseSite};
    F.NewAccess = AccessPoint{S.Id, Op};
    F.AfterUnsafeFree = Before.UnsafeAtRelease;
    F.NewAllocation = A.Bytes;
    F.Reallocated = AccessPoint{A.Stream, A.Site};
    Findings.offer(A, F, Old.Id);
  }

  if (A.Kind == AllocKind::StreamOrdered && A.Point.Slot != NoSlot && !S.Clock.covers(A.Point)) {
    Finding F = describeFinding(FindingKind::UseBeforeAlloc, Bytes, A);
    F.NewAccess = AccessPoint{S.Id, Op};
    Findings.offer(A, F);
  }

  recordAccess(Seg, S.Id, At, Op, Common);
}

void Engine::Impl::access(StreamState &S, Epoch At, Range R, OpId Op) {
  if (R.Size != WholeAllocation) {
    if (R.Begin + R.Size < R.Begin) // wraps around: clamp
      R.Size = ~Addr(0) - R.Begin;
    touch(S, At, R, Op, nullptr);
    return;
  }
  if (!Memory.mayContain(R.Begin))
    return;
  Segment *Seg = Memory.find(R.Begin);
  if (!Seg)
    return;
  // A raw pointer is enough: touch() only splits segments, which copies
  // owners; nothing it does can drop the last reference.
  const Allocation *Owner = Seg->Owner.get();
  touch(S, At, Owner->Bytes, Op, Owner);
}

} // namespace rt
} // namespace streamlife
