//===- RedundantSyncFilter.cpp - host sync events the engine would ignore -===//

#include "intercept/RedundantSyncFilter.h"

#include <atomic>

namespace streamlife {
namespace rt {
namespace redundant_sync {
namespace {

constexpr unsigned BucketBits = 14;
constexpr std::uint64_t Never = ~std::uint64_t(0);

/// Releases and destructions queued, per bucket of objects.
std::atomic<std::uint64_t> Releases[1u << BucketBits];
/// Destructions queued, per bucket: a destroyed object's clock is forgotten,
/// so a release after it is never redundant.
std::atomic<std::uint64_t> Destructions[1u << BucketBits];
std::atomic<std::uint64_t> Dropped{0};
bool CountingDropped = false;

void countDrop() {
  if (CountingDropped)
    Dropped.fetch_add(1, std::memory_order_relaxed);
}

unsigned bucket(SyncObject Sync) {
  return static_cast<unsigned>(((Sync >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - BucketBits));
}

} // namespace


ThreadFilter::Known &ThreadFilter::entry(SyncObject Sync) {
  Known &K = Cache[(Sync >> 3) & ((1u << CacheBits) - 1)];
  if (K.Sync != Sync)
    K = Known{Sync};
  return K;
}

bool ThreadFilter::releaseIsRedundant(SyncObject Sync) {
  Known &K = entry(Sync);
  if (K.ChangesAtRelease != Changes ||
      K.DestructionsAtRelease != Destructions[bucket(Sync)].load(std::memory_order_seq_cst))
    return false;
  // The engine's flag is set already (nothing ticked since the release this
  // one repeats); noted anyway, it only makes the next allocation count.
  PendingStamp = true;
  countDrop();
  return true;
}

void ThreadFilter::releaseQueued(SyncObject Sync) {
  Known &K = entry(Sync);
  unsigned B = bucket(Sync);
  std::uint64_t Before = Releases[B].fetch_add(1, std::memory_order_seq_cst);
  // The object's clock is now its old clock joined with ours: we know all of
  // it when we knew all of the old one.
  K.Releases = K.Releases == Before ? Before + 1 : Never;
  K.ChangesAtRelease = Changes;
  K.DestructionsAtRelease = Destructions[B].load(std::memory_order_seq_cst);
}

AcquireCheck ThreadFilter::checkAcquire(SyncObject Sync) {
  Known &K = entry(Sync);
  std::uint64_t Seen = Releases[bucket(Sync)].load(std::memory_order_seq_cst);
  bool Redundant = K.Releases == Seen;
  if (Redundant)
    countDrop();
  return {Redundant, Seen};
}

void ThreadFilter::acquireQueued(SyncObject Sync, std::uint64_t Seen) { entry(Sync).Releases = Seen; }

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
void countDropped(bool On) { CountingDropped = On; }

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife
