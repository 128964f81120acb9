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
//     or released it while knowing all of it; or, for a pthread mutex, its
//     last release was a chain release by a thread whose clock at that
//     release this thread knows (below).
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
// The last releaser (LockKind::Exclusive, pthread mutexes; measured on FSDP2:
// fw_grad locks each tensor's AutogradMeta mutex on the main thread in
// forward and on the autograd thread in backward, half of the kept lock
// events, each an acquire of the other thread's release). A release by X
// whose thread knew the object's whole clock just before it (its own count
// says no release was counted since it knew it: the same test that keeps
// K.Releases) leaves the object's clock exactly X's clock at the release: a
// join of a clock into one that holds it. Such a release is a chain release.
// A chain release is recorded per bucket, after it is counted: its count, its
// object, X's id and X's change count c (other releases are not: a pthread
// mutex's releases are chain releases but where the filter missed the
// acquire, and a record costs a locked instruction). An acquirer B
// that reads its bucket's count n and a record of its object with count n
// (read consistently, see LastRelease) knows the object's last counted release, and so:
//   * the object's clock holds X's clock at c (it holds every release's), so
//     once B's acquire is queued B knows "X at c" (kept per releaser id,
//     in a small table: a releaser that replaces another only drops less);
//   * as it was a chain release, the object's clock is X's clock at c, and
//     B knows it when it knows X at a change count c' >= c
//     (X's clock only grows, and an equal count means an equal clock) or is
//     X: the acquire is dropped, and B knows the object's whole clock.
// Exactness: a release after a lock the filter did not see (an ignored
// caller's, one before the process used CUDA) finds the releaser's count
// stale, so it is no chain release; a destruction counts as a release,
// so no older record matches; a record names its object, so a bucket's other
// objects never use it; a writer that finds the record busy leaves the
// older record, whose count no longer matches; a reader that reads the same
// count around the other fields read one writer's. Thread ids are never reused.
// Why "read n, then the record" sees every release ahead of the acquire: a
// pthread mutex is released only by its owner, and the release is counted
// and recorded before the real unlock, while the acquire reads after the
// real lock: the lock orders them, as it orders the count. (A semaphore's or
// a reader-writer lock's releases are not ordered by the lock: they keep
// LockKind::Shared, without records.) As above, an object the engine forgot
// beyond MaxSyncObjects between a release and an acquire teaches the
// acquirer nothing that the filter thinks it learned: an ordering lost,
// which can only add findings.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_REDUNDANTSYNCFILTER_H
#define STREAMLIFE_RT_INTERCEPT_REDUNDANTSYNCFILTER_H

#include "engine/Engine.h"
#include "intercept/LockEventGate.h"

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

/// What the filter may assume of a lock's releases.
enum class LockKind : std::uint8_t {
  /// A semaphore, a reader-writer lock, a barrier: several threads may hold
  /// it, so its releases are not ordered by it.
  Shared,
  /// A pthread mutex (also as a condition wait's): only its owner releases
  /// it, so its releases and acquires are counted in the lock's own order,
  /// and its clock is its last releaser's whenever that one knew all of it.
  Exclusive,
};

/// Before an acquire of Sync: what acquireQueued needs (the release count and
/// the last release seen), and whether the acquire would change nothing (then
/// do not queue it).
struct AcquireCheck {
  std::uint64_t Seen;
  /// The last release of an Exclusive Sync, as releaserWord packs it (0: not
  /// known), or RedundantMark. Two words: returned in registers.
  std::uint64_t Releaser = 0;

  /// Never a releaser word (NoId is never recorded).
  static constexpr std::uint64_t RedundantMark = ~std::uint64_t(0);
  bool redundant() const { return Releaser == RedundantMark; }
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
  void releaseQueued(SyncObject Sync, LockKind Kind = LockKind::Shared);
  /// Otherwise queue it, then call acquireQueued(Sync, Check). Kind must be
  /// the one its releases were queued with.
  AcquireCheck checkAcquire(SyncObject Sync, LockKind Kind = LockKind::Shared);
  void acquireQueued(SyncObject Sync, const AcquireCheck &Check);
  /// Sync's clock is forgotten (destroyed): queue that, then call this.
  void destroyQueued(SyncObject Sync);

  /// Every event the thread queues, after it is queued (host and block events).
  /// Inline: every kept lock event tells it, with a constant What that folds
  /// the switch to a store or two (a call cost more than its work).
  void queued(Queued What);

