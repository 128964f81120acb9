//===- Engine.cpp - the engine's entry points ------------------------------===//
//
// Engine.h states the model and the rules. Each entry point takes the engine
// lock, translates the call into clock operations (StreamTable, HostClocks,
// EventTable) or a rule (AccessRules.cpp, LifetimeRules.cpp), hands the
// findings of the call to the sink, and lets the memory bound run
// (RecordRetention.cpp).
//
//===----------------------------------------------------------------------===//

#include "engine/EngineImpl.h"

#include <algorithm>

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

Engine::Impl::Impl(FindingSink &Sink, const EngineOptions &Opts)
    : Sink(Sink), Opts(Opts), Hosts(Slots, Opts.ChangedSlotJoins), Syncs(Opts.MaxSyncObjects, Opts.ChangedSlotJoins),
      Streams(Slots, Opts.ChangedSlotJoins) {
  if (this->Opts.MaxRecordsPerSegment == 0)
    this->Opts.MaxRecordsPerSegment = 1;
}

void Engine::Impl::syncDevice(HostClock &H, int Device) {
  Streams.syncDevice(H, Device);
  Hosts.learned(H);
}

Engine::Engine(FindingSink &Sink) : Engine(Sink, EngineOptions()) {}
Engine::Engine(FindingSink &Sink, const EngineOptions &Options)
    : P(std::make_unique<Impl>(Sink, Options)) {}
Engine::~Engine() = default;

StreamId Engine::stream(ThreadId, const StreamDesc &Desc) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  return P->Streams.lookupOrCreate(Desc, P->Hosts.common()).Id;
}

void Engine::streamDestroyed(ThreadId, StreamId S) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->Streams.destroy(S);
}

StreamInfo Engine::streamInfo(StreamId S) const {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  StreamInfo Info;
  if (const StreamState *St = P->Streams.get(S)) {
    Info.Desc = St->Desc;
    Info.Id = St->Id;
    Info.Destroyed = St->Destroyed;
  }
  return Info;
}

// The three verbs of a launch-bound step read the engine's state through one
// reference: through P, every use reloaded the pointer after each store.
void Engine::eventRecorded(ThreadId T, Handle Event, StreamId S) {
  Impl &I = *P;
  std::lock_guard<FutexMutex> Lock(I.Mu);
  StreamState *St = I.Streams.live(S);
  if (!St)
    return;
  Epoch At = I.Streams.enqueue(*St, I.Hosts.of(T));
  I.Events.record(Event, St->Clock, At);
}

void Engine::streamWaitsEvent(ThreadId T, StreamId S, Handle Event) {
  Impl &I = *P;
  std::lock_guard<FutexMutex> Lock(I.Mu);
  StreamState *St = I.Streams.live(S);
  const RecordedEvent *E = I.Events.find(Event);
  if (!St || !E)
    return; // waiting on a never-recorded event completes at once
  I.Streams.enqueue(*St, I.Hosts.of(T), &E->Snapshot);
}

void Engine::hostSyncsEvent(ThreadId T, Handle Event) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
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
  std::lock_guard<FutexMutex> Lock(P->Mu);
  const StreamState *St = P->Streams.live(S);
  if (!St)
    return;
  HostClock &H = P->Hosts.of(T);
  if (H.Clock.covers(St->now()))
    return;
  H.Clock.join(St->Clock);
  P->Hosts.learned(H);
}

void Engine::hostSyncsDevice(ThreadId T, int Device) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->syncDevice(P->Hosts.of(T), Device);
}

void Engine::eventDestroyed(ThreadId, Handle Event) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->Events.destroy(Event);
}

void Engine::Impl::hostSync(const HostSync &Event) {
  switch (Event.What) {
  case HostSync::Kind::Releases: {
    HostClock &H = Hosts.forSync(Event.Thread);
    Syncs.release(H, Event.Sync);
    Hosts.released(H);
    return;
  }
  case HostSync::Kind::Acquires: {
    SyncClock *C = Syncs.find(Event.Sync);
    if (!C)
      return; // never released: orders nothing
    HostClock &H = Hosts.forSync(Event.Thread);
    if (Syncs.acquire(H, *C))
      Hosts.learned(H);
    return;
  }
  case HostSync::Kind::Destroyed:
    Syncs.forget(Event.Sync);
    return;
  case HostSync::Kind::Finished:
    Hosts.finished(Event.Thread);
    return;
  }
}

void Engine::hostReleases(ThreadId T, SyncId Sync) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->hostSync(HostSync{HostSync::Kind::Releases, T, Sync});
}

void Engine::hostAcquires(ThreadId T, SyncId Sync) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->hostSync(HostSync{HostSync::Kind::Acquires, T, Sync});
}

void Engine::syncDestroyed(SyncId Sync) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->hostSync(HostSync{HostSync::Kind::Destroyed, 0, Sync});
}

void Engine::hostFinished(ThreadId T) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->hostSync(HostSync{HostSync::Kind::Finished, T, 0});
}

void Engine::hostSyncs(const HostSync *Events, std::size_t Count) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  for (std::size_t I = 0; I < Count; ++I)
    P->hostSync(Events[I]);
}

Engine::HostState Engine::hostState(ThreadId T) const { return P->Hosts.published(T); }

const std::atomic<std::uint64_t> *Engine::hostStateWord(ThreadId T) const {
  return P->Hosts.publishedWordIfAny(T);
}

void Engine::allocated(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device,
                       PoolId Pool) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->allocate(T, R, Kind, S, Site, Device, Pool);
  P->FindingCount += P->Findings.flush(P->Sink);
  P->maybeSweep();
}

void Engine::released(ThreadId T, Addr Base, ReleaseKind Kind, StreamId S, OpId Site) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  P->release(T, Base, Kind, S, Site);
  P->FindingCount += P->Findings.flush(P->Sink);
  P->maybeSweep();
}

void Engine::accessed(ThreadId T, StreamId S, Range R, OpId Op) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  StreamState *St = P->Streams.live(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  P->access(*St, At, R, Op);
  P->FindingCount += P->Findings.flush(P->Sink);
  P->maybeSweep();
}

void Engine::launched(ThreadId T, StreamId S, const std::vector<Range> &Touched, OpId Op) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  StreamState *St = P->Streams.live(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  for (const Range &R : Touched)
    P->access(*St, At, R, Op);
  P->FindingCount += P->Findings.flush(P->Sink);
  P->maybeSweep();
}

void Engine::launchedWithPointers(ThreadId T, StreamId S, const Addr *Words, std::size_t Count,
                                  OpId Op) {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  StreamState *St = P->Streams.live(S);
  if (!St)
    return;
  Epoch At = P->Streams.enqueue(*St, P->Hosts.of(T));
  for (std::size_t I = 0; I < Count; ++I)
    P->access(*St, At, Range{Words[I], WholeAllocation}, Op);
  P->FindingCount += P->Findings.flush(P->Sink);
  P->maybeSweep();
}

std::size_t Engine::launchedWithPointerWords(ThreadId T, StreamId S, const PointerWord *Words,
                                             std::size_t Count, OpId Op, OpId GenericOp) {
  Impl &Im = *P;
  std::lock_guard<FutexMutex> Lock(Im.Mu);
  StreamState *St = Im.Streams.live(S);
  if (!St)
    return 0;
  Epoch At = Im.Streams.enqueue(*St, Im.Hosts.of(T));
  // A _foreach_ launch names hundreds of tensors, often many in one
  // allocation: each allocation is checked and recorded once per launch, by
  // its first decoded word (so a report names the decoded access, not a
  // generic-scan word into the same allocation).
  const std::uint64_t ThisLaunch = ++Im.LaunchSerial;
  std::size_t Ignored = 0;
  // The second pass reads the generic-scan words; most launches have none
  // (every parameter decoded), and the first pass notes whether any came.
  bool AnyGeneric = false;
  for (int Pass = 0; Pass < 1 + int(AnyGeneric); ++Pass) {
    bool Generic = Pass == 1;
    // A declared pointer equal to the one before it (an in-place kernel's
    // input and output) finds the same allocation, already touched: skipped
    // before the shadow lookup. Not generic words: each ignored one counts.
    bool HavePrevious = false;
    Addr Previous = 0;
    for (std::size_t I = 0; I < Count; ++I) {
      const PointerWord &W = Words[I];
      if (W.FromGenericScan != Generic) {
        AnyGeneric |= W.FromGenericScan;
        continue;
      }
      if (!Generic) {
        if (HavePrevious && W.Word == Previous)
          continue;
        HavePrevious = true;
        Previous = W.Word;
      }
      if (!Im.Memory.mayContain(W.Word))
        continue;
      Addr SegBegin = 0;
      Segment *Seg = Im.Memory.find(W.Word, &SegBegin);
      if (!Seg || !Seg->Owner)
        continue;
      const Allocation *Owner = Seg->Owner.get();
      if (Generic && (!Seg->Live || Owner->Released)) {
        ++Ignored;
        continue;
      }
      if (Owner->TouchedByLaunch == ThisLaunch)
        continue;
      Owner->TouchedByLaunch = ThisLaunch;
      OpId Access = Generic ? GenericOp : Op;
      // An allocation that is one segment (the common case) is the segment
      // just found: no second lookup of it.
      if (SegBegin == Owner->Bytes.Begin && Seg->End == Owner->Bytes.end())
        Im.touchSegment(*St, At, SegBegin, *Seg, Access);
      else
        Im.touch(*St, At, Owner->Bytes, Access, Owner);
    }
  }
  Im.FindingCount += Im.Findings.flush(Im.Sink);
  Im.maybeSweep();
  return Ignored;
}

bool Engine::isTracked(Addr A) const {
  if (!P->Memory.mayContain(A))
    return false;
  std::lock_guard<FutexMutex> Lock(P->Mu);
  return P->Memory.find(A) != nullptr;
}

Engine::Stats Engine::stats() const {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  Stats S;
  S.Streams = P->Streams.size();
  S.LiveAllocations = P->LiveAllocations;
  S.ShadowSegments = P->Memory.segments();
  for (const auto &Entry : P->Memory.map())
    S.RecordedAccesses += Entry.second.Current.size() + Entry.second.Past.size();
  S.Findings = P->FindingCount;
  S.DroppedRecords = P->DroppedRecords;
  S.HostClocks = P->Hosts.threads();
  S.ClockSlots = P->Slots.count();
  S.Events = P->Events.size();
  const CommonKnowledge &Common = P->Hosts.common();
  S.DeferredNotReported = P->HazardsResolved;
  for (const PendingHazard &H : P->Hazards.all()) {
    ++S.DeferredNotReported;
    S.DeferredPending += !Common.covers(H.Access.At);
  }
  S.SyncObjects = P->Syncs.size();
  S.ConcurrentAllocations = P->Recent.entries();
  return S;
}

std::vector<Engine::DeferredRelease> Engine::deferredReleases() const {
  std::lock_guard<FutexMutex> Lock(P->Mu);
  const CommonKnowledge &Common = P->Hosts.common();
  std::vector<std::pair<AccessPoint, AccessPoint>> Pending;
  std::vector<std::pair<AccessPoint, AccessPoint>> Ordered;
  for (const PendingHazard &H : P->Hazards.all()) {
    auto Pair = std::make_pair(AccessPoint{H.Lifetime->ReleaseStream, H.Lifetime->ReleaseSite},
                               AccessPoint{H.Access.Stream, H.Access.Op});
    (Common.covers(H.Access.At) ? Ordered : Pending).push_back(Pair);
  }
  DeferredReleases All = P->Deferred;
  for (const auto &O : Ordered)
    All.add(O.first, O.second);
  return All.withPending(Pending);
}

} // namespace rt
} // namespace streamlife
