//===- RedundantSyncFilter.cpp - host sync events the engine would ignore -===//

#include "intercept/RedundantSyncFilter.h"

#include <atomic>

namespace streamlife {
namespace rt {
namespace redundant_sync {
using detail::bucket;
using detail::Buckets;
using detail::Dropped;

void ThreadFilter::destroyQueued(SyncObject Sync) {
  unsigned B = bucket(Sync);
  Buckets[B].Destructions.fetch_add(1, std::memory_order_seq_cst);
  Buckets[B].Releases.fetch_add(1, std::memory_order_seq_cst);
  entry(Sync) = Known{Sync};
}

std::uint64_t dropped() { return Dropped.load(std::memory_order_relaxed); }
void countDropped(bool On) { rt::detail::TheLockEventGate.CountingDropped = On; }

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife
