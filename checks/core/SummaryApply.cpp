//===--- SummaryApply.cpp - streamlife ------------------------------------===//
//
// Applying a callee's summary at a call. The summary is the callee's own
// exit state, computed once from a symbolic entry:
//
// - the caller's earlier work on each stream the callee can name is an
//   EntryWork item; at the callee's exit it says whether that work is
//   complete on every path (a sync), which streams are ordered after it and
//   which events cover it. A sync under a branch leaves the work pending on
//   the other path, so the join keeps it pending: conditional syncs are not
//   taken as done;
// - each parameter starts holding an Initial object; at exit its state holds
//   the uses the callee added and, in EntryReleases, where the callee
//   released it and which entry streams were ordered before that release;
// - `*out` names and the return name hold the objects the callee allocated,
//   with their pending uses: a returned buffer still in use on another
//   stream keeps that state in the caller.
//
// Everything the callee did is attributed to the call site in the caller's
// notes ("used on stream 'compute' here" points at the call).
//
//===----------------------------------------------------------------------===//

#include "Transfer.h"
#include "UseGroups.h"
#include <algorithm>
#include <cassert>

namespace streamlife {
namespace core {

using namespace ir;

namespace {

/// The caller's view of a callee's streams, events and names at one call.
class CallMapping {
public:
  CallMapping(const Module &M, const Function &Callee, const Inst &Call,
              const Transfer &T, const LifetimeState &Caller)
      : M(M), Callee(Callee), Call(Call), T(T), Caller(Caller) {}

  /// The caller's parameter argument for the callee name \p N, if \p N is a
  /// parameter.
  const CallArg *argumentFor(NameId N) const {
    for (size_t P = 0; P < Callee.Params.size() && P < Call.Args.size(); ++P)
      if (Callee.Params[P] == N)
        return &Call.Args[P];
    return nullptr;
  }

  std::optional<StreamKey> stream(const StreamKey &K) const {
    switch (K.Kind) {
    case StreamKey::LegacyDefault:
    case StreamKey::PerThread:
      return K;
    case StreamKey::EntryCurrent:
      return T.resolve(StreamRef::current(), Caller);
    case StreamKey::Unseen:
      return std::nullopt;
    case StreamKey::Named:
      break;
    }
    if (const CallArg *Arg = argumentFor(K.Name)) {
      if (Arg->Stream.known())
        return T.resolve(Arg->Stream, Caller);
      if (Arg->Value != NoId)
        return T.resolve(StreamRef::named(Arg->Value), Caller);
      return std::nullopt;
    }
    // A global or member stream: the same name in the caller, which may
    // know which of its streams the name holds (a constructor stored it).
    if (K.Name < M.Names.size() && M.Names[K.Name].Owner == NoId)
      return T.resolve(StreamRef::named(K.Name), Caller);
    return std::nullopt; // the callee's own stream
  }

  std::optional<NameId> event(NameId E) const {
    if (const CallArg *Arg = argumentFor(E))
      if (Arg->Value != NoId)
        return Arg->Value;
    // A returned event (`return done;`) is the call's value.
    if (E == Callee.Return && E != NoId && !Call.Names.empty() &&
        Call.Names[0] != NoId)
      return Call.Names[0];
    if (E < M.Names.size() && M.Names[E].Owner == NoId)
      return E;
    return std::nullopt;
  }

  /// Callee facts as caller facts: waits and covering events the caller
  /// can name, all attributed to the call site.
  WorkFacts facts(const WorkFacts &In) const {
    WorkFacts Out;
    for (NameId E : In.CoveringEvents)
      if (std::optional<NameId> Mapped = event(E))
        Out.CoveringEvents.insert(*Mapped);
    for (const auto &[S, Site] : In.OrderedStreams)
      if (std::optional<StreamKey> Mapped = stream(S))
        Out.OrderedStreams.insert({*Mapped, Call.Site});
    Out.OrderedByLegacyStream = In.OrderedByLegacyStream;
    return Out;
  }

