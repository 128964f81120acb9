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

unsigned bucket(SyncObject Sync) {
  return static_cast<unsigned>(((Sync >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - BucketBits));
}

/// What the calling thread knows of one object.
struct Known {
  SyncObject Sync = 0;
  /// The bucket's release count up to which the thread knows the object's
  /// whole clock (Never: not known).
  std::uint64_t Releases = Never;
  /// The thread's change count when it last released the object, and the
  /// bucket's destruction count then (Never: not released).
  std::uint64_t ChangesAtRelease = Never;
  std::uint64_t DestructionsAtRelease = Never;
};

constexpr unsigned CacheBits = 6;
thread_local Known Cache[1u << CacheBits];
thread_local std::uint64_t Changes = 0;

Known &entry(SyncObject Sync) {
  Known &K = Cache[(Sync >> 3) & ((1u << CacheBits) - 1)];
  if (K.Sync != Sync)
    K = Known{Sync};
  return K;
}

} // namespace

void clockMayChange() { ++Changes; }

bool releaseIsRedundant(SyncObject Sync) {
  Known &K = entry(Sync);
  if (K.ChangesAtRelease != Changes ||
      K.DestructionsAtRelease != Destructions[bucket(Sync)].load(std::memory_order_seq_cst))
    return false;
  Dropped.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void releaseQueued(SyncObject Sync) {
  Known &K = entry(Sync);
  unsigned B = bucket(Sync);
  std::uint64_t Before = Releases[B].fetch_add(1, std::memory_order_seq_cst);
  // The object's clock is now its old clock joined with ours: we know all of
  // it when we knew all of the old one.
  K.Releases = K.Releases == Before ? Before + 1 : Never;
  K.ChangesAtRelease = Changes;
  K.DestructionsAtRelease = Destructions[B].load(std::memory_order_seq_cst);
}

AcquireCheck checkAcquire(SyncObject Sync) {
  Known &K = entry(Sync);
  std::uint64_t Seen = Releases[bucket(Sync)].load(std::memory_order_seq_cst);
  bool Redundant = K.Releases == Seen;
  if (Redundant)
    Dropped.fetch_add(1, std::memory_order_relaxed);
  return {Redundant, Seen};
}

void acquireQueued(SyncObject Sync, std::uint64_t Seen) { entry(Sync).Releases = Seen; }

void destroyQueued(SyncObject Sync) {
  unsigned B = bucket(Sync);
  Destructions[B].fetch_add(1, std::memory_order_seq_cst);
  Releases[B].fetch_add(1, std::memory_order_seq_cst);
  entry(Sync) = Known{Sync};
}

std::uint64_t dropped() { return Dropped.load(std::memory_order_relaxed); }

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife
