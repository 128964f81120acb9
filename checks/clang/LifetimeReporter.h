//===--- LifetimeReporter.h - streamlife ------------------------*- C++ -*-===//
//
// Reports the streamlife checks' findings through clang-tidy (the role of
// MPI-Checker's MPIBugReporter). The sentences are the core's (Wording.h),
// shared with the Python front end; this maps their sites back to source
// locations through the translation unit's IR and, where a fix is local and
// certain (FixItPlanner), attaches it to the warning as a fix-it.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_LIFETIMEREPORTER_H
#define STREAMLIFE_CHECKS_CLANG_LIFETIMEREPORTER_H

#include "ClangLowering.h"
#include "Wording.h"
#include "FixItPlanner.h"
#include "Findings.h"
#include "RecordStreamReach.h"
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
  void emit(const core::Story &Story, const std::optional<FixItPlan> &Fix);
  /// Inserts at \p Position the note that says what the per-thread default
  /// stream is, when one of \p Streams is it.
  void notePerThreadDefaultStream(core::Story &Story, size_t Position, ir::SiteId Site,
                                  llvm::ArrayRef<core::StreamKey> Streams) const;
  /// Built on the first finding that may have a fix.
  const FixItPlanner *planner();

  ClangTidyCheck &Check;
  const TranslationUnitIR &Unit;
  const FunctionDecl *Function;
  std::unique_ptr<FixItPlanner> Planner;
};

/// The record-stream-in-loop check's sentence (no dataflow).
void reportRecordStreamInLoop(ClangTidyCheck &Check, const Expr *Call,
                              llvm::StringRef Buffer, const Stmt *Loop);
/// The same for a call in the loop that reaches record_stream through
/// \p Reach's functions.
void reportRecordStreamInLoopThroughCall(
    ClangTidyCheck &Check, const Expr *Call, const Stmt *Loop,
    const core::RecordStreamReach<SourceLocation> &Reach);

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_LIFETIMEREPORTER_H
