//===- EngineImpl.h - the engine's state, shared by its rule files -*- C++ -*-===//
//
// Private to engine/. Engine.cpp holds the entry points; the rules live in
// AccessRules.cpp (ReuseRace, UseBeforeAlloc, UseAfterFree), LifetimeRules.cpp
// (allocations, releases, which accesses a release leaves unordered),
// DeferredFrees.cpp (UnsafeFree: at the release, or at the reuse opportunity
// of a caching allocator's block) and
// RecordRetention.cpp (which access records are kept: the memory bound). Every
// member function runs with Mu held.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_ENGINEIMPL_H
#define STREAMLIFE_RT_ENGINE_ENGINEIMPL_H

#include "engine/ConcurrentAllocations.h"
#include "engine/DeferredReleases.h"
#include "engine/Engine.h"
#include "engine/EventTable.h"
#include "engine/FindingQueue.h"
#include "engine/FreeList.h"
#include "engine/FutexMutex.h"
#include "engine/HostClocks.h"
#include "engine/LiveBases.h"
#include "engine/PendingHazards.h"
#include "engine/Shadow.h"
#include "engine/StreamTable.h"
#include "engine/SyncClocks.h"
#include "engine/VectorClock.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace streamlife {
namespace rt {

struct Engine::Impl {
  Impl(FindingSink &Sink, const EngineOptions &Opts);

  FindingSink &Sink;
  EngineOptions Opts;
  /// Not a std::mutex: every engine call takes it (FutexMutex.h).
  mutable FutexMutex Mu;
  /// Storage of the Allocation records: first, so that it outlives every
  /// member that holds one.
  FreeList AllocationRecords;

  SlotAllocator Slots;
  HostClocks Hosts;
  SyncClocks Syncs;
  StreamTable Streams;
  EventTable Events;
  Shadow Memory;
  /// Live allocations by base address (released() names only the base);
  /// most bases have one. A base's list is kept when it empties, so that a
  /// caching allocator's block handed out again allocates nothing here; the
  /// empty ones are dropped at a sweep once the lists outnumber twice the
  /// live allocations plus EmptyBasesKept (RecordRetention.cpp).
  LiveBases LiveByBase;
  std::size_t LiveAllocations = 0;
  AllocId NextAllocation = 1;

  FindingQueue Findings{Opts.MaxRememberedReports};
  std::size_t FindingCount = 0;
  std::size_t DroppedRecords = 0;
  std::size_t OpsSinceSweep = 0;
  std::uint64_t SweptAtVersion = 0;

  void syncDevice(HostClock &H, int Device);
  /// hostReleases, hostAcquires, syncDestroyed or hostFinished. Inline
  /// (always) into Engine::hostSyncs' loop, with SyncClocks::release and
  /// acquire: one frame per replayed run, not three per event (SyncClocks.h).
  [[gnu::always_inline]] inline void hostSync(const HostSync &Event);

  // AccessRules.cpp
  /// Work on S at epoch At touches R (WholeAllocation resolved).
  void access(StreamState &S, Epoch At, Range R, OpId Op);
  /// Only, when set, restricts the access to that allocation's segments.
  void touch(StreamState &S, Epoch At, Range R, OpId Op, const Allocation *Only);
  /// touch() of one segment, which starts at Begin: what a launch does to an
  /// allocation that is one segment, found already.
  void touchSegment(StreamState &S, Epoch At, Addr Begin, Segment &Seg, OpId Op);
  /// Numbers launchedWithPointerWords' calls (from 1): an allocation whose
  /// TouchedByLaunch equals the current number was touched by this launch.
  std::uint64_t LaunchSerial = 0;

  // LifetimeRules.cpp
  void allocate(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device,
                PoolId Pool);
  void release(ThreadId T, Addr Base, ReleaseKind Kind, StreamId S, OpId Site);
  /// Removes and returns the live allocation at Base that Kind releases (the
  /// newest; else the newest of any kind), or null.
  std::shared_ptr<Allocation> takeLive(Addr Base, ReleaseKind Kind);
  void dropEmptyBases();

  // DeferredFrees.cpp
  PendingHazards Hazards;
  ConcurrentAllocations Recent{Opts.MaxConcurrentAllocations, Opts.ChangedSlotJoins};
  DeferredReleases Deferred;
  std::size_t HazardsResolved = 0; ///< dropped unreported: ordered before any reuse
  /// Access Rec of lifetime A (bytes Bytes) is not ordered before A's release,
  /// enqueued on R (null for SyncFree) by thread Releaser: reports it at once
  /// when the release kind says so, or when another thread's earlier
  /// allocation on R not ordered before the release could be handed the
  /// block; else keeps it for the reuse opportunity. Returns true when reported.
  bool unorderedAtRelease(const std::shared_ptr<Allocation> &A, Range Bytes,
                          const AccessRecord &Rec, ReleaseKind Kind, const StreamState *R,
                          const HostClock &Releaser);
  /// An allocation of Kind (from Pool) on St (null: no stream) by host H,
  /// covering Bytes: reports the pending hazards it could reuse while they
  /// are unordered.
  void reuseOpportunity(const HostClock &H, const StreamState *St, AllocKind Kind, PoolId Pool,
                        Range Bytes, OpId Site);
  /// False when reuseOpportunity() would decide no pending hazard (drop or
  /// report none), answered from the hazards' summary without a scan; true
  /// when it may (exactly, but for bytes that overlap only the span of the
  /// hazards' bytes, not any hazard's own).
  bool mayDecideAnyHazard(const StreamState *St, AllocKind Kind, PoolId Pool, Range Bytes);
  /// Drops the hazards every CUDA thread knows to be complete.
  void pruneHazards(const CommonKnowledge &Common);
  void reportUnsafeFree(const std::shared_ptr<Allocation> &A, Range Bytes,
                        const AccessRecord &Rec, AccessPoint ReusedBy, bool Concurrently);
  void markUnsafeAtRelease(const std::shared_ptr<Allocation> &A, Range Bytes,
                           const AccessRecord &Rec);
  void deferredUnreported(const PendingHazard &Hz);

  // RecordRetention.cpp
  /// Inline when the segment keeps no record: the segments an allocation
  /// covers were mostly released with none (a stream-ordered release keeps
  /// only the unsafe accesses), and the call cost more than its work.
  void pruneDead(Segment &Seg, const CommonKnowledge &Common) {
    if (!Seg.Current.empty() || !Seg.Past.empty())
      pruneDeadRecords(Seg, Common);
  }
  void pruneDeadRecords(Segment &Seg, const CommonKnowledge &Common);
  /// pruneDeadRecords of Seg.Past alone (a release skips Current's dead
  /// records as it reads them).
  void pruneDeadPast(Segment &Seg, const CommonKnowledge &Common);
  /// pruneDead() for a caller whose thread's clock, Member, is one of
  /// Common's (Hosts.of()). Common is the meet of its members' clocks, so a
  /// record Member does not cover is not dead: when Member covers none, the
  /// pruning is skipped without asking Common, which recomputes a slot after
  /// every change of any member's clock (CommonKnowledge.h) and the lock
  /// events between two block events nearly always bring one.
  void pruneDeadKnownTo(Segment &Seg, const CommonKnowledge &Common, const VectorClock &Member) {
    // Emptiness first, as pruneDead: most segments a stream-ordered
    // allocation covers keep no record (2 instructions an allocation there).
    if ((!Seg.Current.empty() || !Seg.Past.empty()) && someRecordCoveredBy(Seg, Member))
      pruneDeadRecords(Seg, Common);
  }
  static bool someRecordCoveredBy(const Segment &Seg, const VectorClock &Member) {
    for (const AccessRecord &R : Seg.Current)
      if (Member.covers(R.At))
        return true;
    for (const PastAccess &P : Seg.Past)
      if (Member.covers(P.Access.At))
        return true;
    return false;
  }
  /// Kept is moved in: the caller builds it for this call, and a copy of its
  /// lifetime's shared_ptr cost a locked increment and decrement per record.
  void keepPast(Segment &Seg, PastAccess &&Kept);
  void recordAccess(Segment &Seg, StreamId S, Epoch At, OpId Op, const CommonKnowledge &Common);
  /// Operations between sweeps of the records, at least.
  static constexpr std::size_t MinSweepInterval = 4096;
  /// Live-by-base lists a sweep leaves alone beyond twice the live
  /// allocations, empty or not (RecordRetention.cpp).
  static constexpr std::size_t EmptyBasesKept = 4096;
  /// Every operation counts towards a sweep; inline, as every launch asks.
  void maybeSweep() {
    if (++OpsSinceSweep >= std::max(MinSweepInterval, 2 * Memory.segments()))
      sweep();
  }
  void sweep();
};

} // namespace rt
} // namespace streamlife

#endif
