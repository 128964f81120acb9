//===--- LifetimeLattice.cpp - streamlife ---------------------------------===//
//
// Joins and equality of the lifetime lattice (see LifetimeLattice.h for the
// rules), and the shared site lists.
//
//===----------------------------------------------------------------------===//

#include "LifetimeLattice.h"
#include "UseGroups.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>

namespace streamlife {
namespace core {

//===----------------------------------------------------------------------===//
// SiteList
//===----------------------------------------------------------------------===//

bool SiteList::contains(SiteId S) const {
  if (!Head || S < Head->MinSite || S > Head->MaxSite)
    return false;
  for (const Node *N = Head.get(); N; N = N->Next.get())
    if (N->Site == S)
      return true;
  return false;
}

SiteList SiteList::with(SiteId S) const {
  if (contains(S))
    return *this;
  SiteList Result;
  SiteId Min = Head ? std::min(Head->MinSite, S) : S;
  SiteId Max = Head ? std::max(Head->MaxSite, S) : S;
  Result.Head = std::make_shared<const Node>(Node{S, size() + 1, Min, Max, Head});
  return Result;
}

SiteList SiteList::unite(const SiteList &Other) const {
  if (Head == Other.Head || Other.empty())
    return *this;
  if (empty())
    return Other;
  // Is the shorter list a tail of the longer one? (One branch added sites to
  // what the other path still has.)
  const SiteList &Longer = size() >= Other.size() ? *this : Other;
  const SiteList &Shorter = size() >= Other.size() ? Other : *this;
  if (Longer.size() - Shorter.size() > Shorter.size()) {
    // Far apart in length (a use added to a long list): adding the few
    // sites is cheaper than looking for a shared tail.
    SiteList Result = Longer;
    std::vector<SiteId> Few = Shorter.sites();
    for (auto It = Few.rbegin(); It != Few.rend(); ++It)
      Result = Result.with(*It);
    return Result;
  }
  const Node *N = Longer.Head.get();
  while (N && N->Size > Shorter.size())
    N = N->Next.get();
  if (N == Shorter.Head.get())
    return Longer;
  SiteList Result = Longer;
  for (SiteId S : Shorter.sites())
    Result = Result.with(S);
  return Result;
}

SiteList SiteList::without(SiteId S) const {
  if (!contains(S))
    return *this;
  std::vector<SiteId> Kept;
  for (SiteId Site : sites())
    if (Site != S)
      Kept.push_back(Site);
  SiteList Result;
  for (auto It = Kept.rbegin(); It != Kept.rend(); ++It)
    Result = Result.with(*It);
  return Result;
}

bool SiteList::includesCheaply(const SiteList &Other) const {
  if (Other.empty() || Head == Other.Head)
    return true;
  if (Other.size() > size())
    return false;
  // A tail of this list: one branch added a few sites to what the other
  // path has (the shape joins make). Bounded, so that a check never costs
  // more than a small constant per join.
  constexpr size_t MaxSteps = 64;
  if (size() - Other.size() <= MaxSteps) {
    const Node *N = Head.get();
    while (N && N->Size > Other.size())
      N = N->Next.get();
    if (N == Other.Head.get())
      return true;
  }
  if (Other.size() > 8)
    return false;
  for (const Node *N = Other.Head.get(); N; N = N->Next.get())
    if (!contains(N->Site))
      return false;
  return true;
}

std::vector<SiteId> SiteList::sites() const {
  std::vector<SiteId> Out;
  for (const Node *N = Head.get(); N; N = N->Next.get())
    Out.push_back(N->Site);
  return Out;
}

bool operator==(const SiteList &A, const SiteList &B) {
  if (A.Head == B.Head)
    return true;
  if (A.size() != B.size())
    return false;
  // Same elements, maybe in another order (two paths adding the same sites).
  const SiteList::Node *X = A.Head.get(), *Y = B.Head.get();
  while (X && Y && X != Y && X->Site == Y->Site) {
    X = X->Next.get();
    Y = Y->Next.get();
  }
  if (X == Y)
    return true;
  std::vector<SiteId> SA = A.sites(), SB = B.sites();
  std::sort(SA.begin(), SA.end());
  std::sort(SB.begin(), SB.end());
  return SA == SB;
}

//===----------------------------------------------------------------------===//
// Use groups
//===----------------------------------------------------------------------===//

bool WorkFacts::sameOrdering(const WorkFacts &A, const WorkFacts &B) {
  if (A.OrderedByLegacyStream != B.OrderedByLegacyStream ||
      A.FromEarlierIteration != B.FromEarlierIteration ||
      A.OrderedStreams.size() != B.OrderedStreams.size() ||
      A.CoveringEvents != B.CoveringEvents || A.AfterEntry != B.AfterEntry)
    return false;
  return std::equal(A.OrderedStreams.begin(), A.OrderedStreams.end(),
                    B.OrderedStreams.begin(),
                    [](const auto &X, const auto &Y) {
                      return X.first == Y.first;
                    });
}

bool WorkFacts::orderingLess(const WorkFacts &A, const WorkFacts &B) {
  if (A.OrderedByLegacyStream != B.OrderedByLegacyStream)
    return A.OrderedByLegacyStream < B.OrderedByLegacyStream;
  if (A.FromEarlierIteration != B.FromEarlierIteration)
    return A.FromEarlierIteration < B.FromEarlierIteration;
  if (A.CoveringEvents != B.CoveringEvents)
    return A.CoveringEvents < B.CoveringEvents;
  if (A.AfterEntry != B.AfterEntry)
    return A.AfterEntry < B.AfterEntry;
  return std::lexicographical_compare(
      A.OrderedStreams.begin(), A.OrderedStreams.end(),
      B.OrderedStreams.begin(), B.OrderedStreams.end(),
      [](const auto &X, const auto &Y) { return X.first < Y.first; });
}

void WorkFacts::mergeWaitSites(const WorkFacts &Other) {
  assert(sameOrdering(*this, Other) && "merging different orderings");
  auto Theirs = Other.OrderedStreams.begin();
  for (auto &[Stream, Site] : OrderedStreams) {
    Site = std::min(Site, Theirs->second);
    ++Theirs;
  }
}

static bool groupOrder(const UseGroup &A, const UseGroup &B) {
  if (A.Stream != B.Stream)
    return A.Stream < B.Stream;
  return WorkFacts::orderingLess(A.Facts, B.Facts);
}

bool WorkFacts::weakerOrEqual(const WorkFacts &A, const WorkFacts &B) {
  if (A.FromEarlierIteration != B.FromEarlierIteration ||
      (A.OrderedByLegacyStream && !B.OrderedByLegacyStream) ||
      A.CoveringEvents.size() > B.CoveringEvents.size() ||
      A.OrderedStreams.size() > B.OrderedStreams.size())
    return false;
  if (!std::includes(B.CoveringEvents.begin(), B.CoveringEvents.end(),
                     A.CoveringEvents.begin(), A.CoveringEvents.end()) ||
      !std::includes(B.AfterEntry.begin(), B.AfterEntry.end(),
                     A.AfterEntry.begin(), A.AfterEntry.end()))
    return false;
  for (const auto &[Stream, Site] : A.OrderedStreams)
    if (!B.OrderedStreams.count(Stream))
      return false;
  return true;
}

/// Drops the groups of [Begin, End) (one stream) that another group of the
/// range subsumes: weaker or equal facts and all of their sites. What a
/// release, a stale wait or a sync concludes from the dropped group it
/// concludes from the subsuming one (the transfer is monotone in the facts).
static void dropSubsumed(llvm::SmallVectorImpl<UseGroup> &Groups, size_t Begin,
                         size_t End) {
  for (size_t J = Begin; J < End; ++J)
    for (size_t I = Begin; I < End; ++I) {
      if (I == J || Groups[I].Sites.empty() || Groups[J].Sites.empty())
        continue;
      if (WorkFacts::weakerOrEqual(Groups[I].Facts, Groups[J].Facts) &&
          Groups[I].Sites.includesCheaply(Groups[J].Sites)) {
        Groups[J].Sites = SiteList(); // removed below
        break;
      }
    }
}

bool normalizeGroups(llvm::SmallVectorImpl<UseGroup> &Groups) {
  std::stable_sort(Groups.begin(), Groups.end(), groupOrder);
  size_t Out = 0;
  for (size_t I = 0; I < Groups.size(); ++I) {
    if (Groups[I].Sites.empty())
      continue;
    if (Out > 0 && Groups[Out - 1].Stream == Groups[I].Stream &&
        WorkFacts::sameOrdering(Groups[Out - 1].Facts, Groups[I].Facts)) {
      Groups[Out - 1].Sites = Groups[Out - 1].Sites.unite(Groups[I].Sites);
      Groups[Out - 1].Facts.mergeWaitSites(Groups[I].Facts);
      continue;
    }
    if (Out != I)
      Groups[Out] = std::move(Groups[I]);
    ++Out;
  }
  Groups.resize(Out);
  if (Groups.size() < 2)
    return true;
  // Per stream (the groups are sorted by stream): subsumption, then the
  // bound.
  bool WithinBound = true;
  for (size_t Begin = 0; Begin < Groups.size();) {
    size_t End = Begin + 1;
    while (End < Groups.size() && Groups[End].Stream == Groups[Begin].Stream)
      ++End;
    if (End - Begin > 1)
      dropSubsumed(Groups, Begin, End);
    size_t Left = 0;
    for (size_t I = Begin; I < End; ++I)
      Left += !Groups[I].Sites.empty();
    if (Left > MaxUseGroupsPerStream) {
      // Meet the facts (only orderings every group has survive) and unite
      // the sites: every hazard of the groups is still a hazard.
      WithinBound = false;
      UseGroup &Into = Groups[Begin];
      for (size_t I = Begin + 1; I < End; ++I) {
        if (Groups[I].Sites.empty())
          continue;
        Into.Facts.meet(Groups[I].Facts);
        Into.Sites = Into.Sites.unite(Groups[I].Sites);
        Groups[I].Sites = SiteList();
      }
    }
    Begin = End;
  }
  Groups.erase(std::remove_if(Groups.begin(), Groups.end(),
                              [](const UseGroup &G) { return G.Sites.empty(); }),
               Groups.end());
  return WithinBound;
}

bool normalizingChanges(const llvm::SmallVectorImpl<UseGroup> &Groups) {
  if (Groups.size() < 2)
    return false; // every group has sites: nothing to sort, merge or drop
  llvm::SmallVector<UseGroup, 2> Copy(Groups.begin(), Groups.end());
  return !normalizeGroups(Copy) || !sameGroups(Copy, Groups);
}

bool addUse(llvm::SmallVectorImpl<UseGroup> &Groups, const StreamKey &Stream,
            const WorkFacts &Facts, const SiteList &Sites) {
  for (UseGroup &G : Groups)
    if (G.Stream == Stream && WorkFacts::sameOrdering(G.Facts, Facts)) {
      G.Sites = G.Sites.unite(Sites);
      G.Facts.mergeWaitSites(Facts);
      return true;
    }
  Groups.push_back(UseGroup{Stream, Facts, Sites});
  return normalizeGroups(Groups);
}

//===----------------------------------------------------------------------===//
// Joins
//===----------------------------------------------------------------------===//

void WorkFacts::meet(const WorkFacts &Other) {
  for (auto It = CoveringEvents.begin(); It != CoveringEvents.end();)
    It = Other.CoveringEvents.count(*It) ? std::next(It)
                                         : CoveringEvents.erase(It);
  for (auto It = OrderedStreams.begin(); It != OrderedStreams.end();)
    It = Other.OrderedStreams.count(It->first) ? std::next(It)
                                               : OrderedStreams.erase(It);
  OrderedByLegacyStream &= Other.OrderedByLegacyStream;
  FromEarlierIteration &= Other.FromEarlierIteration;
  for (auto It = AfterEntry.begin(); It != AfterEntry.end();)
    It = Other.AfterEntry.count(*It) ? std::next(It) : AfterEntry.erase(It);
}

void ObjectState::recordStream(const StreamKey &S) {
  llvm::erase_if(Uses, [&](const UseGroup &G) { return G.Stream == S; });
  if (!llvm::is_contained(RecordedOn, S))
    RecordedOn.push_back(S);
}

bool ObjectState::join(const ObjectState &Other) {
  if (AllocSite == NoId && Other.AllocSite != NoId) {
    AllocSite = Other.AllocSite;
    AllocName = Other.AllocName;
    AllocStream = Other.AllocStream;
    AllocFacts = Other.AllocFacts;
  } else if (AllocSite != NoId && Other.AllocSite != NoId) {
    // Only orderings that hold on both paths count.
    AllocFacts.meet(Other.AllocFacts);
  }
  AllocPending |= Other.AllocPending;
  bool WithinBound = true;
  for (const UseGroup &G : Other.Uses)
    WithinBound &= addUse(Uses, G.Stream, G.Facts, G.Sites);
  EntryReleases.insert(Other.EntryReleases.begin(), Other.EntryReleases.end());
  if (Own != Other.Own)
    Own = ir::Ownership::Raw; // in doubt, no implicit release
  if (ReleaseStream != Other.ReleaseStream)
    ReleaseStream.reset();
  Escaped |= Other.Escaped;
  Caching &= Other.Caching; // in doubt, judged at the release
  RecordedForCaller &= Other.RecordedForCaller;
  llvm::erase_if(RecordedOn, [&](const StreamKey &S) {
    return !llvm::is_contained(Other.RecordedOn, S);
  });
  return WithinBound;
}

bool sameGroups(const llvm::SmallVectorImpl<UseGroup> &A,
                const llvm::SmallVectorImpl<UseGroup> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I].Stream != B[I].Stream || !(A[I].Facts == B[I].Facts) ||
        !(A[I].Sites == B[I].Sites))
      return false;
  return true;
}

bool operator==(const ObjectState &A, const ObjectState &B) {
  if (!sameGroups(A.Uses, B.Uses))
    return false;
  return A.AllocSite == B.AllocSite && A.AllocName == B.AllocName &&
         A.AllocStream == B.AllocStream && A.AllocFacts == B.AllocFacts &&
         A.AllocPending == B.AllocPending && A.Own == B.Own &&
         A.RecordedForCaller == B.RecordedForCaller &&
         A.RecordedOn == B.RecordedOn &&
         A.ReleaseStream == B.ReleaseStream && A.Escaped == B.Escaped &&
         A.EntryReleases == B.EntryReleases && A.Caching == B.Caching;
}

bool DeferredRelease::join(const DeferredRelease &Other) {
  ByLastOwner |= Other.ByLastOwner;
  // The allocation the note names: the first in site id order, so that
  // joins commute.
  if (Other.AllocSite != NoId &&
      (AllocSite == NoId || Other.AllocSite < AllocSite)) {
    AllocSite = Other.AllocSite;
    AllocName = Other.AllocName;
    AllocStream = Other.AllocStream;
  }
  bool WithinBound = true;
  for (const UseGroup &G : Other.Uses)
    WithinBound &= addUse(Uses, G.Stream, G.Facts, G.Sites);
  return WithinBound;
}

bool operator==(const DeferredRelease &A, const DeferredRelease &B) {
  return A.ByLastOwner == B.ByLastOwner && A.AllocSite == B.AllocSite &&
         A.AllocName == B.AllocName && A.AllocStream == B.AllocStream &&
         sameGroups(A.Uses, B.Uses);
}

void unionInto(ObjectSet &Into, const ObjectSet &From) {
  ObjectSet Merged;
  std::set_union(Into.begin(), Into.end(), From.begin(), From.end(),
                 std::back_inserter(Merged));
  Into = std::move(Merged);
}

void LifetimeState::join(const LifetimeState &Other) {
  if (!Other.Reachable)
    return;
  if (!Reachable) {
    *this = Other;
    return;
  }
  for (const auto &[Name, Set] : Other.Names) {
    auto [It, Inserted] = Names.insert({Name, Set});
    if (!Inserted)
      unionInto(It->second, Set);
  }
  // Objects both states share are skipped: joining an object with itself
  // changes nothing.
  Objects.joinWith(Other.Objects,
                   [&](ObjectState &Mine, const ObjectState &Theirs) {
                     if (!Mine.join(Theirs))
                       GroupsMerged = true;
                   });
  GroupsMerged |= Other.GroupsMerged;
  for (const auto &[Key, Event] : Other.Events) {
    auto [It, Inserted] = Events.insert({Key, Event});
    if (!Inserted && !(It->second == Event)) {
      // Recorded at different points on the two paths: where it sits is
      // unknown, so nothing is concluded from waiting on it later.
      if (It->second.Stream != Event.Stream)
        It->second.Stream.reset();
    }
  }
  for (auto It = StreamAliases.begin(); It != StreamAliases.end();) {
    auto Found = Other.StreamAliases.find(It->first);
    It = Found != Other.StreamAliases.end() && Found->second == It->second
             ? std::next(It)
             : StreamAliases.erase(It);
  }
  for (const auto &[Key, NonBlocking] : Other.NonBlockingStreams) {
    auto [It, Inserted] = NonBlockingStreams.insert({Key, NonBlocking});
    if (!Inserted && It->second != NonBlocking)
      NonBlockingStreams.erase(It);
  }
  for (const auto &[Key, Sites] : Other.RacyReleases) {
    auto [It, Inserted] = RacyReleases.insert({Key, Sites});
    if (!Inserted)
      It->second = It->second.unite(Sites);
  }
  for (const auto &[Key, Release] : Other.Deferred) {
    auto [It, Inserted] = Deferred.insert({Key, Release});
    if (!Inserted && !It->second.join(Release))
      GroupsMerged = true;
  }
  AllocatesOn.insert(Other.AllocatesOn.begin(), Other.AllocatesOn.end());
  if (CurrentStack != Other.CurrentStack || Other.CurrentUnknown)
    CurrentUnknown = true;
  for (const auto &[Key, Work] : Other.Entry) {
    auto [It, Inserted] = Entry.insert({Key, Work});
    if (Inserted)
      continue;
    It->second.Pending |= Work.Pending;
    It->second.Facts.meet(Work.Facts);
  }
  // Must: a pool point is known only where both paths know it.
  for (auto It = PoolSince.begin(); It != PoolSince.end();) {
    auto Found = Other.PoolSince.find(It->first);
    if (Found == Other.PoolSince.end()) {
      It = PoolSince.erase(It);
      continue;
    }
    It->second.Pending |= Found->second.Pending;
    It->second.Facts.meet(Found->second.Facts);
    ++It;
  }
}

bool operator==(const LifetimeState &A, const LifetimeState &B) {
  return A.Reachable == B.Reachable && A.Names == B.Names &&
         A.Objects == B.Objects && A.Events == B.Events &&
         A.StreamAliases == B.StreamAliases &&
         A.NonBlockingStreams == B.NonBlockingStreams &&
         A.CurrentStack == B.CurrentStack &&
         A.CurrentUnknown == B.CurrentUnknown && A.Entry == B.Entry &&
         A.PoolSince == B.PoolSince &&
         A.RacyReleases == B.RacyReleases && A.Deferred == B.Deferred &&
         A.AllocatesOn == B.AllocatesOn &&
         A.GroupsMerged == B.GroupsMerged;
}

} // namespace core
} // namespace streamlife
