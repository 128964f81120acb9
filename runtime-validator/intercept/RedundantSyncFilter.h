//===- RedundantSyncFilter.h - host sync events the engine would ignore -*- C++ -*-===//
//
// The thread interposers (InterceptThreads.cpp) see every lock the program
// takes, and most of a framework's lock traffic is one thread taking the same
// lock again and again with nothing learned in between (measured on FSDP2,
// one rank, an H200: 209,338 host synchronization events in 22 steps, about
// half the validator's time, each one a vector-clock join as wide as the
// process's streams and threads when the engine replays it). In the engine's
// model (engine/SyncClocks.h) two kinds of those events change nothing:
//   * a release by a thread whose clock has not changed since it last released
//     the same object: the object's clock already holds that clock (a release
//     only joins into it), and the thread's next stamp ticks already;
//   * an acquire by a thread that already knows the object's whole clock: no
//     other release of it has been queued since the thread last acquired it,
//     or released it while knowing all of it.
// The filter drops exactly those before they are queued, so the engine's
// clocks are the same with and without it (RedundantSyncFilterTest checks
// that against a model of the engine, SyncFilterEngineTest against the real
// engine fed through the real queue).
//
// "The thread's clock has not changed" must be known when a release is
// queued, before the engine has seen the thread's earlier queued events. The
// filter counts the points where it may have changed, as the engine will
// apply the thread's events (one thread's events are applied in the order it
// queued them and made its CUDA calls):
//   * a CUDA call: the engine publishes each thread's own time, lock-free
//     (Engine::hostStateWord), and every change of a clock ticks it
//     (VectorClock.h): the call changed the clock when the time read after
//     it differs from the time read when it began. A launch, a record, a wait
//     or an async copy changes nothing: only a stream learns the thread's
//     clock;
//   * an acquire queued: it may learn;
//   * a caching allocation queued: it stamps (HostClocks::stamp), which ticks
//     when the thread released something since its last tick;
//   * any block event that enters the engine (an allocation, a release, a
//     declared access) queued by a thread the engine does not count as a CUDA
//     thread yet: it joins the common knowledge;
//   * not a release, a destruction, a thread's end or a release request: the
//     engine only notes the release for the next stamp, forgets an object,
//     or accounts the block.
// What the engine will do with the thread's next queued events (whether it
// released since its last tick, whether it counts as a CUDA thread) is
// mirrored from those events and read back from the engine after each CUDA
// call that applied all of them. A point counted where nothing changed only
// keeps an event the engine would ignore. (The engine forgets the oldest
// objects beyond EngineOptions::MaxSyncObjects; a release of a forgotten
// object that the filter drops leaves it forgotten: an ordering lost, which
// can only add findings.)
//
// What it keeps, per thread, is a small direct-mapped cache of the objects it
// synchronized on last; across threads, a counter per bucket of objects of the
// releases and destructions queued (a bucket shared by two objects only makes
// the filter drop less).
//
// Ordering: a release is queued before it is counted, and an acquire reads the
// count before it is queued, so a counted release is always in the queue ahead
// of an acquire that saw its count.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_REDUNDANTSYNCFILTER_H
#define STREAMLIFE_RT_INTERCEPT_REDUNDANTSYNCFILTER_H

#include "engine/Engine.h"

#include <atomic>
#include <cstdint>

namespace streamlife {
namespace rt {
namespace redundant_sync {

using SyncObject = std::uint64_t;

/// An event a thread queued, as the filter tells them apart.
enum class Queued : std::uint8_t {
  Release,        ///< HostReleased
  Acquire,        ///< HostAcquired
  Destruction,    ///< SyncDestroyed
  ThreadEnd,      ///< HostFinished
  Allocation,     ///< a block allocated
  ReleaseRequest, ///< the owner let go: accounting only, no engine call
  BlockRelease,   ///< a block back in its allocator
  Access,         ///< an access the allocator declared
};

/// Before an acquire of Sync: the release count that acquireQueued needs, and
/// whether the acquire would change nothing (then do not queue it).
struct AcquireCheck {
  bool Redundant;
  std::uint64_t Seen;
};

/// One thread's filter: thread-local in the runtime (thisThread()); tests and
/// benchmarks that play several threads on one hold one per thread.
class ThreadFilter {
public:
  /// Where a CUDA call began, for cudaCallLeft.
  struct CallMark {
    std::uint64_t Before; ///< Engine::hostWord
    std::uint64_t Queued;
  };

  /// True when a release of Sync would change nothing: do not queue it.
  /// Otherwise queue it, then call releaseQueued(Sync).
  bool releaseIsRedundant(SyncObject Sync);
  void releaseQueued(SyncObject Sync);
  /// Otherwise queue it, then call acquireQueued(Sync, Check.Seen).
  AcquireCheck checkAcquire(SyncObject Sync);
  void acquireQueued(SyncObject Sync, std::uint64_t Seen);
  /// Sync's clock is forgotten (destroyed): queue that, then call this.
  void destroyQueued(SyncObject Sync);

  /// Every event the thread queues, after it is queued (host and block events).
  void queued(Queued What);

  /// A CUDA call of the thread enters the engine: Before is the thread's
  /// Engine::hostWord, read before the queue is replayed.
  CallMark cudaCallEntered(std::uint64_t Before) const { return {Before, QueuedCount}; }
  /// ... and left it: After read once the call's engine work is done.
  void cudaCallLeft(const CallMark &Mark, std::uint64_t After) {
    // The time is the word's high bits; an unknown word never matches.
    if ((After ^ Mark.Before) >> 2 || After == Engine::UnknownHostWord)
      clockMayChange();
    // Every event queued before the call was applied when it began (a
    // replay returns only then); when none was queued since, the engine's
    // flags are what it will find at the thread's next event.
    if (After != Engine::UnknownHostWord && QueuedCount == Mark.Queued) {
      PendingStamp = After & 2;
      MayJoin = !(After & 1);
    }
  }

  /// The thread's clock may have changed.
  void clockMayChange() { ++Changes; }
  std::uint64_t changes() const { return Changes; }

private:
  /// What the thread knows of one object.
  struct Known {
    SyncObject Sync = 0;
    /// The bucket's release count up to which the thread knows the object's
    /// whole clock (Never: not known).
    std::uint64_t Releases = ~std::uint64_t(0);
    /// The thread's change count when it last released the object, and the
    /// bucket's destruction count then (Never: not released).
    std::uint64_t ChangesAtRelease = ~std::uint64_t(0);
    std::uint64_t DestructionsAtRelease = ~std::uint64_t(0);
  };
  static constexpr unsigned CacheBits = 6;
  Known &entry(SyncObject Sync);

  Known Cache[1u << CacheBits];
  std::uint64_t Changes = 0;
  /// Events queued so far: a CUDA call that queued none while it ran has
  /// seen all of them applied, and reads the engine's flags back.
  std::uint64_t QueuedCount = 0;
  /// The engine may find that the thread released something since its last
  /// tick when it applies the thread's next event (its next stamp ticks).
  bool PendingStamp = false;
  /// ... or that the thread does not count as a CUDA thread yet (its next
  /// CUDA operation joins the common knowledge and ticks).
  bool MayJoin = true;
};

namespace detail {
/// Constant-initialized and defined here: every CUDA call and every reported
/// lock reads it, without a thread_local wrapper call.
inline thread_local ThreadFilter ThisThreadFilter;

// Defined here with the questions below, inline: every reported lock event
// asks two of them, and their calls cost as much as their work.
constexpr unsigned BucketBits = 14;
constexpr std::uint64_t Never = ~std::uint64_t(0);
/// Releases and destructions queued, per bucket of objects.
inline std::atomic<std::uint64_t> Releases[1u << BucketBits];
/// Destructions queued, per bucket: a destroyed object's clock is forgotten,
/// so a release after it is never redundant.
inline std::atomic<std::uint64_t> Destructions[1u << BucketBits];
inline std::atomic<std::uint64_t> Dropped{0};
inline bool CountingDropped = false; ///< countDropped

inline void countDrop() {
  if (CountingDropped)
    Dropped.fetch_add(1, std::memory_order_relaxed);
}
inline unsigned bucket(SyncObject Sync) {
  return static_cast<unsigned>(((Sync >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - BucketBits));
}
} // namespace detail

inline ThreadFilter::Known &ThreadFilter::entry(SyncObject Sync) {
  Known &K = Cache[(Sync >> 3) & ((1u << CacheBits) - 1)];
  if (K.Sync != Sync)
    K = Known{Sync};
  return K;
}

inline bool ThreadFilter::releaseIsRedundant(SyncObject Sync) {
  Known &K = entry(Sync);
  if (K.ChangesAtRelease != Changes ||
      K.DestructionsAtRelease != detail::Destructions[detail::bucket(Sync)].load(std::memory_order_seq_cst))
    return false;
  // The engine's flag is set already (nothing ticked since the release this
  // one repeats); noted anyway, it only makes the next allocation count.
  PendingStamp = true;
  detail::countDrop();
  return true;
}

inline void ThreadFilter::releaseQueued(SyncObject Sync) {
  Known &K = entry(Sync);
  unsigned B = detail::bucket(Sync);
  std::uint64_t Before = detail::Releases[B].fetch_add(1, std::memory_order_seq_cst);
  // The object's clock is now its old clock joined with ours: we know all of
  // it when we knew all of the old one.
  K.Releases = K.Releases == Before ? Before + 1 : detail::Never;
  K.ChangesAtRelease = Changes;
  K.DestructionsAtRelease = detail::Destructions[B].load(std::memory_order_seq_cst);
}

inline AcquireCheck ThreadFilter::checkAcquire(SyncObject Sync) {
  Known &K = entry(Sync);
  std::uint64_t Seen = detail::Releases[detail::bucket(Sync)].load(std::memory_order_seq_cst);
  bool Redundant = K.Releases == Seen;
  if (Redundant)
    detail::countDrop();
  return {Redundant, Seen};
}

inline void ThreadFilter::acquireQueued(SyncObject Sync, std::uint64_t Seen) { entry(Sync).Releases = Seen; }

/// The calling thread's filter.
inline ThreadFilter &thisThread() { return detail::ThisThreadFilter; }

/// Events dropped so far, all threads (intercept_stats), counted only once
/// countDropped(true): a count is a locked add on a line that every locking
/// thread writes, for each of the program's dropped lock events. Set before
/// the program's first lock event.
std::uint64_t dropped();
void countDropped(bool On);

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife

#endif
