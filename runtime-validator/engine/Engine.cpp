//===- Engine.cpp - the rules of the happens-before engine ----------------===//
//
// Engine.h states the model and the rules. This file applies them; the clocks
// live in VectorClock/HostClocks/StreamTable/EventTable and the byte ranges in
// Shadow. Decisions taken here, and why:
//
// * What a new lifetime must be ordered after (Segment::Past). At a release,
//   an access not ordered before the release point is reported (UnsafeFree) and
//   kept: the next lifetime's accesses that are not ordered after it are the
//   corruption itself (ReuseRace, AfterUnsafeFree). A caching allocator hands a
//   released block to the next allocation on its stream A with no ordering at
//   all, so for CachingAllocator releases every still-live access is kept too: a
//   new lifetime first used on a stream B that never waited on A races with A's
//   old accesses (FBGEMM's merge_pooled_embeddings). The driver's stream-ordered
//   pools order reuse themselves, and a synchronous cudaFree synchronized the
//   device, so there only the unsafe accesses are kept.
// * UseBeforeAlloc applies to AllocKind::StreamOrdered only: there the
//   allocation is an operation on its stream. A caching allocator's allocation is
//   a host-side decision; its hazards are the ReuseRace above.
// * Memory bound. An access record that the common host knowledge covers can
//   never be part of a finding again: a release checks against a host clock that
//   contains it, and every future enqueue starts from a host clock. Such records
//   are dropped when a segment is touched and by a periodic sweep, which also
//   merges neighbouring segments whose state became identical. What remains is
//   at most one record per stream per segment, capped by MaxRecordsPerSegment.
// * A finding is reported once per (lifetime, unordered access, new stream and
//   op); within one call the segments of one allocation give one finding whose
//   Bytes span them.
//
//===----------------------------------------------------------------------===//

#include "engine/Engine.h"
#include "engine/EventTable.h"
#include "engine/HostClocks.h"
#include "engine/Shadow.h"
#include "engine/StreamTable.h"
#include "engine/VectorClock.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace streamlife {
namespace rt {

FindingSink::~FindingSink() = default;

const char *findingKindName(FindingKind K) {
  switch (K) {
  case FindingKind::UnsafeFree:
    return "unsafe-free";
  case FindingKind::ReuseRace:
    return "reuse-race";
  case FindingKind::UseBeforeAlloc:
    return "use-before-alloc";
  case FindingKind::UseAfterFree:
    return "use-after-free";
  }
  return "unknown";
}

namespace {

/// A finding produced during one engine call. Key identifies it; Lifetime is
/// the allocation whose Reported list remembers it across calls.
struct PendingFinding {
  Finding F;
  ReportKey Key;
};

ReportKey keyOf(const Finding &F, AllocId OldLifetime) {
  return ReportKey{F.Kind, OldLifetime, F.Unordered, F.NewAccess};
}

/// Which release kinds free which allocation kinds (a caching allocator's blocks
/// may sit inside a cudaMalloc'd segment that starts at the same address).
bool releases(ReleaseKind R, AllocKind A) {
  switch (R) {
  case ReleaseKind::SyncFree:
    return A == AllocKind::Device || A == AllocKind::Managed;
  case ReleaseKind::StreamOrdered:
    return A == AllocKind::StreamOrdered;
  case ReleaseKind::CachingAllocator:
    return A == AllocKind::CachingAllocator;
  }
  return false;
}

bool sameKindClass(AllocKind A, AllocKind B) {
  auto Class = [](AllocKind K) {
    return K == AllocKind::Managed ? AllocKind::Device : K;
  };
  return Class(A) == Class(B);
}

constexpr std::size_t MinSweepInterval = 4096;

} // namespace

struct Engine::Impl {
  Impl(FindingSink &Sink, const EngineOptions &Opts)
      : Sink(Sink), Opts(Opts), Hosts(Opts.Hosts, Slots), Streams(Slots) {
    if (this->Opts.MaxRecordsPerSegment == 0)
      this->Opts.MaxRecordsPerSegment = 1;
  }

  FindingSink &Sink;
  EngineOptions Opts;
  mutable std::mutex Mu;

  SlotAllocator Slots;
  HostClocks Hosts;
  StreamTable Streams;
  EventTable Events;
  Shadow Memory;
  /// Live allocations by base address (release() names only the base).
  std::unordered_multimap<Addr, std::shared_ptr<Allocation>> LiveByBase;
  AllocId NextAllocation = 1;

  std::vector<PendingFinding> Pending; ///< reused across calls
  std::size_t FindingCount = 0;
  std::size_t DroppedRecords = 0;
  std::size_t OpsSinceSweep = 0;
  std::uint64_t SweptAtVersion = 0;

  // --- findings ------------------------------------------------------------
  /// Queues F unless this lifetime (Remember) reported it already. Pieces of
  /// one finding from several segments of a call merge into one Bytes span.
  void offer(Allocation &Remember, const Finding &F, AllocId OldLifetime = 0) {
    ReportKey Key = keyOf(F, OldLifetime);
    for (PendingFinding &Queued : Pending) {
      if (!(Queued.Key == Key))
        continue;
      Addr Begin = std::min(Queued.F.Bytes.Begin, F.Bytes.Begin);
      Addr End = std::max(Queued.F.Bytes.end(), F.Bytes.end());
      Queued.F.Bytes = Range{Begin, End - Begin};
      return;
    }
    if (Remember.firstReport(Key, Opts.MaxRememberedReports))
      Pending.push_back(PendingFinding{F, Key});
  }

  void flush() {
    for (const PendingFinding &Queued : Pending) {
      ++FindingCount;
      Sink.report(Queued.F);
    }
    Pending.clear();
  }

  // --- records -------------------------------------------------------------
  /// Drops the records every host already knows about (see the file comment).
  void pruneDead(Segment &Seg, const VectorClock &Common) {
    auto DeadNow = [&](const AccessRecord &R) { return Common.covers(R.At); };
    Seg.Current.erase(std::remove_if(Seg.Current.begin(), Seg.Current.end(), DeadNow),
                      Seg.Current.end());
    Seg.Past.erase(std::remove_if(Seg.Past.begin(), Seg.Past.end(),
                                  [&](const PastAccess &P) { return DeadNow(P.Access); }),
                   Seg.Past.end());
  }

  void keepPast(Segment &Seg, const PastAccess &Kept) {
    for (PastAccess &Old : Seg.Past) {
      if (Old.Access.Stream != Kept.Access.Stream)
        continue;
      // Same stream: whatever is ordered after the later access is ordered after
      // the earlier one too (even from an older lifetime), so one record does.
      if (Old.Access.At.Time <= Kept.Access.At.Time)
        Old = Kept;
      return;
    }
    if (Seg.Past.size() >= Opts.MaxRecordsPerSegment) {
      Seg.Past.erase(Seg.Past.begin());
      ++DroppedRecords;
    }
    Seg.Past.push_back(Kept);
  }

  void recordAccess(Segment &Seg, StreamId S, Epoch At, OpId Op, const VectorClock &Common) {
    bool Updated = false;
    std::size_t Out = 0;
    for (std::size_t I = 0; I < Seg.Current.size(); ++I) {
      AccessRecord &R = Seg.Current[I];
      if (R.Stream == S) {
        R.At = At;
        R.Op = Op;
        Updated = true;
      } else if (Common.covers(R.At)) {
        continue; // dead: drop while we are here
      }
      if (Out != I)
        Seg.Current[Out] = R;
      ++Out;
    }
    Seg.Current.resize(Out);
    if (Updated)
      return;
    if (Seg.Current.size() >= Opts.MaxRecordsPerSegment) {
      Seg.Current.erase(Seg.Current.begin());
      ++DroppedRecords;
    }
    Seg.Current.push_back(AccessRecord{S, At, Op});
  }

  // --- the access rules ----------------------------------------------------
  /// Work on S at epoch At touches R. Only, when set, restricts the access to
  /// the segments of that allocation (WholeAllocation).
  void touch(StreamState &S, Epoch At, Range R, OpId Op, const Allocation *Only) {
    const VectorClock &Common = Hosts.commonKnowledge();
    Memory.forEachIn(R, [&](Addr Begin, Segment &Seg) {
      Allocation &A = *Seg.Owner;
      if (Only && &A != Only)
        return;
      Range Bytes{Begin, Seg.End - Begin};
      if (!Seg.Live) {
        Finding F = describe(FindingKind::UseAfterFree, Bytes, A);
        F.Released = AccessPoint{A.ReleaseStream, A.ReleaseSite};
        F.NewAccess = AccessPoint{S.Id, Op};
        offer(A, F);
        return;
      }

      for (std::size_t I = 0; I < Seg.Past.size();) {
        const PastAccess &Before = Seg.Past[I];
        if (Common.covers(Before.Access.At)) {
          Seg.Past.erase(Seg.Past.begin() + I);
          continue;
        }
        ++I;
        if (S.Clock.covers(Before.Access.At))
          continue;
        const Allocation &Old = *Before.Lifetime;
        Finding F = describe(FindingKind::ReuseRace, Bytes, Old);
        F.Unordered = AccessPoint{Before.Access.Stream, Before.Access.Op};
        F.Released = AccessPoint{Old.ReleaseStream, Old.ReleaseSite};
        F.NewAccess = AccessPoint{S.Id, Op};
        F.AfterUnsafeFree = Before.UnsafeAtRelease;
        F.NewAllocation = A.Bytes;
        F.Reallocated = AccessPoint{A.Stream, A.Site};
        offer(A, F, Old.Id);
      }

      if (A.Kind == AllocKind::StreamOrdered && A.Point.Slot != NoSlot &&
          !S.Clock.covers(A.Point)) {
        Finding F = describe(FindingKind::UseBeforeAlloc, Bytes, A);
        F.NewAccess = AccessPoint{S.Id, Op};
        offer(A, F);
      }

      recordAccess(Seg, S.Id, At, Op, Common);
    });
  }

  static Finding describe(FindingKind K, Range Bytes, const Allocation &A) {
    Finding F;
    F.Kind = K;
    F.Bytes = Bytes;
    F.Allocation = A.Bytes;
    F.Alloc = A.Kind;
    F.Allocated = AccessPoint{A.Stream, A.Site};
    return F;
  }

  /// Resolves WholeAllocation and touches.
  void access(StreamState &S, Epoch At, Range R, OpId Op) {
    if (R.Size != WholeAllocation) {
      if (R.Begin + R.Size < R.Begin) // wraps around: clamp
        R.Size = ~Addr(0) - R.Begin;
      touch(S, At, R, Op, nullptr);
      return;
    }
    if (!Memory.mayContain(R.Begin))
      return;
    Segment *Seg = Memory.find(R.Begin);
    if (!Seg)
      return;
    // A raw pointer is enough: touch() only splits segments, which copies
    // owners; nothing it does can drop the last reference.
    const Allocation *Owner = Seg->Owner.get();
    touch(S, At, Owner->Bytes, Op, Owner);
  }

  // --- synchronization -----------------------------------------------------
  void syncDevice(HostClock &H, int Device) {
    Streams.syncDevice(H, Device);
    Hosts.learned(H);
  }

  // --- allocations -----------------------------------------------------------
  std::shared_ptr<Allocation> findLive(Addr Base, ReleaseKind Kind) {
    auto [Begin, End] = LiveByBase.equal_range(Base);
    std::shared_ptr<Allocation> Best;
    for (auto It = Begin; It != End; ++It)
      if (releases(Kind, It->second->Kind) && (!Best || It->second->Id > Best->Id))
        Best = It->second;
    if (Best)
      return Best;
    // The intercept layer may not know what kind the pointer is (cudaFree of a
    // pool pointer): fall back to the newest live allocation at Base.
    for (auto It = Begin; It != End; ++It)
      if (!Best || It->second->Id > Best->Id)
        Best = It->second;
    return Best;
  }

  void forgetLive(const Allocation &A) {
    auto [Begin, End] = LiveByBase.equal_range(A.Bytes.Begin);
    for (auto It = Begin; It != End; ++It) {
      if (It->second.get() == &A) {
        LiveByBase.erase(It);
        return;
      }
    }
  }

  void allocate(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device) {
    if (R.Size == 0 || R.Size == WholeAllocation || R.Begin + R.Size < R.Begin)
      return;
    HostClock &H = Hosts.of(T);
    auto A = std::make_shared<Allocation>();
    A->Id = NextAllocation++;
    A->Bytes = R;
    A->Kind = Kind;
    A->Device = Device;
    A->Site = Site;
    if (StreamState *St = Streams.get(S)) {
      A->Stream = St->Id;
      A->Point = Kind == AllocKind::StreamOrdered ? Streams.enqueue(*St, H) : St->now();
    }

    // Bytes that were still live end their old lifetime here. For an
    // allocation of the same kind (a free we did not see, an allocator reusing
    // its own memory) the old accesses become Past: the new lifetime must be
    // ordered after them. A block carved out of a live allocation of another
    // kind (a caching allocator's block inside its cudaMalloc'd segment) does
    // not inherit the segment's accesses: those were attributed to the whole
    // segment before the allocator's blocks were known (a pointer names an
    // allocation, not bytes), so they would make every first block a race.
    const VectorClock &Common = Hosts.commonKnowledge();
    Memory.forEachIn(R, [&](Addr, Segment &Seg) {
      pruneDead(Seg, Common);
      if (Seg.Live && sameKindClass(Seg.Owner->Kind, Kind))
        for (const AccessRecord &Rec : Seg.Current)
          keepPast(Seg, PastAccess{Rec, Seg.Owner, false});
      Seg.Current.clear();
      Seg.Owner = A;
      Seg.Live = true;
    });
    Memory.fillGaps(R, A);

    // An older live allocation of the same kind fully inside R lost all its
    // bytes: it can no longer be released, so stop tracking it.
    auto [Begin, End] = LiveByBase.equal_range(R.Begin);
    for (auto It = Begin; It != End;) {
      const Allocation &Old = *It->second;
      if (sameKindClass(Old.Kind, Kind) && Old.Bytes.end() <= R.end())
        It = LiveByBase.erase(It);
      else
        ++It;
    }
    LiveByBase.emplace(R.Begin, std::move(A));
  }

  void release(ThreadId T, Addr Base, ReleaseKind Kind, StreamId S, OpId Site) {
    HostClock &H = Hosts.of(T);
    std::shared_ptr<Allocation> A = findLive(Base, Kind);
    if (Kind == ReleaseKind::SyncFree) {
      // cudaFree synchronizes the device before it frees. For a pointer we do
      // not track we still know the device if its bytes were ever tracked.
      int Device = 0;
      bool Known = false;
      if (A) {
        Device = A->Device;
        Known = true;
      } else if (const Segment *Seg = Memory.find(Base)) {
        Device = Seg->Owner->Device;
        Known = true;
      }
      if (Known)
        syncDevice(H, Device);
    }
    if (!A)
      return; // untracked pointer or a double free: not this engine's rules

    StreamState *R = Kind == ReleaseKind::SyncFree ? nullptr : Streams.get(S);
    if (R && Kind == ReleaseKind::StreamOrdered)
      Streams.enqueue(*R, H); // the free is an operation on R
    // The release point: R's clock joined with the releasing host's knowledge
    // (and the legacy-stream ordering R's next work inherits).
    auto OrderedBeforeRelease = [&](const AccessRecord &Rec) {
      if (R)
        return Rec.Stream == R->Id || Streams.nextWorkOrderedAfter(*R, H, Rec.At);
      return H.Clock.covers(Rec.At);
    };
    const bool KeepOrderedAccesses = Kind == ReleaseKind::CachingAllocator;

    const VectorClock &Common = Hosts.commonKnowledge();
    Memory.forEachIn(A->Bytes, [&](Addr Begin, Segment &Seg) {
      if (Seg.Owner != A || !Seg.Live)
        return;
      pruneDead(Seg, Common);
      for (const AccessRecord &Rec : Seg.Current) {
        bool Unsafe = !OrderedBeforeRelease(Rec);
        if (Unsafe) {
          Finding F = describe(FindingKind::UnsafeFree, Range{Begin, Seg.End - Begin}, *A);
          F.Unordered = AccessPoint{Rec.Stream, Rec.Op};
          F.Released = AccessPoint{R ? R->Id : NoStream, Site};
          offer(*A, F);
        }
        if (Unsafe || KeepOrderedAccesses)
          keepPast(Seg, PastAccess{Rec, A, Unsafe});
      }
      Seg.Current.clear();
      Seg.Live = false;
    });
    A->Released = true;
    A->HowReleased = Kind;
    A->ReleaseStream = R ? R->Id : NoStream;
    A->ReleaseSite = Site;
    forgetLive(*A);
  }

  // --- memory bound --------------------------------------------------------
  void maybeSweep() {
    if (++OpsSinceSweep < std::max(MinSweepInterval, 2 * Memory.segments()))
      return;
    OpsSinceSweep = 0;
    if (Hosts.version() == SweptAtVersion)
      return; // nothing died since the last sweep
    SweptAtVersion = Hosts.version();
    const VectorClock &Common = Hosts.commonKnowledge();
    Memory.sweep([&](Segment &Seg) { pruneDead(Seg, Common); });
  }
};

Engine::Engine(FindingSink &Sink) : Engine(Sink, EngineOptions()) {}
Engine::Engine(FindingSink &Sink, const EngineOptions &Options)
    : P(std::make_unique<Impl>(Sink, Options)) {}
Engine::~Engine() = default;

StreamId Engine::stream(ThreadId, const StreamDesc &Desc) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  return P->Streams.lookupOrCreate(Desc, P->Hosts.commonKnowledge()).Id;
}