  /// A CUDA call of the thread enters the engine: Before is the thread's
  /// Engine::hostWord, read before the queue is replayed.
  CallMark cudaCallEntered(std::uint64_t Before) const { return {Before, QueuedCount}; }
  /// ... and left it: After read once the call's engine work is done.
  void cudaCallLeft(const CallMark &Mark, std::uint64_t After) {
    cudaCallLeftUnsettled(Mark, After);
    // Every event queued before the call was applied when it began (a
    // replay returns only then); when none was queued since, the engine's
    // flags are what it will find at the thread's next event.
    if (After != Engine::UnknownHostWord && QueuedCount == Mark.Queued)
      EngineFlags = After & (ReleasedSinceTick | UsesCuda);
  }

  /// ... and left it, when events were queued and not replayed as it began
  /// (a deferrable call that left them to a later replay): the time read
  /// after it still tells a change of the clock, but the engine's flags are
  /// not those the thread's next event meets (its own queued events may not
  /// have been applied), so the mirrored ones stay, which only keeps more.
  /// (cudaCallLeft's first half.)
  void cudaCallLeftUnsettled(const CallMark &Mark, std::uint64_t After) {
    // The time is the word's high bits; an unknown word never matches.
    if ((After ^ Mark.Before) >> 2 || After == Engine::UnknownHostWord)
      clockMayChange();
  }

  /// The thread's clock may have changed.
  void clockMayChange() { ++Changes; }
  std::uint64_t changes() const { return Changes; }

private:
  /// What the thread knows of one object. 32-byte aligned: an entry on one
  /// cache line (8-byte aligned, every other one spanned two, after the
  /// scalars' odd size), so a question reads one line of the cache.
  struct alignas(32) Known {
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

  /// This thread's number in releaser words (assigned at its first Exclusive
  /// release, never reused; NoId beyond the words' range).
  std::uint32_t id();
  /// The last-releaser rule's parts (inline: out of line, their frames cost
  /// block_replay_cost --op-locks 1 --inplace 2 --filter exact 0.6% more).
  AcquireCheck checkLastRelease(Known &K, unsigned B, SyncObject Sync, std::uint64_t Seen);
  void recordChainRelease(unsigned B, SyncObject Sync, std::uint64_t Count);
  /// The thread knows the releaser's clock at the release Releaser names.
  bool knowsReleaser(std::uint64_t Releaser) const;
  void learnReleaser(std::uint64_t Releaser);
  /// The last releases this thread knows the releaser's clock at, one per
  /// releaser (by its id's low bits; another releaser in the slot replaces
  /// it), as releaserWord packs them without the chain bit (0: none).
  static constexpr unsigned KnownReleaserBits = 4;

  // The scalars first: every reported event reads Changes or the flags, so
  // they sit on the line that starts the thread's state (ThreadState.h), not
  // on a line of their own after the tables.
  std::uint64_t Changes = 0;
  /// Events queued so far: a CUDA call that queued none while it ran has
  /// seen all of them applied, and reads the engine's flags back.
  std::uint64_t QueuedCount = 0;
  std::uint32_t Id = 0;
  /// What the engine may find when it applies the thread's next event, as
  /// the published word's low bits (Engine::hostWord), so that a CUDA call
  /// reads them back with one store (two bools took three read-modify-writes
  /// per call, three calls per launch-bound step):
  ///   ReleasedSinceTick set: the thread may have released something since
  ///     its last tick (its next stamp ticks);
  ///   UsesCuda clear: the thread may not count as a CUDA thread yet (its
  ///     next CUDA operation joins the common knowledge and ticks).
  static constexpr std::uint8_t UsesCuda = 1, ReleasedSinceTick = 2;
  std::uint8_t EngineFlags = 0;

