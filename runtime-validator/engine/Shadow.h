//===- Shadow.h - shadow state of device memory as byte ranges ---*- C++ -*-===//
//
// Device memory as an interval map: segment begin -> Segment (end, owner, access
// records). Caching allocators split one cudaMalloc segment into blocks and merge
// freed neighbours back, so a lifetime is a set of byte ranges, never a pointer:
// every operation works on ranges and splits segments at the range's ends.
//
// A segment belongs to one allocation (its Owner, kept alive by shared_ptr even
// after the release, for reports) and is either Live (inside that allocation's
// lifetime) or released (accesses are use-after-free). It carries
//   * Current: accesses of the current lifetime, at most one per stream (a later
//     access on the same stream is ordered after an earlier one, so it subsumes
//     it for every check; its op is the one reports name);
//   * Past: accesses of earlier lifetimes that a new lifetime must still be
//     ordered after (which ones is the rules' decision, Engine.cpp).
// This file only knows the mechanics: split, iterate, fill gaps, merge equal
// neighbours. The rules live in Engine.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_SHADOW_H
#define STREAMLIFE_RT_ENGINE_SHADOW_H

#include "engine/Engine.h"
#include "engine/VectorClock.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <vector>

namespace streamlife {
namespace rt {

using AllocId = std::uint64_t;

/// Identity of a finding within one lifetime: the unordered old access (if any)
/// and the new access, each as (stream, op). A loop repeating the same access
/// is reported once; report/ deduplicates further by call-site pair.
struct ReportKey {
  FindingKind Kind;
  AllocId OldLifetime; ///< ReuseRace: the previous lifetime; otherwise 0
  AccessPoint Old;     ///< UnsafeFree / ReuseRace: the unordered access
  AccessPoint New;     ///< ReuseRace / UseBeforeAlloc / UseAfterFree: the new access
  bool operator==(const ReportKey &O) const {
    return Kind == O.Kind && OldLifetime == O.OldLifetime && Old.Stream == O.Old.Stream &&
           Old.Op == O.Old.Op && New.Stream == O.New.Stream && New.Op == O.New.Op;
  }
};

/// One lifetime of one allocation.
struct Allocation {
  AllocId Id = 0;
  Range Bytes;
  AllocKind Kind = AllocKind::Device;
  PoolId Pool = 0; ///< CachingAllocator: which allocator's pool
  int Device = 0;
  StreamId Stream = NoStream; ///< allocation stream
  Epoch Point;                ///< allocation point on Stream (StreamOrdered: an enqueued op)
  OpId Site = NoOp;
  bool Released = false;
  ReleaseKind HowReleased = ReleaseKind::SyncFree;
  StreamId ReleaseStream = NoStream;
  OpId ReleaseSite = NoOp;
  std::vector<ReportKey> Reported;
  /// The launchedWithPointerWords call that last touched this lifetime
  /// (Engine::Impl::LaunchSerial): a launch touches each allocation once,
  /// and a mark read through the segment's owner answers "touched already?"
  /// in one compare where a sorted set of the launch's allocations cost a
  /// search and an insertion per word (a _foreach_ launch names up to 60).
  /// Not part of the lifetime's state: only the launch that sets it reads it.
  mutable std::uint64_t TouchedByLaunch = 0;

  /// Remembers K; false when it was reported already.
  bool firstReport(const ReportKey &K, std::size_t Cap);
};

struct AccessRecord {
  StreamId Stream = NoStream;
  Epoch At;
  OpId Op = NoOp;
  bool operator==(const AccessRecord &O) const {
    return Stream == O.Stream && At.Slot == O.At.Slot && At.Time == O.At.Time && Op == O.Op;
  }
};

/// An access of an earlier lifetime that later lifetimes must be ordered after.
struct PastAccess {
  AccessRecord Access;
  std::shared_ptr<Allocation> Lifetime; ///< the lifetime the access belonged to
  /// The release of Lifetime was reported as UnsafeFree for this access: at
  /// once (synchronous free), or later by the deferred verdict at a reuse
  /// opportunity (DeferredFrees.cpp), which sets it.
  bool UnsafeAtRelease = false;
  bool operator==(const PastAccess &O) const {
    return Access == O.Access && Lifetime == O.Lifetime && UnsafeAtRelease == O.UnsafeAtRelease;
  }
};

struct Segment {
  Addr End = 0;
  std::shared_ptr<Allocation> Owner;
  bool Live = false;
  std::vector<AccessRecord> Current;
  std::vector<PastAccess> Past;