  /// The callee's entry-work keys that stand for the caller's stream \p S.
  llvm::SmallVector<StreamKey, 2> entryKeys(const StreamKey &S,
                                            const LifetimeState &Exit) const {
    llvm::SmallVector<StreamKey, 2> Keys;
    for (const auto &[Key, Work] : Exit.Entry)
      if (Key.Kind != StreamKey::Unseen)
        if (std::optional<StreamKey> Mapped = stream(Key); Mapped && *Mapped == S)
          Keys.push_back(Key);
    if (Keys.empty())
      Keys.push_back(StreamKey::unseen());
    return Keys;
  }

private:
  const Module &M;
  const Function &Callee;
  const Inst &Call;
  const Transfer &T;
  const LifetimeState &Caller;
};

} // namespace

void Transfer::call(const Inst &I, LifetimeState &State) const {
  if (I.Callee == NoId || I.Callee >= M.Functions.size())
    return;
  const Function &Callee = M.Functions[I.Callee];
  const LifetimeState *Exit = Summaries ? Summaries(I.Callee) : nullptr;
  if (!Callee.Lowered || !Exit || !Exit->Reachable)
    return; // unknown, recursive (in progress) or never returns
  // A summary whose use groups were merged may carry weaker orderings.
  State.GroupsMerged |= Exit->GroupsMerged;
  // The mapping reads the caller's state as it was before the call: only
  // what resolves streams (a copy of the whole state was most of the cost
  // of a call in a function of hundreds of objects).
  LifetimeState Before;
  Before.StreamAliases = State.StreamAliases;
  Before.CurrentStack = State.CurrentStack;
  Before.CurrentUnknown = State.CurrentUnknown;
  CallMapping Map(M, Callee, I, *this, Before);

  // 0. The callee allocates on some of the caller's streams: a reuse
  //    opportunity there for the caller's deferred releases, taken before
  //    anything the callee waits for (it may allocate first).
  for (const StreamKey &K : Exit->AllocatesOn)
    if (std::optional<StreamKey> S = Map.stream(K)) {
      reuseOpportunity(*S, I.Site, State);
      State.AllocatesOn.insert(*S);
    }

  auto initialObject = [&](NameId CalleeName) -> const ObjectState * {
    auto Found =
        Exit->Objects.find(objects::make(objects::Initial, CalleeName));
    return Found == Exit->Objects.end() ? nullptr : &Found->second;
  };

  // 1. Releases of the caller's buffers inside the callee: check the
  //    caller's pending uses against the release stream, counting what the
  //    callee ordered before the release.
  for (size_t P = 0; P < Callee.Params.size() && P < I.Args.size(); ++P) {
    NameId Param = Callee.Params[P];
    NameId Arg = I.Args[P].Value;
    if (Param == NoId || Arg == NoId)
      continue;
    const ObjectState *Inner = initialObject(Param);
    if (!Inner || Inner->EntryReleases.empty())
      continue;
    for (const EntryRelease &Release : Inner->EntryReleases) {
      std::optional<StreamKey> R = Map.stream(Release.Stream);
      auto OrderedInCallee = [&](const StreamKey &CallerStream) {
        for (const StreamKey &K : Map.entryKeys(CallerStream, *Exit))
          if (Release.OrderedEntryStreams.count(K))
            return true;
        return false;
      };
      ObjectSet Held = objectsOf(Arg, State);
      for (ObjectId Id : Held) {
        ObjectState *Found = State.Objects.findMutable(Id);
        if (!Found)
          continue;
        ObjectState &Object = *Found;
        if (R) {
          // Drop what the callee ordered; releaseObject checks the rest.
          auto &Uses = Object.Uses;
          Uses.erase(std::remove_if(Uses.begin(), Uses.end(),
                                    [&](const UseGroup &G) {
                                      if (OrderedInCallee(G.Stream))
                                        return true;
                                      for (const auto &[Waiter, Site] :
                                           G.Facts.OrderedStreams)
                                        if (OrderedInCallee(Waiter))
                                          return true;
                                      return false;
                                    }),
                     Uses.end());
        }
        releaseObject(Id, Arg, R, I.Site, /*ByLastOwner=*/false, State);
      }
    }
  }

  // 2. The caller's earlier work: complete if the callee synced it on every
  //    path, else extended by the orderings and events the callee added.
  std::set<NameId> RecordedEvents; // caller names of events the callee recorded
  for (const auto &[E, Event] : Exit->Events)
    if (std::optional<NameId> Mapped = Map.event(E))
      RecordedEvents.insert(*Mapped);
  auto transform = [&](const StreamKey &S, WorkFacts &Facts) -> bool {
    llvm::SmallVector<StreamKey, 4> Keys = Map.entryKeys(S, *Exit);
    for (const auto &[Waiter, Site] : Facts.OrderedStreams)
      for (const StreamKey &K : Map.entryKeys(Waiter, *Exit))
        Keys.push_back(K);
    WorkFacts Added;
    bool First = true;
    std::set<NameId> Covering;
    for (const StreamKey &K : Keys) {
      auto Work = Exit->Entry.find(K);
      if (Work == Exit->Entry.end())
        continue;
      if (!Work->second.Pending)
        return true; // the host waited for it inside the callee
      WorkFacts Mapped = Map.facts(Work->second.Facts);
      Covering.insert(Mapped.CoveringEvents.begin(),
                      Mapped.CoveringEvents.end());
      for (const auto &Ordered : Mapped.OrderedStreams)
        Added.OrderedStreams.insert(Ordered);
      Added.OrderedByLegacyStream |= Mapped.OrderedByLegacyStream;
      First = false;
    }
    if (First)
      return false;
    for (const auto &Ordered : Added.OrderedStreams)
      Facts.OrderedStreams.insert(Ordered);
    Facts.OrderedByLegacyStream |= Added.OrderedByLegacyStream;
    for (NameId E : RecordedEvents) {
      if (Covering.count(E))
        Facts.CoveringEvents.insert(E);
      else
        Facts.CoveringEvents.erase(E);
    }
    return false;
  };
  // Whether the call changes the object's work: tried on copies of its
  // facts, so that the objects the callee leaves alone (most, in a function
  // of hundreds of objects calling small helpers) stay shared with the
  // states this one was copied from (see SharedMap.h).
  auto changes = [&](const StreamKey &S, const WorkFacts &Facts) {
    WorkFacts Tried = Facts;
    return transform(S, Tried) || !(Tried == Facts);
  };
  auto callChanges = [&](const ObjectState &Object) {
    for (const UseGroup &G : Object.Uses)
      if (changes(G.Stream, G.Facts))
        return true;
    if (Object.AllocPending && Object.AllocStream &&
        changes(*Object.AllocStream, Object.AllocFacts))
      return true;
    return normalizingChanges(Object.Uses);
  };
  for (auto It = State.Objects.begin(); It != State.Objects.end(); ++It) {
    if (It->second.Escaped || !callChanges(It->second))
      continue;
    ObjectState &Object = State.Objects.mutableAt(It);
    auto &Uses = Object.Uses;
    Uses.erase(std::remove_if(Uses.begin(), Uses.end(),
                              [&](UseGroup &G) {
                                return transform(G.Stream, G.Facts);
                              }),
               Uses.end());
    if (!normalizeGroups(Uses))
      State.GroupsMerged = true;
    if (Object.AllocPending && Object.AllocStream &&
        transform(*Object.AllocStream, Object.AllocFacts))
      Object.AllocPending = false;
  }
  for (auto &[Key, Work] : State.Entry)
    if (Work.Pending && transform(Key, Work.Facts))
      Work.Pending = false;

  // 3. Events the callee recorded: recorded at the call, on the mapped
  //    stream.
  for (const auto &[E, Event] : Exit->Events) {
    std::optional<NameId> Mapped = Map.event(E);
    if (!Mapped)
      continue;
    EventState Recorded;
    if (Event.Stream)
      Recorded.Stream = Map.stream(*Event.Stream);
    Recorded.RecordSite = I.Site;
    State.Events[*Mapped] = Recorded;
  }

  // Imports an object of the callee (an allocation it made) as an object of
  // the caller allocated at the call.
  auto import = [&](const ObjectState &Inner, NameId Name) {
    ObjectState Fresh;
    Fresh.AllocSite = Inner.AllocSite != NoId ? I.Site : NoId;
    Fresh.AllocName = Name;
    if (Inner.AllocStream)
      Fresh.AllocStream = Map.stream(*Inner.AllocStream);
    Fresh.AllocFacts = Map.facts(Inner.AllocFacts);
    Fresh.AllocPending = Inner.AllocPending && Fresh.AllocStream.has_value();
    Fresh.Own = Inner.Own;
    if (Inner.ReleaseStream)
      Fresh.ReleaseStream = Map.stream(*Inner.ReleaseStream);
    Fresh.Escaped = Inner.Escaped;
    Fresh.Caching = Inner.Caching;
    for (const StreamKey &Recorded : Inner.RecordedOn)
      if (std::optional<StreamKey> S = Map.stream(Recorded))
        Fresh.RecordedOn.push_back(*S);
    for (const UseGroup &G : Inner.Uses)
      if (std::optional<StreamKey> S = Map.stream(G.Stream))
        if (!addUse(Fresh.Uses, *S, Map.facts(G.Facts), SiteList().with(I.Site)))
          State.GroupsMerged = true;
    bindObject(Name, objects::make(objects::RecentAlloc, I.Site),
               std::move(Fresh), I.Site, State);
  };
  // Applies the uses the callee added to one of the caller's buffers.
  auto applyUses = [&](const ObjectState &Inner, NameId CallerName) {
    ObjectSet Held = objectsOf(CallerName, State);
    for (const UseGroup &G : Inner.Uses) {
      std::optional<StreamKey> S = Map.stream(G.Stream);
      if (!S)
        continue; // on a stream of the callee's own
      // The caller's streams the callee had ordered before this use, on
      // the path the use is on.
      std::set<StreamKey> After;
      for (const StreamKey &K : G.Facts.AfterEntry)
        if (std::optional<StreamKey> Mapped = Map.stream(K))
          After.insert(*Mapped);
      for (ObjectId Id : Held)
        useObject(Id, CallerName, *S, I.Site, Map.facts(G.Facts), State,
                  After);
    }
    // record_stream in the callee on the caller's buffer.
    for (const StreamKey &Recorded : Inner.RecordedOn)
      if (std::optional<StreamKey> S = Map.stream(Recorded))
        for (ObjectId Id : Held)
          if (ObjectState *Object = State.Objects.findMutable(Id))
            Object->recordStream(*S);
    if (Inner.Escaped)
      for (ObjectId Id : Held)
        State.Objects[Id].Escaped = true;
  };
  // What a callee name holds at exit, as the caller sees it: a caller
  // argument's buffer, or an allocation of the callee.
  auto project = [&](NameId CalleeName, NameId CallerName) {
    auto Held = Exit->Names.find(CalleeName);
    if (Held == Exit->Names.end())
      return;
    const ObjectState *Allocated = nullptr;
    for (ObjectId Id : Held->second) {
      auto Object = Exit->Objects.find(Id);
      if (objects::tag(Id) == objects::Initial) {
        NameId Origin = objects::id(Id);
        if (Origin == CalleeName) {
          if (Object != Exit->Objects.end())
            applyUses(Object->second, CallerName);
          continue;
        }
        // The callee returned one of its parameters: the caller's argument.
        if (const CallArg *Arg = Map.argumentFor(Origin))
          if (Arg->Value != NoId && Arg->Value != CallerName) {
            ObjectSet Source = objectsOf(Arg->Value, State);
            kill(CallerName, ValueKind::Buffer, I.Site, State);
            State.Names[CallerName] = Source;
          }
        continue;
      }
      if (Object != Exit->Objects.end())
        Allocated = &Object->second;
    }
    if (Allocated)
      import(*Allocated, CallerName);
  };

  // 4. The caller's buffers passed by value (uses) and by address (`*out`
  //    written by the callee).
  for (size_t P = 0; P < Callee.Params.size() && P < I.Args.size(); ++P) {
    NameId Param = Callee.Params[P];
    if (Param == NoId)
      continue;
    const CallArg &Arg = I.Args[P];
    if (Arg.Value != NoId) {
      if (const ObjectState *Inner = initialObject(Param))
        applyUses(*Inner, Arg.Value);
    }
    if (Arg.AddressOf == NoId)
      continue;
    llvm::SmallVector<NameId, 2> Pointees;
    for (const auto &[N, Held] : Exit->Names)
      if (N < M.Names.size() && M.Names[N].PointeeOf == Param)
        Pointees.push_back(N);
    for (NameId N : Pointees)
      project(N, Arg.AddressOf);
  }

  // 5. The return value.
  if (!I.Names.empty() && I.Names[0] != NoId && Callee.Return != NoId) {
    kill(I.Names[0], ValueKind::Buffer, I.Site, State);
    project(Callee.Return, I.Names[0]);
  }
}

} // namespace core
} // namespace streamlife
