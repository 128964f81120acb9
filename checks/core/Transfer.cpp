//===--- Transfer.cpp - streamlife ----------------------------------------===//
//
// The transfer functions of the lifetime analysis (see Transfer.h). The
// summary application (calls) is in SummaryApply.cpp.
//
//===----------------------------------------------------------------------===//

#include "Transfer.h"
#include "llvm/ADT/STLExtras.h"
#include "UseGroups.h"
#include <algorithm>
#include <cassert>

namespace streamlife {
namespace core {

using namespace ir;

Observer::~Observer() = default;

namespace {

/// Whether the object has pending stream work: its uses, or an allocation
/// not known complete on a known stream. An object without any is left
/// alone by every walk over pending work.
bool hasWork(const ObjectState &Object) {
  return !Object.Uses.empty() || (Object.AllocPending && Object.AllocStream);
}

/// Calls \p Callback on every piece of pending stream work: consumer uses,
/// allocations not yet known complete, the caller's earlier work, and each
/// caching pool's last release point.
template <typename Fn> void forEachWork(LifetimeState &State, Fn Callback) {
  for (auto It = State.Objects.begin(); It != State.Objects.end(); ++It) {
    // An object without pending work stays shared (see SharedMap.h).
    if (It->second.Escaped || !hasWork(It->second))
      continue;
    ObjectState &Object = State.Objects.mutableAt(It);
    for (UseGroup &G : Object.Uses)
      Callback(G.Stream, G.Facts);
    if (Object.Uses.size() > 1 && !normalizeGroups(Object.Uses))
      State.GroupsMerged = true; // facts may now coincide
    if (Object.AllocPending && Object.AllocStream)
      Callback(*Object.AllocStream, Object.AllocFacts);
  }
  for (auto &[Key, Release] : State.Deferred) {
    for (UseGroup &G : Release.Uses)
      Callback(G.Stream, G.Facts);
    if (Release.Uses.size() > 1 && !normalizeGroups(Release.Uses))
      State.GroupsMerged = true;
  }
  for (auto &[Key, Work] : State.Entry)
    if (Work.Pending)
      Callback(Key, Work.Facts);
  for (auto &[Key, Work] : State.PoolSince)
    if (Work.Pending)
      Callback(Key, Work.Facts);
}

bool enqueuesWork(OpKind Kind) {
  switch (Kind) {
  case OpKind::Use:
  case OpKind::Allocate:
  case OpKind::Release:
  case OpKind::RecordEvent:
  case OpKind::WaitEvent:
  case OpKind::WaitStream:
    return true;
  default:
    return false;
  }
}

/// Operations that mean nothing without their stream.
bool needsStream(OpKind Kind) {
  switch (Kind) {
  case OpKind::Allocate:
  case OpKind::Use:
  case OpKind::RecordEvent:
  case OpKind::WaitEvent:
  case OpKind::WaitStream:
  case OpKind::SyncStream:
  case OpKind::RecordStream:
  case OpKind::SetReleaseStream:
    return true;
  default:
    return false;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

std::optional<StreamKey> Transfer::resolve(const StreamRef &Ref,
                                           const LifetimeState &State) const {
  switch (Ref.Kind) {
  case StreamRef::Named: {
    assert(Ref.Name != NoId && "a named stream without a name");
    auto Alias = State.StreamAliases.find(Ref.Name);
    if (Alias != State.StreamAliases.end())
      return Alias->second;
    return StreamKey::named(Ref.Name);
  }
  case StreamRef::LegacyDefault:
    return StreamKey::legacy();
  case StreamRef::PerThread:
    return StreamKey::perThread();
  case StreamRef::Current:
    if (State.CurrentUnknown)
      return std::nullopt;
    if (State.CurrentStack.empty())
      return StreamKey::entryCurrent();
    return State.CurrentStack.back();
  case StreamRef::Unknown:
    return std::nullopt;
  }
  return std::nullopt;
}

bool Transfer::isBlocking(const StreamKey &S,
                          const LifetimeState &State) const {
  if (S.Kind != StreamKey::Named)
    return true; // The per-thread stream also syncs with the legacy stream.
  auto It = State.NonBlockingStreams.find(S.Name);
  return It == State.NonBlockingStreams.end() || !It->second;
}

bool Transfer::orderedBefore(const StreamKey &WorkStream,
                             const WorkFacts &Facts, const StreamKey &Later,
                             const LifetimeState &State) const {
  if (WorkStream == Later || Facts.OrderedStreams.count(Later))
    return true;
  // The legacy stream waits for earlier work on blocking streams, and
  // blocking streams wait for earlier work on the legacy stream.
  bool LaterBlocking = isBlocking(Later, State);
  if (Later.Kind == StreamKey::LegacyDefault && isBlocking(WorkStream, State))
    return true;
  if (WorkStream.Kind == StreamKey::LegacyDefault && LaterBlocking)
    return true;
  return Facts.OrderedByLegacyStream && LaterBlocking;
}

void Transfer::legacyStreamOperation(LifetimeState &State) const {
  forEachWork(State, [&](const StreamKey &WorkStream, WorkFacts &Facts) {
    if (isBlocking(WorkStream, State))
      Facts.OrderedByLegacyStream = true;
  });
}

//===----------------------------------------------------------------------===//
// Names and objects
//===----------------------------------------------------------------------===//

LifetimeState Transfer::entryState() const {
  LifetimeState State;
  State.Reachable = true;
  // The caller's earlier work on each stream this function can name: the
  // summary reads back what happened to it (synced, ordered, covered).
  State.Entry[StreamKey::legacy()];
  State.Entry[StreamKey::perThread()];
  State.Entry[StreamKey::entryCurrent()];
  State.Entry[StreamKey::unseen()];
  auto AddStream = [&](const StreamRef &Ref) {
    if (Ref.Kind == StreamRef::Named && Ref.Name < M.Names.size() &&
        M.Names[Ref.Name].PointeeOf == NoId)
      State.Entry[StreamKey::named(Ref.Name)];
  };
  for (const Block &B : F.Blocks)
    for (const Inst &I : B.Insts) {
      AddStream(I.Stream);
      AddStream(I.Stream2);
    }
  // Every call passes its current stream for these: they are that stream.
  for (NameId Param : F.CurrentStreamParams)
    State.StreamAliases[Param] = F.CurrentStreamParam != NoId
                                     ? StreamKey::named(F.CurrentStreamParam)
                                     : StreamKey::entryCurrent();
  // The caller's releases to every pool came before the call.
  for (const auto &[Key, Work] : State.Entry)
    State.PoolSince[Key];
  return State;
}

ObjectSet &Transfer::objectsOf(NameId Name, LifetimeState &State) const {
  auto [It, Inserted] = State.Names.try_emplace(Name);
  if (Inserted)
    It->second.push_back(objects::make(objects::Initial, Name));
  return It->second;
}

NameId Transfer::objectName(ObjectId Id, const ObjectState &Object) const {
  if (Object.AllocName != NoId)
    return Object.AllocName;
  if (objects::tag(Id) == objects::Initial)
    return objects::id(Id);
  return NoId;
}

bool Transfer::namedElsewhere(ObjectId Id, NameId Except,
                              const LifetimeState &State) const {
  for (const auto &[Name, Set] : State.Names)
    if (Name != Except && std::find(Set.begin(), Set.end(), Id) != Set.end())
      return true;
  return false;
}

void Transfer::bindObject(NameId Name, ObjectId Id, ObjectState Fresh,
                          SiteId Site, LifetimeState &State) const {
  // Recency: when the previous object of this site is still held by other
  // names (`prev = cur` before `cur` is re-allocated in a loop), it becomes
  // the site's "older" object instead of being overwritten.
  auto Previous = State.Objects.find(Id);
  if (Previous != State.Objects.end() && namedElsewhere(Id, Name, State)) {
    ObjectId Older =
        objects::make(objects::OlderAlloc, objects::id(Id));
    auto OldIt = State.Objects.find(Older);
    if (OldIt == State.Objects.end()) {
      State.Objects.assignShared(Older, State.Objects, Previous);
    } else if (!decltype(State.Objects)::shared(OldIt, Previous)) {
      if (!State.Objects.mutableAt(OldIt).join(Previous->second))
        State.GroupsMerged = true;
    }
    // Every holder, this name included: its old value is the older
    // object now, and killing it below must see that others still hold it
    // (else the object a container keeps would be released here).
    for (auto &[Other, Set] : State.Names) {
      auto Found = std::find(Set.begin(), Set.end(), Id);
      if (Found == Set.end())
        continue;
      Set.erase(Found);
      if (std::find(Set.begin(), Set.end(), Older) == Set.end()) {
        Set.push_back(Older);
        std::sort(Set.begin(), Set.end());
      }
    }
  }
  kill(Name, ValueKind::Buffer, Site, State);
  State.Names[Name] = ObjectSet{Id};
  State.Objects.assign(Id, std::move(Fresh));
}

void Transfer::allocate(const Inst &I, const StreamKey &S,
                        LifetimeState &State) const {
  // The new block may be one a deferred release put in S's pool; the
  // releases this allocation's rebinding makes come after it.
  reuseOpportunity(S, I.Site, State);
  State.AllocatesOn.insert(S);
  // An allocation that enqueues nothing is done, for a stream, once that
  // stream is ordered after its block's earlier tenants: after the pool's
  // last release point (see ir::Inst::EnqueuesNothing). Copied: binding the
  // names below may release their old values, which moves that point.
  std::optional<EntryWork> Pool;
  if (I.Fresh && I.Caching && I.EnqueuesNothing)
    if (auto Found = State.PoolSince.find(S); Found != State.PoolSince.end())
      Pool = Found->second;
  for (NameId Name : I.Names) {
    ObjectState Fresh;
    Fresh.AllocSite = I.Fresh ? I.Site : NoId;
    Fresh.AllocName = Name;
    Fresh.AllocStream = S;
    Fresh.AllocPending = I.Fresh && (!Pool || Pool->Pending);
    if (Pool)
      Fresh.AllocFacts = Pool->Facts;
    Fresh.Own = I.Own;
    Fresh.ReleaseStream = S;
    Fresh.Caching = I.Caching;
    bindObject(Name, objects::make(objects::RecentAlloc, I.Site),
               std::move(Fresh), I.Site, State);
  }
}

//===----------------------------------------------------------------------===//
// Uses and releases
//===----------------------------------------------------------------------===//

void Transfer::useObject(ObjectId Id, NameId Name, const StreamKey &S,
                         SiteId Site, WorkFacts Facts, LifetimeState &State,
                         const std::set<StreamKey> &AfterStreams,
                         bool CheckAlloc) const {
  if (auto Found = State.Objects.find(Id);
      Found != State.Objects.end() && Found->second.Escaped)
    return; // left shared: nothing changes
  ObjectState &Object = State.Objects[Id];
  auto BeforeUse = [&](const StreamKey &WorkStream, const WorkFacts &Work) {
    if (orderedBefore(WorkStream, Work, S, State))
      return true;
    // Through a caller stream whose earlier work the use is after: only
    // work on that stream, or work it explicitly waited for, is part of
    // that earlier work (the legacy stream's implicit ordering holds for
    // its later work only, and there may be none before the call).
    for (const StreamKey &After : AfterStreams)
      if (WorkStream == After || Work.OrderedStreams.count(After))
        return true;
    return false;
  };
  // A use of the caller's object: which of the caller's streams were
  // ordered before it on this path (see WorkFacts::AfterEntry).
  Facts.AfterEntry.clear();
  if (objects::tag(Id) == objects::Initial)
    for (const auto &[Key, Work] : State.Entry)
      if (!Work.Pending || BeforeUse(Key, Work.Facts))
        Facts.AfterEntry.insert(Key);
  if (CheckAlloc && Object.AllocSite != NoId && Object.AllocPending &&
      Object.AllocStream && !BeforeUse(*Object.AllocStream, Object.AllocFacts)) {
    if (Watcher)
      Watcher->useBeforeAlloc(Site, Name, S, Object);
    // Warn at the first unordered use only.
    Object.AllocFacts.OrderedStreams.insert({S, Site});
  }
  // The allocator already waits for this stream's work before reusing the
  // block (record_stream): the use cannot race with the release.
  if (llvm::is_contained(Object.RecordedOn, S))
    return;
  if (!addUse(Object.Uses, S, Facts, SiteList().with(Site)))
    State.GroupsMerged = true;
}

bool Transfer::isDeviceCurrent(const StreamKey &S) const {
  if (S.Kind == StreamKey::EntryCurrent)
    return true; // the current stream of the device current at entry
  return S.Kind == StreamKey::Named && S.Name < M.Names.size() &&
         M.Names[S.Name].DeviceCurrent;
}

StreamKey Transfer::operandDeviceStream(ObjectId Id, const StreamKey &S,
                                        const LifetimeState &State) const {
  // ATen runs an operation on the current stream of its operands' device.
  // When the current stream here is a device's own (no stream guard chose
  // it), an operand allocated on a device's current stream is on that
  // device, so the operation runs on that stream: an op on a tensor made on
  // device d, while another device is current, is d's work.
  auto Found = State.Objects.find(Id);
  if (Found == State.Objects.end() || !Found->second.AllocStream ||
      !isDeviceCurrent(S) || !isDeviceCurrent(*Found->second.AllocStream))
    return S;
  return *Found->second.AllocStream;
}

StreamKey Transfer::ownDeviceStream(ObjectId Id, const StreamKey &S,
                                    const LifetimeState &State) const {
  // `getCurrentCUDAStream(t.get_device())` is the current stream of t's
  // device. The front end names it after t's device, which may be any
  // device (t an entry replaced by its copy on another device): for an
  // object of t allocated on a device's current stream, t is on that
  // device, so the stream is the one the object was allocated on.
  if (S.Kind != StreamKey::Named || S.Name >= M.Names.size())
    return S;
  NameId Tensor = M.Names[S.Name].DeviceOf;
  if (Tensor == NoId)
    return S;
  auto Found = State.Objects.find(Id);
  if (Found == State.Objects.end() || !Found->second.AllocStream ||
      !isDeviceCurrent(*Found->second.AllocStream))
    return S;
  auto Held = State.Names.find(Tensor);
  if (Held == State.Names.end() || !llvm::is_contained(Held->second, Id))
    return S;
  return *Found->second.AllocStream;
}

bool Transfer::anotherEntryReady(NameId Name, const ObjectSet &Set,
                                 llvm::ArrayRef<StreamKey> On,
                                 const LifetimeState &State) const {
  if (Name >= M.Names.size() || !M.Names[Name].OneEntry)
    return false;
  // Per allocation stream: whether every entry allocated on it is ordered
  // before the use (a stream's newest entry is always among them).
  std::map<StreamKey, bool> ReadyByStream;
  for (size_t K = 0; K < Set.size(); ++K) {
    auto Found = State.Objects.find(Set[K]);
    if (Found == State.Objects.end())
      continue;
    const ObjectState &Object = Found->second;
    if (Object.Escaped || Object.AllocSite == NoId || !Object.AllocStream)
      continue;
    bool Ready = !Object.AllocPending || orderedBefore(*Object.AllocStream,
                                                       Object.AllocFacts,
                                                       On[K], State);
    auto [It, Inserted] = ReadyByStream.try_emplace(*Object.AllocStream, Ready);
    if (!Inserted)
      It->second = It->second && Ready;
  }
  if (ReadyByStream.size() < 2)
    return false;
  return llvm::any_of(ReadyByStream, [](const auto &Entry) { return Entry.second; });
}

void Transfer::use(const Inst &I, const StreamKey &S,
                   LifetimeState &State) const {
  for (NameId Name : I.Names) {
    ObjectSet Set = objectsOf(Name, State);
    llvm::SmallVector<StreamKey, 4> On;
    for (ObjectId Id : Set)
      On.push_back(I.OnOperandDevice ? operandDeviceStream(Id, S, State)
                                     : ownDeviceStream(Id, S, State));
    // One entry of a container is used, which one is not known. Entries
    // allocated on one stream are one allocation stream for the use (the
    // newest is the one a keepalive queue uses); entries allocated on
    // different streams (per-device entries of one vector, each later use
    // picking the entries of its device) are not: the use is before the
    // allocation only when it is before every entry's.
    bool CheckAlloc = !anotherEntryReady(Name, Set, On, State);
    for (size_t K = 0; K < Set.size(); ++K)
      useObject(Set[K], Name, On[K], I.Site, WorkFacts(), State, {},
                CheckAlloc);
  }
}

void Transfer::releaseObject(ObjectId Id, NameId Name,
                             const std::optional<StreamKey> &R, SiteId Site,
                             bool ByLastOwner, LifetimeState &State) const {
  auto Found = State.Objects.find(Id);
  if (Found == State.Objects.end()) {
    if (objects::tag(Id) != objects::Initial)
      return; // released before: nothing pending
    // A caller's buffer released here: the summary must say so.
    State.Objects[Id];
    Found = State.Objects.find(Id);
  }
  // The block may go back to R's pool here.
  poolReleasePoint(R, State);
  if (Found->second.Escaped)
    return;
  ObjectState &Object = State.Objects.mutableAt(Found);
  if (R) {
    llvm::SmallVector<UseGroup, 2> Racing;
    for (const UseGroup &G : Object.Uses)
      if (!orderedBefore(G.Stream, G.Facts, *R, State))
        Racing.push_back(G);
    if (!Racing.empty() && Object.Caching && !WaitBeforeFree) {
      // The block waits in R's pool: judged where it could be reused.
      DeferredRelease Release;
      Release.ByLastOwner = ByLastOwner;
      Release.AllocSite = Object.AllocSite;
      Release.AllocName = Object.AllocName;
      Release.AllocStream = Object.AllocStream;
      Release.Uses = std::move(Racing);
      DeferredKey Key{Site, Name, *R};
      auto Found = State.Deferred.find(Key);
      if (Found == State.Deferred.end())
        State.Deferred.emplace(Key, std::move(Release));
      else if (!Found->second.join(Release))
        State.GroupsMerged = true;
    } else if (!Racing.empty()) {
      judgeRelease(Site, Name, *R, ByLastOwner, Object, Racing, NoId, State);
    }
    if (objects::tag(Id) == objects::Initial) {
      // Summaries: which of the caller's streams were ordered before this
      // release, for the caller to check its own pending uses.
      EntryRelease Release{Site, *R, {}};
      for (const auto &[Key, Work] : State.Entry)
        if (!Work.Pending || orderedBefore(Key, Work.Facts, *R, State))
          Release.OrderedEntryStreams.insert(Key);
      Object.EntryReleases.insert(std::move(Release));
    }
  }
  // The lifetime ends; what raced has been reported at this release.
  Object.Uses.clear();
  Object.AllocPending = false;
  if (Object.EntryReleases.empty())
    State.Objects.erase(Found); // keep states small: nothing left to say
}

void Transfer::poolReleasePoint(const std::optional<StreamKey> &S,
                                LifetimeState &State) const {
  for (auto &[Key, Work] : State.PoolSince)
    if (!S || Key == *S)
      Work = EntryWork();
}

void Transfer::judgeRelease(SiteId Site, NameId Name, const StreamKey &R,
                            bool ByLastOwner, const ObjectState &Object,
                            const llvm::SmallVectorImpl<UseGroup> &Uses,
                            SiteId Reuse, LifetimeState &State) const {
  std::vector<Observer::Racing> Racing;
  for (const UseGroup &G : Uses) {
    auto &Releases = State.RacyReleases[{R, G.Stream}];
    Releases = Releases.with(Site);
    if (!Watcher)
      continue;
    std::vector<std::pair<SiteId, StreamKey>> Wrong;
    for (const auto &[Waiter, WaitSite] : G.Facts.OrderedStreams)
      Wrong.push_back({WaitSite, Waiter});
    for (SiteId UseSite : G.Sites.sites())
      Racing.push_back({UseSite, G.Stream, G.Facts.FromEarlierIteration, Wrong});
  }
  if (Watcher && !Racing.empty())
    Watcher->racingRelease(Site, Name, R, ByLastOwner, Object,
                           std::move(Racing), Reuse);
}

void Transfer::reuseOpportunity(const StreamKey &S, SiteId Site,
                                LifetimeState &State) const {
  for (auto It = State.Deferred.begin(); It != State.Deferred.end();) {
    const auto &[ReleaseSite, Name, R] = It->first;
    if (R != S) {
      ++It;
      continue;
    }
    const DeferredRelease &Release = It->second;
    ObjectState Released;
    Released.AllocSite = Release.AllocSite;
    Released.AllocName = Release.AllocName;
    Released.AllocStream = Release.AllocStream;
    judgeRelease(ReleaseSite, Name, R, Release.ByLastOwner, Released,
                 Release.Uses, Site, State);
    It = State.Deferred.erase(It);
  }
}

void Transfer::judgeAtReturn(LifetimeState &State) const {
  while (!State.Deferred.empty()) {
    StreamKey R = std::get<2>(State.Deferred.begin()->first);
    if (isPrivateAtReturn(R, State)) {
      // No allocation will ever be handed these blocks: as the runtime
      // validator's deferred releases that no allocation meets, not a
      // finding.
      for (auto It = State.Deferred.begin(); It != State.Deferred.end();)
        It = std::get<2>(It->first) == R ? State.Deferred.erase(It)
                                          : std::next(It);
      continue;
    }
    reuseOpportunity(R, NoId, State);
  }
}

bool Transfer::isPrivateAtReturn(const StreamKey &R,
                                 const LifetimeState &State) const {
  if (R.Kind != StreamKey::Named || R.Name >= M.Names.size() ||
      !M.name(R.Name).PrivateStream)
    return false;
  // Left current (a set_stream not undone), the caller allocates on it.
  return !State.CurrentUnknown && !llvm::is_contained(State.CurrentStack, R);
}

void Transfer::settleDeferred(LifetimeState &State) const {
  for (auto It = State.Deferred.begin(); It != State.Deferred.end();) {
    const StreamKey &R = std::get<2>(It->first);
    // Ordered before R: R's later allocations, and the work they do on the
    // block, come after the use.
    llvm::erase_if(It->second.Uses, [&](const UseGroup &G) {
      return orderedBefore(G.Stream, G.Facts, R, State);
    });
    It = It->second.Uses.empty() ? State.Deferred.erase(It) : std::next(It);
  }
}

//===----------------------------------------------------------------------===//
// Events and syncs
//===----------------------------------------------------------------------===//

void Transfer::recordEvent(NameId Event, const StreamKey &S, SiteId Site,
                           LifetimeState &State) const {
  State.Events[Event] = EventState{S, Site};
  forEachWork(State, [&](const StreamKey &WorkStream, WorkFacts &Facts) {
    if (orderedBefore(WorkStream, Facts, S, State))
      Facts.CoveringEvents.insert(Event);
    else
      Facts.CoveringEvents.erase(Event);
  });
}

void Transfer::wait(const Inst &I, const StreamKey &R,
                    LifetimeState &State) const {
  if (I.Event == NoId) {
    // An event we cannot name (`events[i]`): in doubt, the wait orders
    // everything enqueued so far before the waiting stream.
    forEachWork(State, [&](const StreamKey &, WorkFacts &Facts) {
      Facts.OrderedStreams.insert({R, I.Site});
    });
    return;
  }
  NameId Event = I.Event;
  forEachWork(State, [&](const StreamKey &, WorkFacts &Facts) {
    if (Facts.CoveringEvents.count(Event))
      Facts.OrderedStreams.insert({R, I.Site});
  });
  auto Recorded = State.Events.find(Event);
  if (Recorded == State.Events.end()) {
    // The event was recorded where this function cannot see it (by the
    // caller, or by an opaque function): in doubt, take the wait to order
    // everything before it rather than warn about code that may be right.
    forEachWork(State, [&](const StreamKey &, WorkFacts &Facts) {
      Facts.OrderedStreams.insert({R, I.Site});
    });
    return;
  }
  if (!Recorded->second.Stream || !Watcher)
    return;
  const StreamKey Consumer = *Recorded->second.Stream;
  // A late wait: the release stream waits for the consumer only after it
  // released the buffer.
  auto Racy = State.RacyReleases.find({R, Consumer});
  if (Racy != State.RacyReleases.end())
    for (SiteId ReleaseSite : Racy->second.sites())
      Watcher->lateWait(I.Site, R, Consumer, ReleaseSite);
  // A stale event: the waiting stream waits on an event the consumer
  // recorded before (or without) its last use of the buffer.
  if (R == Consumer)
    return;
  for (const auto &[Id, Object] : State.Objects) {
    if (Object.Escaped)
      continue;
    std::vector<SiteId> Stale;
    SiteId LastUse = NoId;
    for (const UseGroup &G : Object.Uses) {
      if (G.Stream != Consumer || G.Facts.CoveringEvents.count(Event) ||
          orderedBefore(G.Stream, G.Facts, R, State))
        continue;
      for (SiteId UseSite : G.Sites.sites()) {
        Stale.push_back(UseSite);
        if (LastUse == NoId ||
            M.site(LastUse).Order < M.site(UseSite).Order)
          LastUse = UseSite;
      }
    }
    if (LastUse != NoId)
      Watcher->staleWait(I.Site, R, Event, Consumer,
                         Recorded->second.RecordSite, objectName(Id, Object),
                         Stale, LastUse,
                         Object.AllocStream && *Object.AllocStream == R);
  }
}

void Transfer::syncWhere(
    LifetimeState &State,
    const std::function<bool(const StreamKey &, const WorkFacts &)> &Done)
    const {
  auto AllocDone = [&](const ObjectState &Object) {
    return Object.AllocPending && Object.AllocStream &&
           Done(*Object.AllocStream, Object.AllocFacts);
  };
  for (auto It = State.Objects.begin(); It != State.Objects.end(); ++It) {
    // Written only when some of its work completes, so that the others
    // stay shared (see SharedMap.h).
    const ObjectState &Read = It->second;
    if (!AllocDone(Read) && llvm::none_of(Read.Uses, [&](const UseGroup &G) {
          return Done(G.Stream, G.Facts);
        }))
      continue;
    ObjectState &Object = State.Objects.mutableAt(It);
    auto &Uses = Object.Uses;
    Uses.erase(std::remove_if(Uses.begin(), Uses.end(),
                              [&](const UseGroup &G) {
                                return Done(G.Stream, G.Facts);
                              }),
               Uses.end());
    if (AllocDone(Object))
      Object.AllocPending = false;
  }
  for (auto &[Key, Release] : State.Deferred)
    llvm::erase_if(Release.Uses, [&](const UseGroup &G) {
      return Done(G.Stream, G.Facts);
    });
  for (auto &[Key, Work] : State.Entry)
    if (Work.Pending && Done(Key, Work.Facts))
      Work.Pending = false;
  for (auto &[Key, Work] : State.PoolSince)
    if (Work.Pending && Done(Key, Work.Facts))
      Work.Pending = false;
}

//===----------------------------------------------------------------------===//
// Names: bind, move, kill
//===----------------------------------------------------------------------===//

void Transfer::kill(NameId Name, ValueKind Value, SiteId Site,
                    LifetimeState &State) const {
  switch (Value) {
  case ValueKind::Event:
    State.Events.erase(Name);
    return;
  case ValueKind::Stream:
    State.StreamAliases.erase(Name);
    return;
  case ValueKind::Buffer:
    break;
  }
  for (ObjectId Id : unname(Name, State)) {
    auto Object = State.Objects.find(Id);
    if (Object == State.Objects.end() ||
        Object->second.Own != Ownership::Owned || namedElsewhere(Id, NoId, State))
      continue;
    // The last owner went: the object is released on its release stream.
    std::optional<StreamKey> R = Object->second.ReleaseStream;
    releaseObject(Id, Name, R, Site, /*ByLastOwner=*/true, State);
  }
}

ObjectSet Transfer::unname(NameId Name, LifetimeState &State) const {
  auto Found = State.Names.find(Name);
  if (Found == State.Names.end())
    return {};
  ObjectSet Held = std::move(Found->second);
  State.Names.erase(Found);
  return Held;
}

void Transfer::forget(NameId Name, LifetimeState &State) const {
  // On this path the name held nothing, so an object only it held does not
  // exist here: dropping it keeps the join from carrying this path's missing
  // waits over to the other paths' object. Nothing is released.
  for (ObjectId Id : unname(Name, State)) {
    auto Object = State.Objects.find(Id);
    if (Object != State.Objects.end() && !namedElsewhere(Id, NoId, State) &&
        Object->second.EntryReleases.empty())
      State.Objects.erase(Object);
  }
}

/// An owned object returned to the caller whose release stream is one the
/// caller cannot name: a stream local to this function (from a pool, a
/// fork), not a parameter, a member or the caller's current stream. The
/// caller's later uses on its own streams are then never ordered before the
/// release on that stream.
bool Transfer::handedOffOnHiddenStream(const ObjectState &Object) const {
  if (Object.Own != ir::Ownership::Owned || Object.Escaped ||
      Object.RecordedForCaller || !Object.ReleaseStream)
    return false;
  return isHiddenStream(*Object.ReleaseStream);
}

bool Transfer::holdsCallerObject(NameId Name) const {
  const ir::NameInfo &Info = M.name(Name);
  return Info.Owner == NoId || Info.PointeeOf != NoId ||
         llvm::is_contained(F.Params, Name);
}

bool Transfer::isHiddenStream(const StreamKey &S) const {
  if (S.Kind != StreamKey::Named || F.Return == NoId)
    return false;
  NameId Stream = S.Name;
  const ir::NameInfo &Info = M.name(Stream);
  // This function's own names are owned by the id its return name has.
  ir::FunctionId Self = M.name(F.Return).Owner;
  if (Self == NoId || Info.Owner != Self || Info.PointeeOf != NoId)
    return false;
  return !llvm::is_contained(F.Params, Stream);
}

void Transfer::bind(const Inst &I, bool IsMove, LifetimeState &State) const {
  assert(!I.Names.empty() && "bind/move without a destination");
  NameId Dest = I.Names[0];
  NameId Source = I.Names.size() > 1 ? I.Names[1] : NoId;
  if (Source == Dest)
    return;
  switch (I.Value) {
  case ValueKind::Event: {
    if (I.NewEvent) {
      // Recorded nowhere yet: known, at no stream, covering nothing.
      State.Events[Dest] = EventState{};
      forEachWork(State, [&](const StreamKey &, WorkFacts &Facts) {
        Facts.CoveringEvents.erase(Dest);
      });
      return;
    }
    // Events are handles: the copy denotes the same recorded point.
    bool Known = Source != NoId && State.Events.count(Source);
    if (Known)
      State.Events[Dest] = State.Events[Source];
    else
      State.Events.erase(Dest);
    forEachWork(State, [&](const StreamKey &, WorkFacts &Facts) {
      if (Known && Facts.CoveringEvents.count(Source))
        Facts.CoveringEvents.insert(Dest);
      else
        Facts.CoveringEvents.erase(Dest);
    });
    return;
  }
  case ValueKind::Stream: {
    std::optional<StreamKey> Target;
    if (Source != NoId)
      Target = resolve(StreamRef::named(Source), State);
    if (Target && *Target != StreamKey::named(Dest))
      State.StreamAliases[Dest] = *Target;
    else
      State.StreamAliases.erase(Dest);
    return;
  }
  case ValueKind::Buffer:
    break;
  }
  // A copy shares the source's objects; a name whose source is not tracked
  // holds nothing known (part 1 dropped the state the same way).
  ObjectSet Held;
  if (Source != NoId) {
    auto Found = State.Names.find(Source);
    if (Found != State.Names.end())
      Held = Found->second;
    else if (holdsCallerObject(Source))
      // A parameter (or member, global, `*out`) not touched yet holds the
      // caller's object: a view or copy of it must reach the same object,
      // or uses through the copy never show in the summary.
      Held = objectsOf(Source, State);
  }
  if (Watcher && Dest == F.Return && Dest != NoId)
    for (ObjectId Id : Held)
      if (auto Object = State.Objects.find(Id);
          Object != State.Objects.end() && handedOffOnHiddenStream(Object->second))
        Watcher->handOff(I.Site, Source, *Object->second.ReleaseStream,
                         Object->second);
  if (IsMove && Source != NoId)
    State.Names.erase(Source); // moved from: no release
  // An object made by a call (an unnamed temporary) takes the name it is
  // first bound to, for "'buf' allocated on ... here".
  for (ObjectId Id : Held) {
    auto Object = State.Objects.find(Id);
    if (Object != State.Objects.end() && Object->second.AllocName != NoId &&
        Object->second.AllocName < M.Names.size() &&
        M.Names[Object->second.AllocName].Spelling.empty())
      State.Objects.mutableAt(Object).AllocName = Dest;
  }
  kill(Dest, ValueKind::Buffer, I.Site, State);
  if (!Held.empty())
    State.Names[Dest] = std::move(Held);
}

//===----------------------------------------------------------------------===//
// Containers: entries that live until they are taken out
//===----------------------------------------------------------------------===//

void Transfer::store(const Inst &I, LifetimeState &State) const {
  assert(!I.Names.empty() && "store without a container");
  NameId Container = I.Names[0];
  for (size_t K = 1; K < I.Names.size(); ++K) {
    auto Found = State.Names.find(I.Names[K]);
    if (Found != State.Names.end())
      unionInto(State.Names[Container], Found->second);
  }
}

void Transfer::takeEntry(const Inst &I, LifetimeState &State) const {
  assert(I.Names.size() == 2 && "take-entry needs a destination and a container");
  NameId Dest = I.Names[0], Container = I.Names[1];
  ObjectSet Taken;
  auto Found = State.Names.find(Container);
  if (Found != State.Names.end()) {
    ObjectSet &Entries = Found->second;
    // The entries of one allocation site are its most recent object and a
    // summary of the older ones (the recency abstraction): the oldest entry
    // is in the summary when there is one. What a container held at entry
    // is older than anything stored here.
    auto IsOld = [](ObjectId Id) {
      return objects::tag(Id) != objects::RecentAlloc;
    };
    bool AnyOld = llvm::any_of(Entries, IsOld);
    bool AnyRecent = !llvm::all_of(Entries, IsOld);
    auto Pick = [&](ObjectId Id) {
      if (I.Oldest)
        return AnyOld ? IsOld(Id) : true;
      return AnyRecent ? !IsOld(Id) : true;
    };
    for (ObjectId Id : Entries)
      if (Pick(Id))
        Taken.push_back(Id);
    llvm::erase_if(Entries, Pick);
    if (Entries.empty())
      State.Names.erase(Found);
  }
  kill(Dest, ValueKind::Buffer, I.Site, State);
  if (!Taken.empty())
    State.Names[Dest] = std::move(Taken);
}

//===----------------------------------------------------------------------===//
// The dispatcher
//===----------------------------------------------------------------------===//

void Transfer::apply(const Inst &I, LifetimeState &State) const {
  assert(State.Reachable && "transfer on an unreachable state");
  std::optional<StreamKey> S = resolve(I.Stream, State);
  // An operation whose stream is unknown is skipped: guessing would warn
  // about code that may well be right.
  if (needsStream(I.Kind) && !S)
    return;
  if (enqueuesWork(I.Kind) && S && S->Kind == StreamKey::LegacyDefault)
    legacyStreamOperation(State);

  switch (I.Kind) {
  case OpKind::Allocate:
    allocate(I, *S, State);
    break;
  case OpKind::Use:
    use(I, *S, State);
    // The operation may have released temporaries of its own there.
    poolReleasePoint(S, State);
    break;
  case OpKind::RecordEvent:
    if (I.Event != NoId)
      recordEvent(I.Event, *S, I.Site, State);
    break;
  case OpKind::WaitEvent:
    wait(I, *S, State);
    break;
  case OpKind::WaitStream: {
    std::optional<StreamKey> Waited = resolve(I.Stream2, State);
    if (!Waited)
      break;
    forEachWork(State, [&](const StreamKey &WorkStream, WorkFacts &Facts) {
      if (orderedBefore(WorkStream, Facts, *Waited, State))
        Facts.OrderedStreams.insert({*S, I.Site});
    });
    break;
  }
  case OpKind::SyncStream:
    syncWhere(State, [&](const StreamKey &WorkStream, const WorkFacts &Facts) {
      return orderedBefore(WorkStream, Facts, *S, State);
    });
    break;
  case OpKind::SyncEvent:
    if (I.Event == NoId) {
      // An event we cannot name: in doubt, the host waited for everything.
      syncWhere(State, [](const StreamKey &, const WorkFacts &) {
        return true;
      });
      break;
    }
    syncWhere(State, [&](const StreamKey &, const WorkFacts &Facts) {
      return Facts.CoveringEvents.count(I.Event) > 0;
    });
    break;
  case OpKind::SyncDevice:
    syncWhere(State,
              [](const StreamKey &, const WorkFacts &) { return true; });
    break;
  case OpKind::Release:
    for (NameId Name : I.Names) {
      ObjectSet Set = objectsOf(Name, State);
      for (ObjectId Id : Set)
        releaseObject(Id, Name, S, I.Site, /*ByLastOwner=*/false, State);
    }
    break;
  case OpKind::ReleaseSync:
    // cudaFree / cuMemFree synchronize the device before releasing.
    syncWhere(State,
              [](const StreamKey &, const WorkFacts &) { return true; });
    for (NameId Name : I.Names) {
      ObjectSet Set = objectsOf(Name, State);
      for (ObjectId Id : Set)
        releaseObject(Id, Name, StreamKey::legacy(), I.Site, false, State);
    }
    break;
  case OpKind::RecordStream:
    // The caching allocator now holds the block until the work that stream
    // has when the block is released completes, so no use on it, earlier or
    // later, races with the release.
    for (NameId Name : I.Names) {
      for (ObjectId Id : ObjectSet(objectsOf(Name, State))) {
        ObjectState *Object = State.Objects.findMutable(Id);
        // A caller's buffer (a parameter): the summary must say so.
        if (!Object && objects::tag(Id) == objects::Initial)
          Object = &State.Objects[Id];
        if (!Object)
          continue;
        Object->recordStream(*S);
        if (!isHiddenStream(*S))
          Object->RecordedForCaller = true;
      }
    }
    break;
  case OpKind::CreateStream:
    if (S && S->Kind == StreamKey::Named) {
      if (I.NonBlocking)
        State.NonBlockingStreams[S->Name] = *I.NonBlocking;
      else
        State.NonBlockingStreams.erase(S->Name);
    }
    break;
  case OpKind::SetReleaseStream:
    for (NameId Name : I.Names)
      for (ObjectId Id : objectsOf(Name, State))
        State.Objects[Id].ReleaseStream = *S;
    break;
  case OpKind::Bind:
    bind(I, /*IsMove=*/false, State);
    break;
  case OpKind::Move:
    bind(I, /*IsMove=*/true, State);
    break;
  case OpKind::Kill:
    for (NameId Name : I.Names)
      kill(Name, I.Value, I.Site, State);
    break;
  case OpKind::Store:
    store(I, State);
    break;
  case OpKind::TakeEntry:
    takeEntry(I, State);
    break;
  case OpKind::Forget:
    for (NameId Name : I.Names)
      forget(Name, State);
    break;
  case OpKind::Escape:
    // Stored where a value it replaces is released unseen (`d[k] = t`).
    poolReleasePoint(std::nullopt, State);
    for (NameId Name : I.Names)
      for (ObjectId Id : objectsOf(Name, State)) {
        ObjectState &Object = State.Objects[Id];
        Object.Escaped = true;
        Object.Uses.clear();
        Object.AllocPending = false;
      }
    break;
  case OpKind::PushCurrentStream:
    if (S)
      State.CurrentStack.push_back(*S);
    else
      State.CurrentUnknown = true;
    break;
  case OpKind::PopCurrentStream:
    if (!State.CurrentStack.empty())
      State.CurrentStack.pop_back();
    break;
  case OpKind::Call:
    // The callee's releases are not in its summary's terms.
    poolReleasePoint(std::nullopt, State);
    call(I, State);
    break;
  case OpKind::UnseenWork:
    poolReleasePoint(S, State);
    break;
  }
  // A host wait completed deferred uses, or a wait ordered them before their
  // release stream: their releases are safe whatever comes next.
  if (!State.Deferred.empty())
    settleDeferred(State);
}

} // namespace core
} // namespace streamlife
