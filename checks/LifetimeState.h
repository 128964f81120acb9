//===--- LifetimeState.h - streamlife ---------------------------*- C++ -*-===//
//
// The dataflow lattice of the lifetime analysis: what is known, at one program
// point, about every buffer, event and stream of a function. It plays the role
// of MPI-Checker's MPITypes.h.
//
// The join is a "may" join for hazards and a "must" join for orderings: a
// consumer use pending on ANY incoming path stays pending, and it counts as
// ordered before a stream only if it is ordered on EVERY incoming path. So a
// bug on any path warns.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_LIFETIMESTATE_H
#define STREAMLIFE_CHECKS_LIFETIMESTATE_H

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

/// Names a buffer, stream or event the way use-after-move names a moved
/// object: by declaration. `obj.field` / `this->field` are (base, field)
/// pairs; `arr[2]` is (arr, index 2).
struct EntityKey {
  const ValueDecl *Base = nullptr;
  const ValueDecl *Member = nullptr;
  int64_t Index = -1;

  friend bool operator<(const EntityKey &A, const EntityKey &B) {
    return std::tie(A.Base, A.Member, A.Index) <
           std::tie(B.Base, B.Member, B.Index);
  }
  friend bool operator==(const EntityKey &A, const EntityKey &B) {
    return !(A < B) && !(B < A);
  }
  friend bool operator!=(const EntityKey &A, const EntityKey &B) {
    return !(A == B);
  }
};

/// A stream: a named one, or one of CUDA's special handles.
struct StreamId {
  enum KindTy : uint8_t {
    Named,
    LegacyDefault, ///< 0, nullptr, cudaStreamLegacy, CU_STREAM_LEGACY
    PerThread,     ///< cudaStreamPerThread, CU_STREAM_PER_THREAD
  };
  KindTy Kind = Named;
  EntityKey Key;

  static StreamId legacy() { return {LegacyDefault, {}}; }
  static StreamId perThread() { return {PerThread, {}}; }

  friend bool operator<(const StreamId &A, const StreamId &B) {
    return std::tie(A.Kind, A.Key) < std::tie(B.Kind, B.Key);
  }
  friend bool operator==(const StreamId &A, const StreamId &B) {
    return A.Kind == B.Kind && A.Key == B.Key;
  }
  friend bool operator!=(const StreamId &A, const StreamId &B) {
    return !(A == B);
  }
};

/// What is known about one point of stream work (a consumer use, or the
/// allocation itself): which events capture it and which streams are ordered
/// after it.
struct WorkFacts {
  /// Events recorded after this work on a stream that had it in order.
  std::set<EntityKey> CoveringEvents;
  /// Streams whose later work is ordered after this one, with the wait that
  /// ordered them (for notes).
  std::map<StreamId, const Stmt *> OrderedStreams;
  /// Work was followed by an operation on the legacy default stream, which
  /// orders it before later work on every blocking stream.
  bool OrderedByLegacyStream = false;
  /// The work reaches this point only through a loop back edge.
  bool FromEarlierIteration = false;

  /// Must-join: keep what holds on both paths.
  void meet(const WorkFacts &Other);
  friend bool operator==(const WorkFacts &A, const WorkFacts &B) {
    return A.CoveringEvents == B.CoveringEvents &&
           A.OrderedStreams == B.OrderedStreams &&
           A.OrderedByLegacyStream == B.OrderedByLegacyStream &&
           A.FromEarlierIteration == B.FromEarlierIteration;
  }
};

/// A use of a buffer by work on a stream, identified by its call site.
struct UseKey {
  StreamId Stream;
  const Stmt *Site = nullptr;
  friend bool operator<(const UseKey &A, const UseKey &B) {
    return std::tie(A.Stream, A.Site) < std::tie(B.Stream, B.Site);
  }
  friend bool operator==(const UseKey &A, const UseKey &B) {
    return A.Stream == B.Stream && A.Site == B.Site;
  }
};

/// A release that raced with uses: later waits for those uses on the release
/// stream are "late waits" worth a note.
struct RacyRelease {
  const Stmt *ReleaseSite = nullptr;
  StreamId ReleaseStream;
  StreamId UseStream;
  friend bool operator<(const RacyRelease &A, const RacyRelease &B) {
    return std::tie(A.ReleaseSite, A.ReleaseStream, A.UseStream) <
           std::tie(B.ReleaseSite, B.ReleaseStream, B.UseStream);
  }
  friend bool operator==(const RacyRelease &A, const RacyRelease &B) {
    return !(A < B) && !(B < A);
  }
};

/// The state of one buffer's current lifetime.
struct BufferState {
  /// Where and on which stream the lifetime began; null when it began
  /// outside the function (a parameter, a member, an unknown allocator).
  const Stmt *AllocSite = nullptr;
  std::optional<StreamId> AllocStream;
  /// The allocation point as stream work: who is ordered after it.
  WorkFacts AllocFacts;
  /// The allocation may not have completed for some stream yet.
  bool AllocPending = false;
  /// Consumer uses not yet known to be complete.
  std::map<UseKey, WorkFacts> PendingUses;
  /// Released (on some path) and not reallocated since.
  const Stmt *ReleaseSite = nullptr;
  std::set<RacyRelease> RacyReleases;

  void join(const BufferState &Other);
  friend bool operator==(const BufferState &A, const BufferState &B) {
    return A.AllocSite == B.AllocSite && A.AllocStream == B.AllocStream &&
           A.AllocFacts == B.AllocFacts && A.AllocPending == B.AllocPending &&
           A.PendingUses == B.PendingUses && A.ReleaseSite == B.ReleaseSite &&
           A.RacyReleases == B.RacyReleases;
  }
};

/// The last record of an event.
struct EventState {
  std::optional<StreamId>
      Stream; ///< Unknown after a join of disagreeing paths.
  const Stmt *RecordSite = nullptr;
  friend bool operator==(const EventState &A, const EventState &B) {
    return A.Stream == B.Stream && A.RecordSite == B.RecordSite;
  }
};

/// The lattice element at one program point.
struct LifetimeState {
  std::map<EntityKey, BufferState> Buffers;
  std::map<EntityKey, EventState> Events;
  /// Streams created in the function: true when non-blocking. Streams not in
  /// the map are assumed blocking (implicitly ordered with the legacy default
  /// stream), which suppresses warnings when in doubt.
  std::map<EntityKey, bool> NonBlockingStreams;
  /// False until some path reaches the point (the bottom element).
  bool Reachable = false;

  void join(const LifetimeState &Other);
  friend bool operator==(const LifetimeState &A, const LifetimeState &B) {
    return A.Reachable == B.Reachable && A.Buffers == B.Buffers &&
           A.Events == B.Events && A.NonBlockingStreams == B.NonBlockingStreams;
  }
  friend bool operator!=(const LifetimeState &A, const LifetimeState &B) {
    return !(A == B);
  }
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_LIFETIMESTATE_H