  bool sameStateAs(const Segment &O) const {
    return Owner == O.Owner && Live == O.Live && Current == O.Current && Past == O.Past;
  }
};

class Shadow {
public:
  using SegmentMap = std::map<Addr, Segment>;

  Shadow() { forgetLookups(); }
  // The lookup cache holds iterators of this map: a copy's would be another's.
  Shadow(const Shadow &) = delete;
  Shadow &operator=(const Shadow &) = delete;

  /// Calls Fn(Begin, Segment &) for every segment overlapping R, in address
  /// order, after making R's ends segment boundaries. Fn must not add or remove
  /// segments. Returns true when the segments covered every byte of R (then
  /// fillGaps(R) would add nothing).
  template <typename Fn> bool forEachIn(Range R, Fn &&F) {
    if (R.Size == 0)
      return true;
    // The segment holding R.Begin, asked of the lookup cache first: a
    // release finds the segments its allocation made a moment ago, a launch
    // those it touched last. The common case, a launch touching a whole
    // allocation of one segment, or a block handed out again, ends here.
    SegmentMap::iterator It = containing(R.Begin);
    if (It != Segments.end()) {
      if (It->first == R.Begin && It->second.End == R.end()) {
        F(It->first, It->second);
        return true;
      }
      if (It->first != R.Begin)
        It = splitInside(It, R.Begin);
    } else {
      It = Segments.lower_bound(R.Begin); // R.Begin lies in a gap: the first segment above it
    }
    // R.end() becomes a boundary before Fn sees any segment, as if both ends
    // were split first: the walk passes the segments visited below anyway,
    // where a search of the map cost as much as the whole walk.
    for (auto Last = It; Last != Segments.end() && Last->first < R.end(); ++Last)
      if (Last->second.End > R.end()) {
        splitInside(Last, R.end());
        break;
      }
    Addr Covered = R.Begin; // every byte below it lies in a segment
    for (; It != Segments.end() && It->first < R.end(); ++It) {
      if (It->first <= Covered)
        Covered = std::max(Covered, It->second.End);
      F(It->first, It->second);
    }
    return Covered >= R.end();
  }

  /// Creates a live segment owned by Owner for every byte of R not covered yet.
  void fillGaps(Range R, const std::shared_ptr<Allocation> &Owner);

  /// The segment containing A (and its begin), or null. Asked first of a
  /// small cache of the segments found lately (LookupCache below).
  Segment *find(Addr A, Addr *Begin = nullptr);
  const Segment *find(Addr A, Addr *Begin = nullptr) const;

  /// Lock-free pre-filter for isTracked(): false means A is surely untracked.
  /// The bounds only grow, so a stale read errs towards "maybe".
  bool mayContain(Addr A) const {
    return A >= Lowest.load(std::memory_order_relaxed) &&
           A < Highest.load(std::memory_order_relaxed);
  }

  /// Calls Fn(Segment &) on every segment (the sweep) and merges adjacent
  /// segments whose state became identical: what Fn on every segment, then
  /// mergeEqualNeighbours(), does, in one walk of the map. Each node is read
  /// once, not twice: with thousands of live segments (an optimizer's
  /// parameters and states) a sweep's cost is the walk's cache misses, a
  /// node each. Fn must change only the segment it is given, and only from
  /// that segment's state (then whether two neighbours are equal after Fn
  /// does not depend on the order Fn saw them in).
  template <typename Fn> void sweep(Fn &&F) {
    if (Segments.empty())
      return;
    auto Kept = Segments.begin();
    F(Kept->second);
    bool Erased = false;
    for (auto Next = std::next(Kept); Next != Segments.end();) {
      F(Next->second);
      if (Kept->second.End == Next->first && Kept->second.sameStateAs(Next->second)) {
        Kept->second.End = Next->second.End;
        Next = Segments.erase(Next);
        Erased = true;
        continue;
      }
      Kept = Next;
      ++Next;
    }
    afterMerges(Erased);
  }

  /// Merges adjacent segments whose state is identical, in a walk of its own:
  /// sweep()'s second half, kept as the reference its tests compare the one
  /// walk with (ShadowSweepTest).
  void mergeEqualNeighbours();

  std::size_t segments() const { return Segments.size(); }
  /// The map's invariants: segments non-empty, in order and disjoint, each
  /// owned, at most one current access per stream, and all inside the
  /// bounds mayContain() reads. Checked by STREAMLIFE_DCHECK (Check.h).
  bool wellFormed() const;
  const SegmentMap &map() const { return Segments; }

private:
  /// Splits the segment at Containing, which holds A above its begin, at A;
  /// returns the upper part's node (beginning at A).
  SegmentMap::iterator splitInside(SegmentMap::iterator Containing, Addr A);
  /// After a merge walk: an erased node may be cached, so forget every entry
  /// (sweeps are rare), once (the walk asks no lookup, and the cache is 1024
  /// entries).
  void afterMerges(bool Erased);
  /// The node containing A, or end(): asked of the latest answer and the
  /// lookup cache first.
  SegmentMap::iterator containing(Addr A) {
    if (Latest != Segments.end() && Latest->first <= A && A < Latest->second.End)
      return Latest;
    SegmentMap::iterator Cached = LookupCache[lookupCacheIndex(A)];
    if (Cached != Segments.end() && Cached->first <= A && A < Cached->second.End)
      return Latest = Cached;
    return containingNotCached(A);
  }
  /// containing() when the cache does not answer: searches, remembers.
  SegmentMap::iterator containingNotCached(Addr A);
  /// The map's node containing A, or end(): the search the cache saves.
  SegmentMap::iterator findInMap(Addr A);
  void forgetLookups() {
    std::fill(std::begin(LookupCache), std::end(LookupCache), Segments.end());
    Latest = Segments.end();
  }

  SegmentMap Segments;
  /// The segments find() returned lately, direct-mapped by address: a
  /// launch names the same allocations again and again, and a search of
  /// the map costs 50-120 instructions (a tree of hundreds to thousands of
  /// segments) and, on a loaded host, a cache miss per level. 1024 entries
  /// (8 KiB): an optimizer's foreach launches name every parameter and
  /// state, hundreds to thousands of blocks a step, which 16 entries could
  /// not hold from one launch to the next (block_replay_cost --foreach).
  /// forEachIn asks it for its range's first segment: a stream-ordered
  /// release (and a launch) finds what the allocation (the last launch)
  /// left there. An entry is a node of the map (end() when empty); it
  /// answers for A only while it contains
  /// A, read from the node itself, so a split (which shrinks a node and adds
  /// one) or a new segment (which fills a gap) leaves every entry exact.
  /// Only an erase (mergeEqualNeighbours) could leave an entry dangling: it
  /// empties the cache.
  static constexpr unsigned LookupCacheBits = 10;
  SegmentMap::iterator LookupCache[1u << LookupCacheBits];
  /// The node the latest lookup answered with, asked before the cache: a
  /// _foreach_ launch names many views into one buffer (a unit's sharded
  /// gradients) one after another, interior pointers that the cache spreads
  /// over different entries (it is indexed by the address). Exact for the
  /// same reasons as the cache's entries, and emptied with them.
  SegmentMap::iterator Latest;
  static unsigned lookupCacheIndex(Addr A) {
    // Fibonacci hashing of the address above its low bits: blocks of one
    // segment and allocations far apart both spread over the entries.
    return static_cast<unsigned>(((A >> 8) * 0x9E3779B97F4A7C15ull) >> (64 - LookupCacheBits));
  }
  std::atomic<Addr> Lowest{~Addr(0)};
  std::atomic<Addr> Highest{0};
};

} // namespace rt
} // namespace streamlife

#endif
