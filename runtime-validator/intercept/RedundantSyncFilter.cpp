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

std::uint64_t dropped() { return Dropped.load(std::memory_order_relaxed); }
void countDropped(bool On) { detail::CountingDropped = On; }

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife
