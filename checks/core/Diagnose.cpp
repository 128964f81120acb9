//===--- Diagnose.cpp - streamlife ----------------------------------------===//
//
// Findings from what the transfer saw in the final replay (see Diagnose.h).
//
// One bug, one warning: a stale event (recorded on the consumer before its
// last use of a buffer, then waited on by the allocation stream, then the
// buffer freed) is one bug seen twice, at the wait and at the free. The
// missing-consumer-event check owns it: the stale wait is the cause and the
// place to fix (record after the last use), while the free is where the
// hazard shows, so it becomes a note of that warning ("released on stream
// 'x' here"). FreeBeforeWaitFinding::ExplainedByStaleWaits marks the free's
// finding; the free-before-wait check drops it when missing-consumer-event is
// enabled, and reports it (with the stale wait as a note) when it runs alone.
//
//===----------------------------------------------------------------------===//

#include "Diagnose.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>
#include <map>

namespace streamlife {
namespace core {

std::string nameSpelling(const ir::Module &M, NameId N) {
  if (N == NoId || N >= M.Names.size() || M.Names[N].Spelling.empty())
    return "<buffer>";
  return M.Names[N].Spelling;
}

StreamName streamName(const ir::Module &M, const StreamKey &S) {
  switch (S.Kind) {
  case StreamKey::LegacyDefault:
    return {StreamName::LegacyDefault, ""};
  case StreamKey::PerThread:
    return {StreamName::Named, "cudaStreamPerThread"};
  case StreamKey::EntryCurrent:
  case StreamKey::Unseen:
    return {StreamName::Current, ""};
  case StreamKey::Named:
    break;
  }
  if (S.Name == NoId || S.Name >= M.Names.size())
    return {StreamName::Named, "<stream>"};
  if (M.Names[S.Name].Spelling == UnnamedCurrentStream)
    return {StreamName::Current, ""};
  return {StreamName::Named, M.Names[S.Name].Spelling};
}

void FindingCollector::racingRelease(SiteId Release, NameId Buffer,
                                     const StreamKey &ReleaseStream,
                                     bool ByLastOwner,
                                     const ObjectState &Object,
                                     std::vector<Racing> Uses, SiteId Reuse) {
  assert(!Uses.empty() && "a racing release without racing uses");
  auto [It, Inserted] =
      FreeBeforeWaitIndex.insert({{Release, Buffer}, Out.FreeBeforeWait.size()});
  if (Inserted) {
    FreeBeforeWaitFinding Finding;
    Finding.ReleaseSite = Release;
    Finding.Buffer = Buffer;
    Finding.ReleaseStream = ReleaseStream;
    Finding.ByLastOwner = ByLastOwner;
    if (Object.AllocSite != NoId && Object.AllocStream) {
      Finding.AllocSite = Object.AllocSite;
      Finding.AllocName = Object.AllocName;
      Finding.AllocStream = *Object.AllocStream;
    }
    Out.FreeBeforeWait.push_back(std::move(Finding));
  }
  FreeBeforeWaitFinding &Finding = Out.FreeBeforeWait[It->second];
  // Judged at several allocations (paths, iterations): the first in source
  // order is the one the note shows.
  if (Reuse != NoId &&
      (Finding.ReuseSite == NoId || before(Reuse, Finding.ReuseSite)))
    Finding.ReuseSite = Reuse;
  // A name that may hold objects of several allocations (the one before a
  // loop and the one in it): the note names the first in source order.
  if (!Inserted && Object.AllocSite != NoId && Object.AllocStream &&
      (Finding.AllocSite == NoId || before(Object.AllocSite, Finding.AllocSite))) {
    Finding.AllocSite = Object.AllocSite;
    Finding.AllocName = Object.AllocName;
    Finding.AllocStream = *Object.AllocStream;
  }
  // One racing use per site: a site pending in several groups (an earlier
  // iteration's instance and this one) comes from an earlier iteration only
  // if every instance does. Looked up through an index: a release raced by
  // N uses (the N branches of an else-if chain) searched the list once per
  // use, N^2/2 comparisons (0.9% of the run at N = 20,000, growing with N).
  std::map<std::pair<SiteId, StreamKey>, size_t> Index;
  for (size_t I = 0; I < Finding.Uses.size(); ++I)
    Index.emplace(std::make_pair(Finding.Uses[I].Site, Finding.Uses[I].Stream), I);
  bool Added = false;
  for (Racing &Use : Uses) {
    auto [Slot, New] =
        Index.emplace(std::make_pair(Use.Site, Use.Stream), Finding.Uses.size());
    if (New) {
      Finding.Uses.push_back(
          {Use.Site, Use.Stream, Use.FromEarlierIteration,
           std::move(Use.WrongStreamWaits), {}});
      Added = true;
      continue;
    }
    FreeBeforeWaitFinding::RacingUse &Existing = Finding.Uses[Slot->second];
    Existing.FromEarlierIteration &= Use.FromEarlierIteration;
    for (auto &Wait : Use.WrongStreamWaits)
      if (std::find(Existing.WrongStreamWaits.begin(),
                    Existing.WrongStreamWaits.end(),
                    Wait) == Existing.WrongStreamWaits.end())
        Existing.WrongStreamWaits.push_back(Wait);
  }
  // The list was sorted before this call; only new uses can unsort it.
  if (Added)
    std::stable_sort(Finding.Uses.begin(), Finding.Uses.end(),
                     [&](const auto &A, const auto &B) {
                       return before(A.Site, B.Site);
                     });
}

void FindingCollector::staleWait(SiteId Wait, const StreamKey &Waiter,
                                 NameId Event, const StreamKey &Consumer,
                                 SiteId RecordSite, NameId Buffer,
                                 const std::vector<SiteId> &StaleUses,
                                 SiteId LastUse, bool OnAllocationStream) {
  for (SiteId Use : StaleUses) {
    auto &Waits = StaleWaits[Use];
    if (std::none_of(Waits.begin(), Waits.end(), [&](const StaleWait &W) {
          return W.WaitSite == Wait && W.Waiter == Waiter;
        }))
      Waits.push_back({Wait, Waiter, Event});
  }
  // Reported when the waiting stream is the allocation stream, the one
  // whose later allocations reuse the block.
  if (!OnAllocationStream || !MissingEventSeen.insert({Wait, Buffer}).second)
    return;
  Out.MissingConsumerEvent.push_back(
      {Wait, Waiter, Event, Consumer, Buffer, RecordSite, LastUse, {}});
}

void FindingCollector::lateWait(SiteId Wait, const StreamKey &Waiter,
                                const StreamKey &Consumer,
                                SiteId ReleaseSite) {
  auto &Waits = LateWaits[ReleaseSite];
  if (std::none_of(Waits.begin(), Waits.end(), [&](const auto &W) {
        return W.WaitSite == Wait && W.Consumer == Consumer;
      }))
    Waits.push_back({Wait, Waiter, Consumer});
}

void FindingCollector::useBeforeAlloc(SiteId Use, NameId Buffer,
                                      const StreamKey &UseStream,
                                      const ObjectState &Object) {
  if (!UseBeforeAllocSeen.insert({Use, Buffer}).second)
    return;
  Out.UseBeforeAlloc.push_back({Use, Buffer, UseStream, Object.AllocSite,
                                Object.AllocName, *Object.AllocStream});
}

void FindingCollector::handOff(SiteId Return, NameId Buffer,
                               const StreamKey &ReleaseStream,
                               const ObjectState &Object) {
  NameId Shown = Object.AllocName != NoId ? Object.AllocName : Buffer;
  if (!HandOffSeen.insert({Return, Shown}).second)
    return;
  HandOffFinding Finding;
  Finding.ReturnSite = Return;
  Finding.Buffer = Shown;
  Finding.ReleaseStream = ReleaseStream;
  Finding.AllocSite = Object.AllocSite;
  Finding.AllocName = Object.AllocName;
  if (Object.AllocStream)
    Finding.AllocStream = *Object.AllocStream;
  Out.HandOff.push_back(std::move(Finding));
}

void FindingCollector::finish() {
  std::set<SiteId> ReportedStaleWaits;
  for (const MissingConsumerEventFinding &F : Out.MissingConsumerEvent)
    ReportedStaleWaits.insert(F.WaitSite);
  for (FreeBeforeWaitFinding &Finding : Out.FreeBeforeWait) {
    bool AllExplained = !Finding.Uses.empty();
    std::set<SiteId> Explaining;
    for (FreeBeforeWaitFinding::RacingUse &Use : Finding.Uses) {
      bool Explained = false;
      auto Stale = StaleWaits.find(Use.Site);
      if (Stale != StaleWaits.end())
        for (const StaleWait &Wait : Stale->second) {
          if (Wait.Waiter != Finding.ReleaseStream)
            continue;
          if (std::none_of(Use.StaleWaits.begin(), Use.StaleWaits.end(),
                           [&](const auto &W) {
                             return W.first == Wait.WaitSite;
                           }))
            Use.StaleWaits.push_back({Wait.WaitSite, Wait.Event});
          if (ReportedStaleWaits.count(Wait.WaitSite)) {
            Explained = true;
            Explaining.insert(Wait.WaitSite);
          }
        }
      AllExplained &= Explained;
    }
    // The stale wait made this release racy (for some of its uses at
    // least): it is told as a note of the stale-event warning.
    for (MissingConsumerEventFinding &Stale : Out.MissingConsumerEvent)
      if (Explaining.count(Stale.WaitSite))
        Stale.RacingReleases.push_back({Finding.ReleaseSite, Finding.Buffer});
    // Every racing use is explained by a reported stale wait: one bug, one
    // warning (at the wait).
    if (AllExplained)
      Finding.ExplainedByStaleWaits.assign(Explaining.begin(),
                                           Explaining.end());
    auto Found = LateWaits.find(Finding.ReleaseSite);
    if (Found == LateWaits.end())
      continue;
    for (const auto &Wait : Found->second)
      if (before(Finding.ReleaseSite, Wait.WaitSite))
        Finding.LateWaits.push_back(Wait);
  }
  // A stale wait is a bug only when a release relies on it: a wait on an
  // older record that guards an older buffer (keepalive with one reused
  // event) is right even though a newer buffer's uses come after the record.
  llvm::erase_if(Out.MissingConsumerEvent,
                 [](const MissingConsumerEventFinding &F) {
                   return F.RacingReleases.empty();
                 });
}

} // namespace core
} // namespace streamlife
