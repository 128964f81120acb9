//===--- LifetimeLattice.h - streamlife -------------------------*- C++ -*-===//
//
// The dataflow lattice of the lifetime analysis: what is known, at one
// program point, about every object (buffer lifetime), event and stream of a
// function. Ported from part 1's LifetimeState with ids instead of clang
// pointers, and with names distinct from objects.
//
// The join is a "may" join for hazards and a "must" join for orderings: a
// consumer use pending on ANY incoming path stays pending, and it counts as
// ordered before a stream only if it is ordered on EVERY incoming path. So a
// bug on any path warns.
//
// Height: every set below draws from finite universes fixed by the function
// (its names, sites, streams, events, and at most two objects per allocation
// or call site plus one per name); pending uses only accumulate sites, and
// the must-sets only shrink at joins. The lattice therefore has finite height
// and the fixpoint terminates without a round cap (see Analysis.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_LIFETIMELATTICE_H
#define STREAMLIFE_CHECKS_CORE_LIFETIMELATTICE_H

#include "SharedMap.h"
#include "StreamIR.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace streamlife {
namespace core {

using ir::NameId;
using ir::NoId;
using ir::ObjectId;
using ir::SiteId;

/// A resolved stream: what a StreamRef denotes at one program point.
struct StreamKey {
  enum KindTy : uint8_t {
    Named,
    LegacyDefault,
    PerThread,
    /// The caller's current stream at function entry (opaque, blocking).
    EntryCurrent,
    /// Summaries only: any stream of the caller the callee cannot name.
    Unseen,
  };
  KindTy Kind = Named;
  NameId Name = NoId;

  static StreamKey named(NameId N) { return {Named, N}; }
  static StreamKey legacy() { return {LegacyDefault, NoId}; }
  static StreamKey perThread() { return {PerThread, NoId}; }
  static StreamKey entryCurrent() { return {EntryCurrent, NoId}; }
  static StreamKey unseen() { return {Unseen, NoId}; }
  friend bool operator<(const StreamKey &A, const StreamKey &B) {
    return std::tie(A.Kind, A.Name) < std::tie(B.Kind, B.Name);
  }
  friend bool operator==(const StreamKey &A, const StreamKey &B) {
    return A.Kind == B.Kind && A.Name == B.Name;
  }
  friend bool operator!=(const StreamKey &A, const StreamKey &B) {
    return !(A == B);
  }
};

/// What is known about one point of stream work (a consumer use, the
/// allocation itself, or a summary's entry work): which events capture it
/// and which streams are ordered after it.
struct WorkFacts {
  /// Events recorded after this work on a stream that had it in order.
  std::set<NameId> CoveringEvents;
  /// Streams whose later work is ordered after this one, with the wait that
  /// ordered them (for notes).
  std::map<StreamKey, SiteId> OrderedStreams;
  /// Work was followed by an operation on the legacy default stream, which
  /// orders it before later work on every blocking stream.
  bool OrderedByLegacyStream = false;
  /// The work reaches this point only through a loop back edge.
  bool FromEarlierIteration = false;
  /// Summaries only, for uses of a caller's object: the caller's streams
  /// (entry-work keys) whose work before the call was ordered before this
  /// use when it was enqueued. An ordering of the path the use is on: the
  /// entry work's own facts are met over every path to the exit, so a
  /// callee that waits only on the path where it uses the buffer (an early
  /// return, a loop that may not run) would otherwise lose that wait.
  std::set<StreamKey> AfterEntry;

