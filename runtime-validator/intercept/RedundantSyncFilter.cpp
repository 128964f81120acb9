//===- RedundantSyncFilter.cpp - host sync events the engine would ignore -===//

#include "intercept/RedundantSyncFilter.h"

#include <atomic>

namespace streamlife {
namespace rt {
namespace redundant_sync {
using detail::bucket;
using detail::Destructions;
using detail::Dropped;
using detail::Releases;

void ThreadFilter::destroyQueued(SyncObject Sync) {
  unsigned B = bucket(Sync);
  Destructions[B].fetch_add(1, std::memory_order_seq_cst);
  Releases[B].fetch_add(1, std::memory_order_seq_cst);
  entry(Sync) = Known{Sync};
}

void ThreadFilter::queued(Queued What) {
  ++QueuedCount;
  switch (What) {
  case Queued::Release:
    // Engine: the object's clock joins ours, and the next stamp will tick.
    PendingStamp = true;
    return;
  case Queued::Acquire:
    clockMayChange(); // it may learn
    return;
  case Queued::Destruction:
  case Queued::ReleaseRequest:
    return;
  case Queued::ThreadEnd:
    MayJoin = true; // no longer counted: a later CUDA operation joins again
    return;
  case Queued::Allocation:
    // Engine::Impl::allocate: joins on first use, stamps a caching block.
    if (PendingStamp || MayJoin)
      clockMayChange();
    return;
  case Queued::BlockRelease:
  case Queued::Access:
    // Engine::Impl::release / Engine::accessed: only the first use joins (a
    // synchronous free is a CUDA call, never queued).
    if (MayJoin)
      clockMayChange();
    return;
  }
  clockMayChange();
}

std::uint64_t dropped() { return Dropped.load(std::memory_order_relaxed); }
void countDropped(bool On) { detail::CountingDropped = On; }

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife
