//===- LifetimeRules.cpp - allocations, releases and UnsafeFree -----------===//
//
// A lifetime starts at allocated() and ends at released() (or when a new
// allocation of the same kind covers live bytes: a free we did not see).
//
// At a release on stream R, an access of the lifetime by another stream that
// is not ordered before R's next work (R's clock, the releasing host's
// knowledge, the implicit legacy-stream ordering) may still run when the
// memory is handed out again. For a caching allocator's block, whether it is
// handed out while the access runs is decided at the allocations that could
// get the bytes (DeferredFrees.cpp): other threads' allocations on R not
// ordered before the release, and every later one. Every allocation is such
// a reuse opportunity for some pending hazards, so allocate() asks first,
// before the new lifetime exists; and a caching allocation is remembered for
// releases by other threads that do not happen after it
// (ConcurrentAllocations.h). Other releases are decided at once.
//
// What a new lifetime must be ordered after (Segment::Past). An access left
// unordered by the release is always kept: the next lifetime's accesses that
// are not ordered after it are the corruption itself (ReuseRace; marked
// AfterUnsafeFree once the deferred verdict reported the release). A caching allocator hands
// a released block to the next allocation on its stream A with no ordering at
// all, so for CachingAllocator releases every still-live access is kept too: a
// new lifetime first used on a stream B that never waited on A races with A's
// old accesses. Except those the releasing thread knows completed (it
// synchronized with them): the block is handed out after the release, so
// after they ended, whichever thread gets it. The driver's stream-ordered pools order reuse themselves (stream
// order, event dependencies, or a completed free), and a synchronous cudaFree
// synchronized the device, so there only the unsafe accesses are kept, and
// older lifetimes' accesses that this release is ordered after are dropped.
//
//===----------------------------------------------------------------------===//

#include "engine/EngineImpl.h"

#include <algorithm>

namespace streamlife {
namespace rt {

namespace {

/// Which release kinds free which allocation kinds (a caching allocator's blocks
/// may sit inside a cudaMalloc'd segment that starts at the same address).
bool releases(ReleaseKind R, AllocKind A) {
  switch (R) {
  case ReleaseKind::SyncFree:
    return A == AllocKind::Device || A == AllocKind::Managed;
  case ReleaseKind::StreamOrdered:
    return A == AllocKind::StreamOrdered;
  case ReleaseKind::CachingAllocator:
    return A == AllocKind::CachingAllocator;
  }
  return false;
}

bool sameKindClass(AllocKind A, AllocKind B) {
  auto Class = [](AllocKind K) { return K == AllocKind::Managed ? AllocKind::Device : K; };
  return Class(A) == Class(B);
}

} // namespace

std::shared_ptr<Allocation> Engine::Impl::takeLive(Addr Base, ReleaseKind Kind) {
  LiveBases::Lives *At = LiveByBase.find(Base);
  if (!At)
    return nullptr;
  LiveBases::Lives &Here = *At;
  auto Newest = [&](auto &&Eligible) {
    auto Best = Here.end();
    for (auto It = Here.begin(); It != Here.end(); ++It)
      if (Eligible(**It) && (Best == Here.end() || (*It)->Id > (*Best)->Id))
        Best = It;
    return Best;
  };
  auto Best = Newest([&](const Allocation &A) { return releases(Kind, A.Kind); });
  // The intercept layer may not know what kind the pointer is (cudaFree of a
  // pool pointer): fall back to the newest live allocation at Base.
  if (Best == Here.end())
    Best = Newest([](const Allocation &) { return true; });
  if (Best == Here.end())
    return nullptr;
  std::shared_ptr<Allocation> Taken = std::move(*Best);
  Here.erase(Best);
  --LiveAllocations;
  return Taken;
}

void Engine::Impl::dropEmptyBases() { LiveByBase.dropEmpty(); }

void Engine::Impl::allocate(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device,
                            PoolId Pool) {
  if (R.Size == 0 || R.Size == WholeAllocation || R.Begin + R.Size < R.Begin)
    return;
  HostClock &H = Hosts.of(T);
  auto A = std::allocate_shared<Allocation>(FreeListAllocator<Allocation>(AllocationRecords));
  A->Id = NextAllocation++;
  A->Bytes = R;
  A->Kind = Kind;
  A->Pool = Pool;
  A->Device = Device;
  A->Site = Site;
  StreamState *St = Streams.live(S);
  if (St) {
    A->Stream = St->Id;
    A->Point = Kind == AllocKind::StreamOrdered ? Streams.enqueue(*St, H) : St->now();
  }
  reuseOpportunity(H, St, Kind, Pool, R, Site);
  // Single-threaded programs need no history: a thread created later starts
  // ordered after everything its creator did.
  if (Kind == AllocKind::CachingAllocator && St && Hosts.threads() > 1 &&
      !Recent.record(St->Id, H, Hosts.stamp(H), Site, Pool))
    ++DroppedRecords;

  // Bytes that were still live end their old lifetime here. For an
  // allocation of the same kind (a free we did not see, an allocator reusing
  // its own memory) the old accesses become Past: the new lifetime must be
  // ordered after them. A block carved out of a live allocation of another
  // kind (a caching allocator's block inside its cudaMalloc'd segment) does
  // not inherit the segment's accesses: those were attributed to the whole
  // segment before the allocator's blocks were known (a pointer names an
  // allocation, not bytes), so they would make every first block a race.
  const CommonKnowledge &Common = Hosts.common();
  // The records an allocation finds are mostly its bytes' last lifetime's
  // newest accesses, which its own thread does not know yet: asked of H
  // first (a member of Common: Hosts.of()), they are kept without a
  // recomputation of the common knowledge.
  STREAMLIFE_DCHECK(H.UsesCuda);
  const bool Covered = Memory.forEachIn(R, [&](Addr, Segment &Seg) {
    pruneDeadKnownTo(Seg, Common, H.Clock.clock());
    if (Seg.Live && sameKindClass(Seg.Owner->Kind, Kind))
      for (const AccessRecord &Rec : Seg.Current)
        keepPast(Seg, PastAccess{Rec, Seg.Owner, false});
    Seg.Current.clear();
    Seg.Owner = A;
    Seg.Live = true;
  });
  if (!Covered)
    Memory.fillGaps(R, A);

  // An older live allocation of the same kind fully inside R lost all its
  // bytes: it can no longer be released, so stop tracking it.
  LiveBases::Lives &Here = LiveByBase.findOrMake(R.Begin);
  const std::size_t Before = Here.size();
  Here.erase(std::remove_if(Here.begin(), Here.end(),
                            [&](const std::shared_ptr<Allocation> &Old) {
                              return sameKindClass(Old->Kind, Kind) && Old->Bytes.end() <= R.end();
                            }),
             Here.end());
  LiveAllocations -= Before - Here.size();
  Here.push_back(std::move(A));
  ++LiveAllocations;
}

void Engine::Impl::release(ThreadId T, Addr Base, ReleaseKind Kind, StreamId S, OpId Site) {
  HostClock &H = Hosts.of(T);
  // Forgotten as live at once: nothing below looks it up by its base, and
  // one lookup does where a find and a forget took two.
  std::shared_ptr<Allocation> A = takeLive(Base, Kind);
  if (Kind == ReleaseKind::SyncFree) {
    // cudaFree synchronizes the device before it frees. For a pointer we do
    // not track we still know the device if its bytes were ever tracked.
    int Device = 0;
    bool Known = false;
    if (A) {
      Device = A->Device;
      Known = true;
    } else if (const Segment *Seg = Memory.find(Base)) {
      Device = Seg->Owner->Device;
      Known = true;
    }
    if (Known)
      syncDevice(H, Device);
  }
  if (!A)
    return; // untracked pointer or a double free: not this engine's rules

  // A caching allocator's block goes back to its allocation stream's pool,
  // whatever handle the allocator names: the handle may already be destroyed
  // (CuPy frees blocks after their stream died).
  if (Kind == ReleaseKind::CachingAllocator && A->Stream != NoStream)
    S = A->Stream;
  StreamState *R = Kind == ReleaseKind::SyncFree ? nullptr : Streams.live(S);
  if (R && Kind == ReleaseKind::StreamOrdered)
    Streams.enqueue(*R, H); // the free is an operation on R
  // A destroyed stream allocates nothing any more: its pool's blocks cannot
  // be handed out again on it, so nothing is left to judge.
  const bool NoReuse = Kind == ReleaseKind::CachingAllocator && !R && A->Stream != NoStream;
  // Set before the rules run: a report made at the release names it.
  A->ReleaseStream = R ? R->Id : NoStream;
  A->ReleaseSite = Site;
  // The release point: R's clock joined with the releasing host's knowledge
  // (and the legacy-stream ordering R's next work inherits).
  auto OrderedBeforeRelease = [&](const AccessRecord &Rec) {
    if (R)
      return Rec.Stream == R->Id || Streams.nextWorkOrderedAfter(*R, H, Rec.At);
    return H.Clock.covers(Rec.At);
  };
  const bool KeepOrderedAccesses = Kind == ReleaseKind::CachingAllocator;

  const CommonKnowledge &Common = Hosts.common();
  Memory.forEachIn(A->Bytes, [&](Addr Begin, Segment &Seg) {
    if (Seg.Owner != A || !Seg.Live)
      return;
    // Not asked of H first (pruneDeadKnownTo), as at an allocation: a
    // released lifetime's records are mostly known to the releasing thread
    // by now, and the question only added its cost (+8 a release). Only
    // Past is pruned (before keepPast reads it below): a record of Current
    // that the common knowledge covers is covered by H, one of its members
    // (Hosts.of()), so the loop below neither finds it unordered nor keeps
    // it, and Current is cleared after it.
    if (!Seg.Past.empty())
      pruneDeadPast(Seg, Common);
    if (!KeepOrderedAccesses) {
      // The next lifetime will be ordered after this release (driver pool,
      // device sync), so older lifetimes' accesses ordered before it are done.
      Seg.Past.erase(std::remove_if(Seg.Past.begin(), Seg.Past.end(),
                                    [&](const PastAccess &Old) {
                                      return OrderedBeforeRelease(Old.Access);
                                    }),
                     Seg.Past.end());
    }
    for (const AccessRecord &Rec : Seg.Current) {
      bool Unordered = !NoReuse && !OrderedBeforeRelease(Rec);
      // Reported now or when a reuse opportunity comes; the Past record's
      // flag follows the report (DeferredFrees.cpp).
      bool Reported = Unordered && unorderedAtRelease(A, Range{Begin, Seg.End - Begin}, Rec,
                                                      Kind, R, H);
      if (Unordered || (KeepOrderedAccesses && !H.Clock.covers(Rec.At)))
        keepPast(Seg, PastAccess{Rec, A, Reported});
    }
    Seg.Current.clear();
    Seg.Live = false;
  });
  A->Released = true;
  A->HowReleased = Kind;
  A->ReleaseStream = R ? R->Id : NoStream;
  A->ReleaseSite = Site;
}

} // namespace rt
} // namespace streamlife
