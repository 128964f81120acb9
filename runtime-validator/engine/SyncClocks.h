//===- SyncClocks.h - clocks of host synchronization objects ----*- C++ -*-===//
//
// ThreadSanitizer's model of host synchronization: a synchronization object (a
// mutex, a semaphore, a thread being created or joined) carries a vector clock.
// Releasing it joins the releasing thread's clock into it; acquiring it joins
// its clock into the acquiring thread's. So a thread that locks a mutex knows
// everything the threads that unlocked it knew, GPU syncs included.
//
// Objects are named by an opaque 64-bit id (intercept/ uses the address of the
// mutex or semaphore, or a token for thread start and end). Their memory is
// bounded: beyond MaxObjects the oldest object is forgotten (counted), which
// can only lose an ordering, never invent one.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_SYNCCLOCKS_H
#define STREAMLIFE_RT_ENGINE_SYNCCLOCKS_H

#include "engine/VectorClock.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace streamlife {
namespace rt {

using SyncId = std::uint64_t;

class SyncClocks {
public:
  explicit SyncClocks(std::size_t MaxObjects) : MaxObjects(MaxObjects ? MaxObjects : 1) {}

  /// The clock of Sync, created empty on first use.
  VectorClock &get(SyncId Sync) {
    auto [It, Inserted] = Clocks.try_emplace(Sync);
    if (Inserted) {
      Order.push_back(Sync);
      evictBeyondCap();
    }
    return It->second;
  }
  /// Null when Sync was never released (acquiring it orders nothing).
  const VectorClock *find(SyncId Sync) const {
    auto It = Clocks.find(Sync);
    return It == Clocks.end() ? nullptr : &It->second;
  }
  /// The object is gone (destroyed, or a thread-end token consumed by its join).
  void forget(SyncId Sync) { Clocks.erase(Sync); }

  std::size_t size() const { return Clocks.size(); }
  std::size_t forgotten() const { return Evicted; }

private:
  void evictBeyondCap() {
    while (Clocks.size() > MaxObjects && !Order.empty()) {
      Evicted += Clocks.erase(Order.front());
      Order.pop_front();
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
  std::unordered_map<SyncId, VectorClock> Clocks;
  std::deque<SyncId> Order; ///< creation order, for eviction (may hold forgotten ids)
  std::size_t Evicted = 0;
};

} // namespace rt
} // namespace streamlife

#endif
