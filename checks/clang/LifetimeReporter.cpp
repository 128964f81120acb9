//===--- LifetimeReporter.cpp - streamlife --------------------------------===//

#include "LifetimeReporter.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLExtras.h"
#include <cassert>

namespace clang {
namespace tidy {
namespace streamlife {

/// "stream 'ag'", "the legacy default stream", "the per-thread default
/// stream" or "the current stream".
std::string LifetimeReporter::describe(const core::StreamKey &S) const {
  // cudaStreamPerThread, and the null stream under per-thread default
  // streams.
  if (S.Kind == core::StreamKey::PerThread)
    return "the per-thread default stream";
  core::StreamName Name = core::streamName(Unit.module(), S);
  switch (Name.Kind) {
  case core::StreamName::LegacyDefault:
    return "the legacy default stream";
  case core::StreamName::Current:
    return "the current stream";
  case core::StreamName::Named:
    break;
  }
  return "stream '" + Name.Name + "'";
}

/// "'ag'" (or the special streams' phrases), for sentences that already
/// said "stream" once.
std::string LifetimeReporter::shortName(const core::StreamKey &S) const {
  core::StreamName Name = core::streamName(Unit.module(), S);
  if (Name.Kind != core::StreamName::Named || S.Kind == core::StreamKey::PerThread)
    return describe(S);
  return "'" + Name.Name + "'";
}

/// The per-thread default stream is an ordinary stream: where a finding
/// involves it, the legacy default stream's implicit synchronization would
/// have ordered what races, so the story says once which default stream
/// the file has.
void LifetimeReporter::notePerThreadDefaultStream(
    ir::SiteId Site, llvm::ArrayRef<core::StreamKey> Streams) {
  if (llvm::none_of(Streams, [](const core::StreamKey &S) {
        return S.Kind == core::StreamKey::PerThread;
      }))
    return;
  if (Unit.defaultStream().Kind == ir::StreamRef::PerThread)
    Check.diag(at(Site),
               "the default stream of this file is the per-thread default "
               "stream (nvcc --default-stream per-thread, or "
               "CUDA_API_PER_THREAD_DEFAULT_STREAM): unlike the legacy default "
               "stream it neither waits for other streams' work nor makes "
               "them wait for its own",
               DiagnosticIDs::Note);
  else
    Check.diag(at(Site),
               "the per-thread default stream (cudaStreamPerThread) neither "
               "waits for other streams' work nor makes them wait for its "
               "own, unlike the legacy default stream",
               DiagnosticIDs::Note);
}

std::string LifetimeReporter::name(ir::NameId N) const {
  return core::nameSpelling(Unit.module(), N);
}

const FixItPlanner *LifetimeReporter::planner() {
  if (!Function)
    return nullptr;
  if (!Planner)
    Planner = std::make_unique<FixItPlanner>(*Function, Unit);
  return Planner.get();
}

void LifetimeReporter::report(const core::FreeBeforeWaitFinding &Finding) {
  const auto &First = Finding.Uses.front();
  // A wait that only comes after the release: moving the release after it
  // is the fix, when that wait covers every racing use (FixItPlanner).
  std::optional<FixItPlan> Fix;
  if (!Finding.LateWaits.empty())
    if (const FixItPlanner *Plans = planner())
      Fix = Plans->moveReleaseAfterWait(Finding);
  {
    auto Warning = Check.diag(at(Finding.ReleaseSite),
                              "'%0' is released on %1 while %2 may "
                              "still use it");
    Warning << name(Finding.Buffer) << describe(Finding.ReleaseStream)
            << describe(First.Stream);
    if (Fix)
      Warning << Fix->Hints;
  }
  if (Finding.AllocSite != ir::NoId)
    Check.diag(at(Finding.AllocSite), "'%0' allocated on %1 here",
               DiagnosticIDs::Note)
        << name(Finding.AllocName) << describe(Finding.AllocStream);
  {
    std::vector<core::StreamKey> Streams = {Finding.ReleaseStream};
    for (const auto &Use : Finding.Uses)
      Streams.push_back(Use.Stream);
    notePerThreadDefaultStream(Finding.ReleaseSite, Streams);
  }
  for (const auto &Use : Finding.Uses) {
    Check.diag(at(Use.Site), "used on %0 here", DiagnosticIDs::Note)
        << describe(Use.Stream);
    if (Use.FromEarlierIteration)
      Check.diag(at(Use.Site),
                 "the use happens in an earlier loop iteration than the "
                 "release",
                 DiagnosticIDs::Note);
    for (const auto &[WaitSite, Event] : Use.StaleWaits)
      Check.diag(at(WaitSite),
                 "%0 waits on event '%1' recorded on %2 before this use",
                 DiagnosticIDs::Note)
          << describe(Finding.ReleaseStream) << name(Event)
          << shortName(Use.Stream);
    for (const auto &[WaitSite, Waiter] : Use.WrongStreamWaits)
      Check.diag(at(WaitSite), "the wait is on %0, not on the release %1",
                 DiagnosticIDs::Note)
          << describe(Waiter) << describe(Finding.ReleaseStream);
  }
  for (const auto &Late : Finding.LateWaits)
    Check.diag(at(Late.WaitSite), "%0 waits for %1 only after the release",
               DiagnosticIDs::Note)
        << describe(Late.Waiter) << shortName(Late.Consumer);
  const auto &Last = Finding.Uses.back();
  Check.diag(at(Last.Site),
             "record an event on %0 after this use and make %1 wait on it "
             "before the release",
             DiagnosticIDs::Note)
      << shortName(Last.Stream) << shortName(Finding.ReleaseStream);
  if (Fix)
    Check.diag(Fix->After, "fix: move the release after this wait",
               DiagnosticIDs::Note);
}

void LifetimeReporter::report(
    const core::MissingConsumerEventFinding &Finding,
    llvm::ArrayRef<core::MissingConsumerEventFinding> Siblings) {
  // The record moves after the last use when both are statements of the
  // wait's block (FixItPlanner). Findings of several buffers that share the
  // record and the wait carry the move once, on the first of them.
  std::optional<FixItPlan> Fix;
  size_t Index = &Finding - Siblings.data();
  assert(Index < Siblings.size() && "the finding is one of its siblings");
  bool FirstForRecord = llvm::none_of(
      Siblings.take_front(Index),
      [&](const core::MissingConsumerEventFinding &Earlier) {
        return Earlier.WaitSite == Finding.WaitSite &&
               Earlier.RecordSite == Finding.RecordSite;
      });
  if (FirstForRecord)
    if (const FixItPlanner *Plans = planner())
      Fix = Plans->moveRecordAfterLastUse(Finding, Siblings);
  {
    auto Warning = Check.diag(at(Finding.WaitSite),
                              "%0 waits on event '%1' recorded on %2 before "
                              "its last use of '%3'");
    Warning << describe(Finding.WaitingStream) << name(Finding.Event)
            << shortName(Finding.EventStream) << name(Finding.Buffer);
    if (Fix)
      Warning << Fix->Hints;
  }
  if (Finding.RecordSite != ir::NoId)
    Check.diag(at(Finding.RecordSite), "event '%0' recorded here",
               DiagnosticIDs::Note)
        << name(Finding.Event);
  Check.diag(at(Finding.LastUseSite), "last use on %0 here",
             DiagnosticIDs::Note)
      << describe(Finding.EventStream);
  notePerThreadDefaultStream(Finding.WaitSite,
                             {Finding.WaitingStream, Finding.EventStream});
  Check.diag(at(Finding.LastUseSite),
             "record the event on %0 after this use, then make %1 wait on it",
             DiagnosticIDs::Note)
      << shortName(Finding.EventStream) << shortName(Finding.WaitingStream);
  if (Fix)
    Check.diag(Fix->After, "fix: move the record after this statement",
               DiagnosticIDs::Note);
  // The free this stale wait makes racy is the same bug: a note, not a
  // second warning.
  for (const auto &[ReleaseSite, Buffer] : Finding.RacingReleases)
    Check.diag(at(ReleaseSite),
               "'%0' released on %1 here while %2 may still use it",
               DiagnosticIDs::Note)
        << name(Buffer) << describe(Finding.WaitingStream)
        << describe(Finding.EventStream);
}

void LifetimeReporter::report(const core::UseBeforeAllocFinding &Finding) {
  Check.diag(at(Finding.UseSite),
             "'%0' is used on %1 before %2 is ordered after its allocation on "
             "%3")
      << name(Finding.Buffer) << describe(Finding.UseStream)
      << shortName(Finding.UseStream) << describe(Finding.AllocStream);
  Check.diag(at(Finding.AllocSite), "'%0' allocated on %1 here",
             DiagnosticIDs::Note)
      << name(Finding.AllocName) << describe(Finding.AllocStream);
  Check.diag(at(Finding.UseSite),
             "record an event on %0 after the allocation and make %1 wait on "
             "it before this use",
             DiagnosticIDs::Note)
      << shortName(Finding.AllocStream) << shortName(Finding.UseStream);
}

void LifetimeReporter::report(const core::HandOffFinding &Finding) {
  Check.diag(at(Finding.ReturnSite),
             "'%0' is handed to the caller but is released on %1, which the "
             "caller does not know; its uses on the caller's stream will not "
             "be ordered before that release")
      << name(Finding.Buffer) << describe(Finding.ReleaseStream);
  if (Finding.AllocSite != ir::NoId)
    Check.diag(at(Finding.AllocSite), "'%0' allocated on %1 here",
               DiagnosticIDs::Note)
        << name(Finding.AllocName) << describe(Finding.AllocStream);
  Check.diag(at(Finding.ReturnSite),
             "allocate it on the caller's stream, or rebind it to the "
             "caller's stream after the join (record_stream, set_stream)",
             DiagnosticIDs::Note);
}

void reportQueuePop(ClangTidyCheck &Check, const QueuePopFinding &Finding) {
  Check.diag(Finding.Pop->getBeginLoc(),
             "'%0' releases the oldest entry's tensor before the allocation "
             "stream waits on the entry's event")
      << Finding.PopText;
  if (Finding.LateWait)
    Check.diag(Finding.LateWait->getBeginLoc(),
               "the wait comes only after the release", DiagnosticIDs::Note);
  Check.diag(Finding.Pop->getBeginLoc(),
             "make the allocation stream wait on the entry's event, then pop "
             "it",
             DiagnosticIDs::Note);
}

void LifetimeReporter::report(const core::LimitNote &Limit) {
  Check.diag(at(Limit.Site), "%0", DiagnosticIDs::Note) << Limit.Message;
}

void reportRecordStreamInLoop(ClangTidyCheck &Check, const Expr *Call,
                              llvm::StringRef Buffer, const Stmt *Loop) {
  Check.diag(Call->getBeginLoc(),
             "record_stream on '%0' inside a loop hands buffer reuse to the "
             "allocator's event polling; record an event on the consumer "
             "stream and make the allocation stream wait on it before the "
             "release")
      << Buffer;
  Check.diag(Loop->getBeginLoc(), "inside this loop", DiagnosticIDs::Note);
  // No fix-it: a keepalive queue outlives the loop body (a member or a
  // variable before the loop, its pops where the allocation stream waits).
  Check.diag(Call->getBeginLoc(),
             "no automatic fix: instead, keep '%0' with an event recorded on "
             "the consumer stream after its use in a keepalive queue, and "
             "drop it only after the allocation stream waited on that event",
             DiagnosticIDs::Note)
      << Buffer;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
