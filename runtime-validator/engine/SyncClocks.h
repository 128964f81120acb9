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
// bounded: beyond MaxObjects the oldest object is forgotten (counted), which
// can only lose an ordering, never invent one.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_SYNCCLOCKS_H
#define STREAMLIFE_RT_ENGINE_SYNCCLOCKS_H

#include "engine/HostClocks.h"
#include "engine/LoggedClock.h"

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
  LoggedClock Clock;
  /// One per thread that released or acquired the object (a handful: a scan
  /// beats a map).
  std::vector<Mark> Marks;
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
    if (Last && LastSync == Sync)
      return Last;
    auto It = Clocks.find(Sync);
    if (It == Clocks.end())
      return nullptr;
    remember(Sync, It->second);
    return &It->second;
  }
  /// The object is gone (destroyed, or a thread-end token consumed by its join).
  void forget(SyncId Sync) {
    if (LastSync == Sync)
      Last = nullptr;
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
  /// A lock handover is a release and an acquire of one object, most often
  /// one after the other: the second finds it without hashing.
  void remember(SyncId Sync, SyncClock &C) {
    LastSync = Sync;
    Last = &C; // an unordered_map's elements stay put while others come and go
  }
  // forget() drops it with its object; eviction (in release(), after the
  // released object was remembered) never evicts the object just released.
  /// Keep was just created (and pushed last): a stale entry of its id from
  /// an earlier, forgotten object must not evict it.
  void evictBeyondCap(SyncId Keep) {
    while (Clocks.size() > MaxObjects && !Order.empty()) {
      const SyncId Oldest = Order.front();
      Order.pop_front();
      // Never the object remembered by remember(): that is Keep.
      if (Oldest != Keep)
        Evicted += Clocks.erase(Oldest);
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
  SyncId LastSync = 0;
  SyncClock *Last = nullptr; ///< the object of LastSync, null: none
};

} // namespace rt
} // namespace streamlife

#endif
