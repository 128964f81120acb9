//===--- LifetimeReporter.cpp - streamlife --------------------------------===//

#include "LifetimeReporter.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>

namespace clang {
namespace tidy {
namespace streamlife {

/// The core's story (Wording.h) as clang-tidy diagnostics; a fix, when
/// planned, goes on the warning and its note right after the advice.
void LifetimeReporter::emit(const core::Story &Story,
                            const std::optional<FixItPlan> &Fix) {
  {
    auto Warning = Check.diag(at(Story.Site), "%0");
    Warning << Story.Message;
    if (Fix)
      Warning << Fix->Hints;
  }
  for (const core::StoryNote &Note : Story.Notes) {
    Check.diag(at(Note.Site), "%0", DiagnosticIDs::Note) << Note.Text;
    if (Note.IsAdvice && Fix)
      Check.diag(Fix->After, "%0", DiagnosticIDs::Note) << Story.FixNote;
  }
}

void LifetimeReporter::notePerThreadDefaultStream(
    core::Story &Story, size_t Position, ir::SiteId Site,
    llvm::ArrayRef<core::StreamKey> Streams) const {
  if (llvm::none_of(Streams, [](const core::StreamKey &S) {
        return S.Kind == core::StreamKey::PerThread;
      }))
    return;
  bool FileDefault = Unit.defaultStream().Kind == ir::StreamRef::PerThread;
  Story.Notes.insert(Story.Notes.begin() + std::min(Position, Story.Notes.size()),
                     {Site, core::perThreadDefaultStreamNote(FileDefault)});
}

const FixItPlanner *LifetimeReporter::planner() {
  if (!Function)
    return nullptr;
  if (!Planner)
    Planner = std::make_unique<FixItPlanner>(*Function, Unit);
  return Planner.get();
}

void LifetimeReporter::report(const core::FreeBeforeWaitFinding &Finding) {
  // A wait that only comes after the release: moving the release after it
  // is the fix, when that wait covers every racing use (FixItPlanner).
  std::optional<FixItPlan> Fix;
  if (!Finding.LateWaits.empty())
    if (const FixItPlanner *Plans = planner())
      Fix = Plans->moveReleaseAfterWait(Finding);
  core::Story Story = core::tell(Unit.module(), Finding);
  std::vector<core::StreamKey> Streams = {Finding.ReleaseStream};
  for (const auto &Use : Finding.Uses)
    Streams.push_back(Use.Stream);
  // After the allocation's note, before the uses.
  notePerThreadDefaultStream(Story, Finding.AllocSite != ir::NoId ? 1 : 0,
                             Finding.ReleaseSite, Streams);
  emit(Story, Fix);
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
  core::Story Story = core::tell(Unit.module(), Finding);
  // After the record's and the last use's notes, before the advice.
  notePerThreadDefaultStream(Story, Finding.RecordSite != ir::NoId ? 2 : 1,
                             Finding.WaitSite,
                             {Finding.WaitingStream, Finding.EventStream});
  emit(Story, Fix);
}

void LifetimeReporter::report(const core::UseBeforeAllocFinding &Finding) {
  emit(core::tell(Unit.module(), Finding), std::nullopt);
}

void LifetimeReporter::report(const core::HandOffFinding &Finding) {
  emit(core::tell(Unit.module(), Finding), std::nullopt);
}

void LifetimeReporter::report(const core::LimitNote &Limit) {
  Check.diag(at(Limit.Site), "%0", DiagnosticIDs::Note) << Limit.Message;
}

void reportRecordStreamInLoop(ClangTidyCheck &Check, const Expr *Call,
                              llvm::StringRef Buffer, const Stmt *Loop) {
  core::RecordStreamInLoopWords Words = core::recordStreamInLoop(Buffer);
  Check.diag(Call->getBeginLoc(), "%0") << Words.Message;
  Check.diag(Loop->getBeginLoc(), "%0", DiagnosticIDs::Note) << Words.LoopNote;
  Check.diag(Call->getBeginLoc(), "%0", DiagnosticIDs::Note) << Words.Advice;
}

void reportRecordStreamInLoopThroughCall(
    ClangTidyCheck &Check, const Expr *Call, const Stmt *Loop,
    const core::RecordStreamReach<SourceLocation> &Reach) {
  const auto &Hops = Reach.Hops;
  core::RecordStreamInLoopWords Words = core::recordStreamInLoopThroughCall(
      Reach.Buffer, Hops.back().Function, Hops.front().Function);
  Check.diag(Call->getBeginLoc(), "%0") << Words.Message;
  Check.diag(Loop->getBeginLoc(), "%0", DiagnosticIDs::Note) << Words.LoopNote;
  for (size_t I = 0; I + 1 < Hops.size(); ++I)
    Check.diag(Hops[I].At, "%0", DiagnosticIDs::Note)
        << core::callsHere(Hops[I].Function, Hops[I + 1].Function);
  Check.diag(Hops.back().At, "%0", DiagnosticIDs::Note)
      << core::recordStreamCalledHere(Hops.back().Function, Reach.Buffer);
  Check.diag(Hops.back().At, "%0", DiagnosticIDs::Note) << Words.Advice;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
