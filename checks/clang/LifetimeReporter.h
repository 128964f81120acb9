//===--- LifetimeReporter.h - streamlife ------------------------*- C++ -*-===//
//
// Owns every sentence a user reads from the streamlife checks (the role of
// MPI-Checker's MPIBugReporter): the warnings, the notes that tell the story
// in order, and the suggested fix. The analysis core only hands over facts in
// ids; the translation unit's IR maps them back to source locations. Where a
// fix is local and certain (FixItPlanner), the warning carries it as a
// fix-it; elsewhere a note says what to change.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_LIFETIMEREPORTER_H
#define STREAMLIFE_CHECKS_CLANG_LIFETIMEREPORTER_H

#include "ClangLowering.h"
#include "FixItPlanner.h"
#include "Findings.h"
#include "QueuePopOrder.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace clang {
namespace tidy {
namespace streamlife {

class LifetimeReporter {
public:
  /// \p Function: the analysed definition, whose body fix-its rewrite
  /// (none without it).
  LifetimeReporter(ClangTidyCheck &Check, const TranslationUnitIR &Unit,
                   const FunctionDecl *Function = nullptr)
      : Check(Check), Unit(Unit), Function(Function) {}

  void report(const core::FreeBeforeWaitFinding &Finding);
  /// \p Siblings: every missing-consumer-event finding of the function
  /// (a record shared by several buffers moves once, after all their uses).
  void report(const core::MissingConsumerEventFinding &Finding,
              llvm::ArrayRef<core::MissingConsumerEventFinding> Siblings);
  void report(const core::UseBeforeAllocFinding &Finding);
  void report(const core::LimitNote &Limit);
  void report(const core::HandOffFinding &Finding);

private:
  SourceLocation at(ir::SiteId Site) const { return Unit.location(Site); }
  std::string describe(const core::StreamKey &S) const;
  std::string shortName(const core::StreamKey &S) const;
  std::string name(ir::NameId N) const;
  /// A note at \p Site when one of \p Streams is the per-thread default
  /// stream: it does not synchronize as the legacy one does.
  void notePerThreadDefaultStream(ir::SiteId Site,
                                  llvm::ArrayRef<core::StreamKey> Streams);
  /// Built on the first finding that may have a fix.
  const FixItPlanner *planner();

  ClangTidyCheck &Check;
  const TranslationUnitIR &Unit;
  const FunctionDecl *Function;
  std::unique_ptr<FixItPlanner> Planner;
};

/// A keepalive entry popped before its event was waited on (QueuePopOrder).
void reportQueuePop(ClangTidyCheck &Check, const QueuePopFinding &Finding);

/// The record-stream-in-loop check's sentence (no dataflow).
void reportRecordStreamInLoop(ClangTidyCheck &Check, const Expr *Call,
                              llvm::StringRef Buffer, const Stmt *Loop);

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_LIFETIMEREPORTER_H