  std::uint64_t KnownReleasers[1u << KnownReleaserBits] = {};
  Known Cache[1u << CacheBits];
};

namespace detail {
// Defined here with the questions below, inline: every reported lock event
// asks two of them, and their calls cost as much as their work.
constexpr unsigned BucketBits = 14;
constexpr std::uint64_t Never = ~std::uint64_t(0);
/// The last recorded release of an Exclusive object of the bucket: valid for
/// an acquirer only while Count is the bucket's release count it read, and
/// Sync its object (a later release or destruction in the bucket, of any
/// object, changes the count). Count is also the record's lock: a writer
/// takes it from a count to Busy and stores its own count last, and only
/// tries (one that finds it Busy leaves the older record, which no longer
/// matches the count); each count is written once, so a reader that reads
/// the same count before and after the other fields read one writer's.
/// Before any record Count is 0, which no writer stores (a counted release
/// makes the count at least 1) and Sync 0, no object: a reader that read a
/// count of 0 finds no record of its object.
struct alignas(32) LastRelease {
  std::atomic<std::uint64_t> Count{0};
  std::atomic<std::uint64_t> Sync{0};
  std::atomic<std::uint64_t> Releaser{0};
};
constexpr std::uint64_t Busy = Never - 1;
/// A bucket of objects, on one cache line of its own: a dropped release reads
/// Destructions, a dropped acquire Releases, a kept release all three (the
/// record when it is a chain release), a kept acquire of a pthread mutex
/// Releases and the record. In three arrays a kept event read three lines,
/// each a cache miss once the program's own work between its calls evicted
/// them (bench/runtime/README.md, rtcapture3); zero-initialized (.bss).
struct alignas(64) Bucket {
  /// Releases and destructions queued.
  std::atomic<std::uint64_t> Releases{0};
  /// Destructions queued: a destroyed object's clock is forgotten, so a
  /// release after it is never redundant.
  std::atomic<std::uint64_t> Destructions{0};
  LastRelease Last;
};
static_assert(sizeof(Bucket) == 64, "a bucket is one cache line");
inline Bucket Buckets[1u << BucketBits];

/// A release as the record and the threads' knowledge hold it, one word:
/// the releaser's change count at the release, its id, and the chain bit
/// (the object's clock is the releaser's clock at the release).
constexpr unsigned ReleaserIdBits = 23;
constexpr std::uint32_t NoId = (1u << ReleaserIdBits) - 1;
constexpr std::uint64_t ReleaserIdMask = std::uint64_t(NoId) << 1;
constexpr std::uint64_t ChainBit = 1;
constexpr unsigned ReleaserChangesShift = ReleaserIdBits + 1;
constexpr std::uint64_t MaxReleaserChanges = ~std::uint64_t(0) >> ReleaserChangesShift;
inline std::uint64_t releaserWord(std::uint64_t Changes, std::uint32_t Id, bool Chain) {
  return Changes << ReleaserChangesShift | std::uint64_t(Id) << 1 | (Chain ? ChainBit : 0);
}
inline std::atomic<std::uint32_t> NextThreadId{0};

/// Bucket B's record when it names Sync's release counted Seen; 0 otherwise.
inline std::uint64_t lastRelease(unsigned B, SyncObject Sync, std::uint64_t Seen) {
  LastRelease &L = Buckets[B].Last;
  if (L.Count.load(std::memory_order_acquire) != Seen || L.Sync.load(std::memory_order_relaxed) != Sync)
    return 0;
  std::uint64_t Releaser = L.Releaser.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return L.Count.load(std::memory_order_relaxed) == Seen ? Releaser : 0;
}
/// Records Sync's release counted Count (the writer just counted it).
inline void recordRelease(unsigned B, SyncObject Sync, std::uint64_t Count, std::uint64_t Releaser) {
  LastRelease &L = Buckets[B].Last;
  std::uint64_t Old = L.Count.load(std::memory_order_relaxed);
  if (Old == Busy || !L.Count.compare_exchange_strong(Old, Busy, std::memory_order_acquire))
    return;
  std::atomic_thread_fence(std::memory_order_release);
  L.Sync.store(Sync, std::memory_order_relaxed);
  L.Releaser.store(Releaser, std::memory_order_relaxed);
  L.Count.store(Count, std::memory_order_release);
}

inline std::atomic<std::uint64_t> Dropped{0};

/// countDropped's flag is on the interposers' gate line (LockEventGate.h),
/// which a dropped event reads anyway.
inline void countDrop() {
  if (rt::detail::TheLockEventGate.CountingDropped)
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
      K.DestructionsAtRelease != detail::Buckets[detail::bucket(Sync)].Destructions.load(std::memory_order_seq_cst))
    return false;
  // The engine's flag is set already (nothing ticked since the release this
  // one repeats); noted anyway, it only makes the next allocation count.
  EngineFlags |= ReleasedSinceTick;
  detail::countDrop();
  return true;
}

inline std::uint32_t ThreadFilter::id() {
  if (!Id) {
    std::uint32_t Next = detail::NextThreadId.fetch_add(1, std::memory_order_relaxed) + 1;
    Id = Next < detail::NoId ? Next : detail::NoId;
  }
  return Id;
}

inline bool ThreadFilter::knowsReleaser(std::uint64_t Releaser) const {
  std::uint64_t Who = Releaser & detail::ReleaserIdMask;
  // Its own release: the thread's clock only grew since.
  if (Who == std::uint64_t(Id) << 1)
    return true;
  std::uint64_t Slot = KnownReleasers[(Releaser >> 1) & ((1u << KnownReleaserBits) - 1)];
  // The same releaser at a change count at least as high: a clock it had
  // then or later, so one that holds the clock at this release.
  return (Slot & detail::ReleaserIdMask) == Who && Slot >= (Releaser & ~detail::ChainBit);
}

inline void ThreadFilter::learnReleaser(std::uint64_t Releaser) {
  std::uint64_t &Slot = KnownReleasers[(Releaser >> 1) & ((1u << KnownReleaserBits) - 1)];
  std::uint64_t Word = Releaser & ~detail::ChainBit;
  if ((Slot & detail::ReleaserIdMask) != (Word & detail::ReleaserIdMask) || Slot < Word)
    Slot = Word;
}

__attribute__((always_inline)) inline void ThreadFilter::releaseQueued(SyncObject Sync, LockKind Kind) {
  Known &K = entry(Sync);
  unsigned B = detail::bucket(Sync);
  std::uint64_t Before = detail::Buckets[B].Releases.fetch_add(1, std::memory_order_seq_cst);
  // The object's clock is now its old clock joined with ours: we know all of
  // it when we knew all of the old one, and then it is exactly ours.
  bool Chain = K.Releases == Before;
  K.Releases = Chain ? Before + 1 : detail::Never;
  K.ChangesAtRelease = Changes;
  K.DestructionsAtRelease = detail::Buckets[B].Destructions.load(std::memory_order_seq_cst);
  // Only a chain release is recorded (the header says why).
  if (Chain && Kind == LockKind::Exclusive)
    recordChainRelease(B, Sync, Before + 1);
}

inline void ThreadFilter::recordChainRelease(unsigned B, SyncObject Sync, std::uint64_t Count) {
  // The chain bit stays in the word, so that a record is never taken for
  // one by mistake.
  if (id() != detail::NoId && Changes <= detail::MaxReleaserChanges)
    detail::recordRelease(B, Sync, Count, detail::releaserWord(Changes, Id, true));
}

__attribute__((always_inline)) inline AcquireCheck ThreadFilter::checkAcquire(SyncObject Sync,
                                                                                  LockKind Kind) {
  Known &K = entry(Sync);
  unsigned B = detail::bucket(Sync);
  std::uint64_t Seen = detail::Buckets[B].Releases.load(std::memory_order_seq_cst);
  if (K.Releases == Seen) {
    detail::countDrop();
    return {Seen, AcquireCheck::RedundantMark};
  }
  if (Kind != LockKind::Exclusive)
    return {Seen};
  return checkLastRelease(K, B, Sync, Seen);
}

inline AcquireCheck ThreadFilter::checkLastRelease(Known &K, unsigned B, SyncObject Sync, std::uint64_t Seen) {
  // The object's clock is its last releaser's at the release (the chain
  // bit), which this thread knows already.
  std::uint64_t Releaser = detail::lastRelease(B, Sync, Seen);
  if ((Releaser & detail::ChainBit) && knowsReleaser(Releaser)) {
    K.Releases = Seen;
    detail::countDrop();
    return {Seen, AcquireCheck::RedundantMark};
  }
  return {Seen, Releaser};
}

inline void ThreadFilter::acquireQueued(SyncObject Sync, const AcquireCheck &Check) {
  entry(Sync).Releases = Check.Seen;
  // The object's clock holds every release's clock, so the last one's.
  if (Check.Releaser)
    learnReleaser(Check.Releaser);
}

inline void ThreadFilter::queued(Queued What) {
  ++QueuedCount;
  switch (What) {
  case Queued::Release:
    // Engine: the object's clock joins ours, and the next stamp will tick.
    EngineFlags |= ReleasedSinceTick;
    return;
  case Queued::Acquire:
    clockMayChange(); // it may learn
    return;
  case Queued::Destruction:
  case Queued::ReleaseRequest:
    return;
  case Queued::ThreadEnd:
    EngineFlags &= ~UsesCuda; // no longer counted: a later CUDA operation joins again
    return;
  case Queued::Allocation:
    // Engine::Impl::allocate: joins on first use, stamps a caching block.
    if (EngineFlags != UsesCuda) // a pending stamp, or a join
      clockMayChange();
    return;
  case Queued::BlockRelease:
  case Queued::Access:
    // Engine::Impl::release / Engine::accessed: only the first use joins (a
    // synchronous free is a CUDA call, never queued).
    if (!(EngineFlags & UsesCuda))
      clockMayChange();
    return;
  }
  clockMayChange();
}

// The calling thread's filter, thisThread(), is in intercept/ThreadState.h:
// the runtime keeps it in the thread's state block, on one line with the
// other scalars every interposed call reads.

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