  /// Must-join: keep what holds on both paths.
  void meet(const WorkFacts &Other);
  /// The same ordering: equal but for which wait is remembered per ordered
  /// stream (the wait sites only name a wait in notes). Use groups are keyed
  /// by this, so that N branches each waiting at their own site do not make
  /// N groups of the same use sites (reliability sweep #117: memory was
  /// quadratic in the number of if/else branches).
  static bool sameOrdering(const WorkFacts &A, const WorkFacts &B);
  static bool orderingLess(const WorkFacts &A, const WorkFacts &B);
  /// Every ordering \p A promises, \p B promises too (and both come from
  /// the same iteration): a use with \p A is at least as exposed as one
  /// with \p B, so B's hazards are A's hazards.
  static bool weakerOrEqual(const WorkFacts &A, const WorkFacts &B);
  /// Takes in \p Other's facts of the same ordering: per ordered stream,
  /// the wait with the smallest site id is kept (a deterministic choice, so
  /// that joins commute and a state's wait sites only decrease).
  void mergeWaitSites(const WorkFacts &Other);
  friend bool operator==(const WorkFacts &A, const WorkFacts &B) {
    return A.CoveringEvents == B.CoveringEvents &&
           A.OrderedStreams == B.OrderedStreams &&
           A.OrderedByLegacyStream == B.OrderedByLegacyStream &&
           A.FromEarlierIteration == B.FromEarlierIteration &&
           A.AfterEntry == B.AfterEntry;
  }
  friend bool operator<(const WorkFacts &A, const WorkFacts &B) {
    return std::tie(A.CoveringEvents, A.OrderedStreams,
                    A.OrderedByLegacyStream, A.FromEarlierIteration,
                    A.AfterEntry) <
           std::tie(B.CoveringEvents, B.OrderedStreams,
                    B.OrderedByLegacyStream, B.FromEarlierIteration,
                    B.AfterEntry);
  }
};

/// A set of use sites, immutable and shared between states: adding a site
/// makes a new head over the old list, so the states of a thousand branches
/// that each add one use share one list instead of copying it (part 1 kept a
/// map per state, which made memory quadratic in the number of branches).
class SiteList {
public:
  SiteList() = default;
  bool empty() const { return !Head; }
  size_t size() const { return Head ? Head->Size : 0; }
  bool contains(SiteId S) const;
  /// This list plus \p S (a no-op when already there).
  SiteList with(SiteId S) const;
  /// The union of both lists; shares the longer one when the other is a
  /// tail of it (the common shape after a branch).
  SiteList unite(const SiteList &Other) const;
  SiteList without(SiteId S) const;
  /// True when every site of \p Other is in this list, as far as a cheap
  /// test tells: equal heads, \p Other a tail of this list reached within
  /// a few steps, or a short \p Other looked up site by site. False means
  /// "not shown", never "known not included".
  bool includesCheaply(const SiteList &Other) const;
  /// The sites, most recent first.
  std::vector<SiteId> sites() const;
  friend bool operator==(const SiteList &A, const SiteList &B);

private:
  struct Node {
    SiteId Site;
    size_t Size;
    /// The smallest and largest site of the list from here: front ends
    /// number sites in program order (either direction), so a new site is
    /// usually outside the range and membership is O(1).
    SiteId MinSite, MaxSite;
    std::shared_ptr<const Node> Next;
  };
  std::shared_ptr<const Node> Head;
};

/// Pending consumer uses that share a stream and an ordering history: one
/// group stands for many sites.
struct UseGroup {
  StreamKey Stream;
  WorkFacts Facts;
  SiteList Sites;
};

/// Summaries only: a release of a caller's object inside the callee, with
/// the caller streams (entry-work keys) already ordered before it there.
struct EntryRelease {
  SiteId Site = NoId;
  StreamKey Stream;
  std::set<StreamKey> OrderedEntryStreams;
  friend bool operator<(const EntryRelease &A, const EntryRelease &B) {
    return std::tie(A.Site, A.Stream, A.OrderedEntryStreams) <
           std::tie(B.Site, B.Stream, B.OrderedEntryStreams);
  }
  friend bool operator==(const EntryRelease &A, const EntryRelease &B) {
    return !(A < B) && !(B < A);
  }
};

/// The state of one object (one buffer lifetime).
struct ObjectState {
  /// Where and on which stream the lifetime began; NoId when it began
  /// outside the function (a parameter, a member, an unknown allocator).
  SiteId AllocSite = NoId;
  /// The name the allocation wrote (for "'p' allocated on ... here").
  NameId AllocName = NoId;
  std::optional<StreamKey> AllocStream;
  /// The allocation point as stream work: who is ordered after it.
  WorkFacts AllocFacts;
  /// The allocation may not have completed for some stream yet.
  bool AllocPending = false;
  /// Consumer uses not yet known to be complete (see UseGroups.h).
  llvm::SmallVector<UseGroup, 2> Uses;
  /// Owned objects: released when the last name goes, on this stream.
  ir::Ownership Own = ir::Ownership::Raw;
  std::optional<StreamKey> ReleaseStream;
  /// Escaped to where it is not tracked: nothing more is said about it.
  bool Escaped = false;
  /// record_stream told the allocator about a stream the caller knows (its
  /// current stream, a parameter, a member): handing the object to the
  /// caller is safe (on every path).
  bool RecordedForCaller = false;
  /// Streams record_stream named on every path: the caching allocator holds
  /// the block until their work enqueued before the release completes, so no
  /// use on them races with the release, before the record_stream or after.
  llvm::SmallVector<StreamKey, 1> RecordedOn;
  /// Summaries only: releases of this (caller's) object in the callee.
  std::set<EntryRelease> EntryReleases;
  /// From a caching allocator (ir::Inst::Caching) on every path: a release
  /// that races is deferred to the next allocation that could reuse it.
  bool Caching = false;

  bool hasPendingWork() const { return AllocPending || !Uses.empty(); }
  /// record_stream on \p S: its uses, before and after, stop racing.
  void recordStream(const StreamKey &S);
  /// False when the use groups had to be merged (see normalizeGroups).
  bool join(const ObjectState &Other);
  friend bool operator==(const ObjectState &A, const ObjectState &B);
};

/// A caching allocator's release that left uses on other streams unordered
/// (see ir::Inst::Caching): the block is in its release stream's pool, and
/// the release is a finding only if an allocation that could be handed the
/// block comes while one of these uses may still run. Keyed in the state by
/// (release site, buffer, release stream).
struct DeferredRelease {
  bool ByLastOwner = false;
  /// The released object's allocation, for the finding's notes.
  SiteId AllocSite = NoId;
  NameId AllocName = NoId;
  std::optional<StreamKey> AllocStream;
  /// The uses neither complete nor ordered before the release stream yet.
  llvm::SmallVector<UseGroup, 2> Uses;
  /// False when the use groups had to be merged (see normalizeGroups).
  bool join(const DeferredRelease &Other);
  friend bool operator==(const DeferredRelease &A, const DeferredRelease &B);
};
using DeferredKey = std::tuple<SiteId, NameId, StreamKey>;

/// The last record of an event.
struct EventState {
  std::optional<StreamKey> Stream; ///< Unknown after disagreeing paths.
  SiteId RecordSite = NoId;
  friend bool operator==(const EventState &A, const EventState &B) {
    return A.Stream == B.Stream && A.RecordSite == B.RecordSite;
  }
};

/// Summaries only: the caller's work enqueued before the call on one stream,
/// as seen by the callee.
struct EntryWork {
  WorkFacts Facts;
  bool Pending = true;
  friend bool operator==(const EntryWork &A, const EntryWork &B) {
    return A.Pending == B.Pending && A.Facts == B.Facts;
  }
};

/// A small sorted set of objects a name may hold.
using ObjectSet = llvm::SmallVector<ObjectId, 1>;
/// Into = Into ∪ From (both sorted, without duplicates).
void unionInto(ObjectSet &Into, const ObjectSet &From);

/// The lattice element at one program point.
struct LifetimeState {
  /// Buffer names and the objects they may hold.
  std::map<NameId, ObjectSet> Names;
  /// Shared with the states this one was copied from or joined with until
  /// written (see SharedMap.h): a block changes few of them.
  SharedMap<ObjectId, ObjectState> Objects;
  std::map<NameId, EventState> Events;
  /// Stream names bound to another stream (ValueKind::Stream copies).
  std::map<NameId, StreamKey> StreamAliases;
  /// Streams created in the function: true when non-blocking. Streams not in
  /// the map are assumed blocking (implicitly ordered with the legacy default
  /// stream), which suppresses warnings when in doubt.
  std::map<NameId, bool> NonBlockingStreams;
  /// Pushed current streams, innermost last. CurrentUnknown: paths
  /// disagreed, so Current is unknown until the stack is reset.
  std::vector<StreamKey> CurrentStack;
  bool CurrentUnknown = false;
  /// Releases that raced with uses, by (release stream, use stream): a
  /// later wait of the release stream for that consumer is a "late wait"
  /// worth a note. Kept here rather than per object so that released
  /// objects can be dropped from the state.
  std::map<std::pair<StreamKey, StreamKey>, SiteList> RacyReleases;
  /// The caller's earlier work per stream (see EntryWork).
  std::map<StreamKey, EntryWork> Entry;
  /// Per stream with a caching pool: its work up to the last point a block
  /// may have gone back to the pool (function entry for the caller's
  /// releases, then every release there and every piece of unseen work on
  /// it; see ir::Inst::EnqueuesNothing), with who is ordered after that
  /// point. A stream missing here had paths disagree: nothing is known.
  std::map<StreamKey, EntryWork> PoolSince;
  /// Caching releases waiting for their judgement (see DeferredRelease).
  std::map<DeferredKey, DeferredRelease> Deferred;
  /// Streams this function allocates on, on some path: a call to it is a
  /// reuse opportunity there for the caller's deferred releases.
  std::set<StreamKey> AllocatesOn;
  /// False until some path reaches the point (the bottom element).
  bool Reachable = false;
  /// Some object had more use groups on one stream than the analysis keeps
  /// (UseGroups.h): their ordering facts were met into one group, so a
  /// warning may be a false alarm (never a missed one). Said in a note.
  bool GroupsMerged = false;

  void join(const LifetimeState &Other);
  friend bool operator==(const LifetimeState &A, const LifetimeState &B);
  friend bool operator!=(const LifetimeState &A, const LifetimeState &B) {
    return !(A == B);
  }
};

/// Object ids: the core's naming scheme (see ir::ObjectId).
namespace objects {
enum Tag : uint64_t {
  RecentAlloc = 0, ///< The most recent allocation at a site.
  OlderAlloc = 1,  ///< Older allocations at a site, still named.
  Initial = 2,     ///< What a name held at function entry.
};
inline ObjectId make(Tag T, uint32_t Id) {
  return (static_cast<uint64_t>(T) << 32) | Id;
}
inline Tag tag(ObjectId O) { return static_cast<Tag>(O >> 32); }
inline uint32_t id(ObjectId O) { return static_cast<uint32_t>(O); }
} // namespace objects

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_LIFETIMELATTICE_H