void Engine::streamDestroyed(ThreadId, StreamId S) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  P->Streams.destroy(S);
}

StreamInfo Engine::streamInfo(StreamId S) const {
  std::lock_guard<std::mutex> Lock(P->Mu);
  StreamInfo Info;
  if (const StreamState *St = P->Streams.get(S)) {
    Info.Desc = St->Desc;
    Info.Id = St->Id;
    Info.Destroyed = St->Destroyed;
  }
  return Info;
}

void Engine::eventRecorded(ThreadId T, Handle Event, StreamId S) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  StreamState *St = P->Streams.get(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  P->Events.record(Event, St->Clock, At);
}

void Engine::streamWaitsEvent(ThreadId T, StreamId S, Handle Event) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  StreamState *St = P->Streams.get(S);
  const RecordedEvent *E = P->Events.find(Event);
  if (!St || !E)
    return; // waiting on a never-recorded event completes at once
  P->Streams.enqueue(*St, P->Hosts.of(T), &E->Snapshot);
}

void Engine::hostSyncsEvent(ThreadId T, Handle Event) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  const RecordedEvent *E = P->Events.find(Event);
  if (!E)
    return;
  HostClock &H = P->Hosts.of(T);
  if (H.Clock.covers(E->At))
    return;
  H.Clock.join(E->Snapshot);
  P->Hosts.learned(H);
}

void Engine::hostSyncsStream(ThreadId T, StreamId S) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  const StreamState *St = P->Streams.get(S);
  if (!St)
    return;
  HostClock &H = P->Hosts.of(T);
  if (H.Clock.covers(St->now()))
    return;
  H.Clock.join(St->Clock);
  P->Hosts.learned(H);
}

void Engine::hostSyncsDevice(ThreadId T, int Device) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  P->syncDevice(P->Hosts.of(T), Device);
}

void Engine::eventDestroyed(ThreadId, Handle Event) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  P->Events.destroy(Event);
}

void Engine::allocated(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  P->allocate(T, R, Kind, S, Site, Device);
  P->flush();
  P->maybeSweep();
}

void Engine::released(ThreadId T, Addr Base, ReleaseKind Kind, StreamId S, OpId Site) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  P->release(T, Base, Kind, S, Site);
  P->flush();
  P->maybeSweep();
}

void Engine::accessed(ThreadId T, StreamId S, Range R, OpId Op) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  StreamState *St = P->Streams.get(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  P->access(*St, At, R, Op);
  P->flush();
  P->maybeSweep();
}

void Engine::launched(ThreadId T, StreamId S, const std::vector<Range> &Touched, OpId Op) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  StreamState *St = P->Streams.get(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  for (const Range &R : Touched)
    P->access(*St, At, R, Op);
  P->flush();
  P->maybeSweep();
}

void Engine::launchedWithPointers(ThreadId T, StreamId S, const Addr *Words, std::size_t Count,
                                  OpId Op) {
  std::lock_guard<std::mutex> Lock(P->Mu);
  StreamState *St = P->Streams.get(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  for (std::size_t I = 0; I < Count; ++I)
    P->access(*St, At, Range{Words[I], WholeAllocation}, Op);
  P->flush();
  P->maybeSweep();
}

bool Engine::isTracked(Addr A) const {
  if (!P->Memory.mayContain(A))
    return false;
  std::lock_guard<std::mutex> Lock(P->Mu);
  return P->Memory.find(A) != nullptr;
}

Engine::Stats Engine::stats() const {
  std::lock_guard<std::mutex> Lock(P->Mu);
  Stats S;
  S.Streams = P->Streams.size();
  S.LiveAllocations = P->LiveByBase.size();
  S.ShadowSegments = P->Memory.segments();
  for (const auto &Entry : P->Memory.map())
    S.RecordedAccesses += Entry.second.Current.size() + Entry.second.Past.size();
  S.Findings = P->FindingCount;
  S.DroppedRecords = P->DroppedRecords;
  S.HostClocks = P->Hosts.threads();
  S.ClockSlots = P->Slots.count();
  S.Events = P->Events.size();
  return S;
}

} // namespace rt
} // namespace streamlife
