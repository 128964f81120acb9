//===- SyncClocks.h - clocks of host synchronization objects ----*- C++ -*-===//
//
// ThreadSanitizer's model of host synchronization: a synchronization object (a
// mutex, a semaphore, a thread being created or joined) carries a vector clock.
// Releasing it joins the releasing thread's clock into it; acquiring it joins
// its clock into the acquiring thread's. So a thread that locks a mutex knows
// everything the threads that unlocked it knew, GPU syncs included.
//
// Both joins cost the slots that changed rather than the clock's width (a
// slot per stream and thread, about 140 on FSDP2): the object notes, per
// thread that released it, the position of that thread's clock it holds
// everything up to, and per thread that acquired it, the position of its own
// clock up to which that thread knows it (LoggedClock.h). A release then
// reads only the slots the thread's clock gained since its last release of
// the object, an acquire only the slots the object gained since the thread's
// last acquire; an acquire with nothing new reads none. Clocks of at most
// LoggedClock::NarrowWidth slots join whole: there the bookkeeping costs more
// than the scan. The clocks are exactly those of the plain joins
// (SyncClocksTest plays random sequences against them).
//
// An acquire that learns nothing is decided without reading the object's
// clock: the object's clock is the join of its releasers' clocks at their
// releases, and knowing a thread's epoch means knowing its whole clock then
// (VectorClock.h), so a thread that covers every releaser's latest release
// epoch knows it all (one compare per thread that released it). That is the
// acquire the intercept's RedundantSyncFilter cannot drop: another thread
// released the object since, with news the acquirer had learned otherwise.
//
// Objects are named by an opaque 64-bit id (intercept/ uses the address of the
// mutex or semaphore, or a token for thread start and end). Their memory is
// bounded: beyond MaxObjects an object is forgotten (counted), which can only
// lose an ordering, never invent one. Which one: the oldest that nobody
// released or acquired since the eviction last passed it (a second chance, as
// a page cache's clock hand gives): a program that creates mutexes without
// destroying them (std::mutex never calls pthread_mutex_destroy; FSDP2 locks a
// mutex per tensor) reaches the cap in a long run, and evicting by creation
// alone would then forget its hottest objects, created first (autograd's ready
// queue), over and over. The intercept's RedundantSyncFilter drops a whole
// step's acquires on what one handover through such an object taught.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_SYNCCLOCKS_H
#define STREAMLIFE_RT_ENGINE_SYNCCLOCKS_H

#include "engine/HostClocks.h"
#include "engine/LoggedClock.h"
#include "engine/RecentSyncObjects.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace streamlife {
namespace rt {

using SyncId = std::uint64_t;

/// One synchronization object's clock and how far each thread is in step with it.
struct SyncClock {
  /// How far thread Host and this object were last in step.
  struct Mark {
    ClockSlot Host;
    /// Clock holds the thread's clock as of this position of the thread's clock.
    LoggedClock::Position Released;
    /// The thread's clock holds Clock as of this position of Clock.
    LoggedClock::Position Acquired;
    /// The thread's own time at its latest release of the object (0: none).
    ClockTime ReleasedAt = 0;
  };
  /// Its order of changes is kept from the first acquire that reads them
  /// (LoggedClock::orderWhenAsked): most objects' acquires are decided by
  /// the releasers' epochs or dropped by the intercept's filter.
  LoggedClock Clock;
  /// One per thread that released or acquired the object (a handful: a scan
  /// beats a map).
  std::vector<Mark> Marks;
  /// Released or acquired again since it was created or the eviction last
  /// passed it: it is passed over once more (SyncClocks::evictBeyondCap).
  bool UsedSinceEvictionPass = false;

  SyncClock() { Clock.orderWhenAsked(); }
};

class SyncClocks {
public:
  /// ChangedSlotJoins false: every release and acquire joins the whole clock
  /// (the reference the engine's tests and benchmarks compare with).
  explicit SyncClocks(std::size_t MaxObjects, bool ChangedSlotJoins = true)
      : MaxObjects(MaxObjects ? MaxObjects : 1), ChangedSlotJoins(ChangedSlotJoins) {}

  /// H releases Sync: Sync's clock joins H's (created on first use).
  void release(HostClock &H, SyncId Sync);
  /// H acquires C (from find()): H's clock joins C's. Returns whether H's
  /// clock grew (the caller ticks it: HostClocks::learned).
  bool acquire(HostClock &H, SyncClock &C);

  /// Null when Sync was never released (acquiring it orders nothing).
  SyncClock *find(SyncId Sync) {
    if (SyncClock *C = Recent.find(Sync))
      return C;
    auto It = Clocks.find(Sync);
    if (It == Clocks.end())
      return nullptr;
    Recent.remember(Sync, It->second);
    return &It->second;
  }
  /// The object is gone (destroyed, or a thread-end token consumed by its join).
  void forget(SyncId Sync) {
    Recent.forget(Sync);
    Clocks.erase(Sync);
  }

  std::size_t size() const { return Clocks.size(); }
  std::size_t forgotten() const { return Evicted; }
  /// Releases and acquires that read a whole clock rather than the slots
  /// that changed (first contact between a thread and an object, or clocks
  /// too narrow for the bookkeeping to pay).
  std::uint64_t wholeClockJoins() const { return WholeClockJoins; }
  /// Acquires decided by the releasers' epochs, without reading the clock.
  std::uint64_t acquiresKnownByEpochs() const { return KnownByEpochs; }

private:
  /// Narrow clocks join whole: there the marks cost more than the scan.
  /// Skipping them leaves older marks in place, which stay true (clocks only
  /// grow).
  static bool narrow(const LoggedClock &A, const LoggedClock &B) { return A.narrow() && B.narrow(); }
  /// Thread Host's mark, created as Unknown (the first contact reads whole clocks).
  static SyncClock::Mark &markOf(SyncClock &C, ClockSlot Host) {
    for (SyncClock::Mark &M : C.Marks)
      if (M.Host == Host)
        return M;
    C.Marks.push_back(SyncClock::Mark{Host, LoggedClock::Unknown, LoggedClock::Unknown});
    return C.Marks.back();
  }
  /// Into joins From's clock, which it held as of position Held of From:
  /// the slots that grew in From since, or the whole clock where From's
  /// order does not reach back there. Returns whether Into grew.
  bool joinSince(LoggedClock &Into, const LoggedClock &From, LoggedClock::Position Held) {
    if (From.readsChangesSince(Held))
      return Into.absorbChangesSince(From, Held);
    ++WholeClockJoins;
    return Into.absorb(From);
  }
  /// Keep was just created (and pushed last): a stale entry of its id from
  /// an earlier, forgotten object must not evict it. An object used since the
  /// last pass goes to the back with its mark cleared; every live object has
  /// an entry in Order, so the loop ends within two passes.
  void evictBeyondCap(SyncId Keep) {
    while (Clocks.size() > MaxObjects && !Order.empty()) {
      const SyncId Oldest = Order.front();
      Order.pop_front();
      if (Oldest == Keep) {
        Order.push_back(Oldest);
        continue;
      }
      auto It = Clocks.find(Oldest);
      if (It == Clocks.end())
        continue; // a stale entry of a forgotten object
      if (It->second.UsedSinceEvictionPass) {
        It->second.UsedSinceEvictionPass = false;
        Order.push_back(Oldest);
        continue;
      }
      Recent.forget(Oldest);
      Clocks.erase(It);
      ++Evicted;
    }
    // Forgotten and re-created ids leave stale entries in Order: compact
    // when it grows well beyond the live objects.
    if (Order.size() > 2 * MaxObjects + 64) {
      std::deque<SyncId> Kept;
      std::unordered_set<SyncId> Seen;
      for (auto It = Order.rbegin(); It != Order.rend(); ++It)
        if (Clocks.count(*It) && Seen.insert(*It).second)
          Kept.push_front(*It);
      Order.swap(Kept);
    }
  }

  std::size_t MaxObjects;
  bool ChangedSlotJoins;
  std::uint64_t KnownByEpochs = 0;
  std::unordered_map<SyncId, SyncClock> Clocks;
  std::deque<SyncId> Order; ///< creation order, for eviction (may hold forgotten ids)
  std::size_t Evicted = 0;
  std::uint64_t WholeClockJoins = 0;
  /// The objects used lately: a lock handover's acquire finds the object its
  /// release just used, and a release most often one used a few events ago.
  RecentSyncObjects<SyncClock> Recent;
};

// release() and acquire() are inline (always: the compiler leaves them out of
// line at their size) into Engine::hostSyncs, the replay of queued lock
// events, together with its dispatch (Engine::Impl::hostSync): a frame per
// call, its register saves and restores, cost about 15 instructions per
// event each (bench/runtime/README.md, "Host synchronization on the CPU").
// LoggedClock::absorbChangesSince stays out of line: inlined, it cost more than
// its frame (the walk's registers spill).

[[gnu::always_inline]] inline void SyncClocks::release(HostClock &H, SyncId Sync) {
  bool Inserted = false;
  SyncClock *Known = Recent.find(Sync);
  if (!Known) {
    auto [It, New] = Clocks.try_emplace(Sync);
    Inserted = New;
    Known = &It->second;
    Recent.remember(Sync, *Known);
    if (Inserted) {
      Order.push_back(Sync);
      evictBeyondCap(Sync);
    }
  }
  SyncClock &C = *Known;
  // A new object starts unmarked: one used once (a tensor's mutex) goes before
  // one used again (a queue's), which a mark at creation would make equal.
  C.UsedSinceEvictionPass = !Inserted;
  if (!ChangedSlotJoins) {
    if (!C.Clock.covers(H.now())) {
      ++WholeClockJoins;
      C.Clock.absorb(H.Clock);
    }
    return;
  }
  // Every release notes its epoch, narrow clocks' too: the epochs decide an
  // acquire only while they name every release of the object.
  SyncClock::Mark &M = markOf(C, H.Slot);
  M.ReleasedAt = H.Clock.get(H.Slot);
  // Whoever knows H's latest epoch knows H's whole clock (VectorClock.h), so
  // a repeated release with nothing learned in between costs one compare.
  if (narrow(H.Clock, C.Clock)) {
    if (!C.Clock.covers(H.now())) {
      ++WholeClockJoins;
      C.Clock.absorb(H.Clock);
    }
    return;
  }
  const bool KnewAll = Inserted || M.Acquired == C.Clock.position();
  if (!C.Clock.covers(H.now()))
    joinSince(C.Clock, H.Clock, M.Released);
  M.Released = H.Clock.position();
  // H knew the object's old clock and its own: it knows the joined one.
  if (KnewAll)
    M.Acquired = C.Clock.position();
}

[[gnu::always_inline]] inline bool SyncClocks::acquire(HostClock &H, SyncClock &C) {
  C.UsedSinceEvictionPass = true;
  if (!ChangedSlotJoins || narrow(H.Clock, C.Clock)) {
    ++WholeClockJoins;
    return H.Clock.absorb(C.Clock);
  }
  SyncClock::Mark &M = markOf(C, H.Slot);
  if (M.Acquired == C.Clock.position())
    return false; // nothing released into it since H last knew it all
  // The epochs cost a compare per releaser; the walk below one per change
  // since H's last acquire (a position counts changes). Ask the epochs only
  // where the walk would read more (first contact: the whole clock).
  const bool FewChanges = M.Acquired != LoggedClock::Unknown &&
                          C.Clock.position() - M.Acquired <= C.Marks.size();
  bool KnowsEveryRelease = !FewChanges;
  if (KnowsEveryRelease)
    for (const SyncClock::Mark &R : C.Marks)
      if (H.Clock.get(R.Host) < R.ReleasedAt) {
        KnowsEveryRelease = false;
        break;
      }
  if (KnowsEveryRelease) {
    STREAMLIFE_DCHECK(H.Clock.dominates(C.Clock));
    ++KnownByEpochs;
    M.Acquired = C.Clock.position();
    return false;
  }
  // Read by its changes from now on: keep their order (this first read joins
  // the whole clock where the order starts after M.Acquired).
  C.Clock.keepOrder();
  const bool Grew = joinSince(H.Clock, C.Clock, M.Acquired);
  M.Acquired = C.Clock.position();
  return Grew;
}

} // namespace rt
} // namespace streamlife

#endif
