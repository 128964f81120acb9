//===--- LifetimeReporter.h - streamlife ------------------------*- C++ -*-===//
//
// Owns every sentence a user reads from the streamlife checks (the role of
// MPI-Checker's MPIBugReporter): the warnings, the notes that tell the story
// in order, and the suggested fix. The analysis core only hands over facts in
// ids; the translation unit's IR maps them back to source locations.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_LIFETIMEREPORTER_H
#define STREAMLIFE_CHECKS_LIFETIMEREPORTER_H

#include "ClangLowering.h"
#include "Findings.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace clang {
namespace tidy {
namespace streamlife {

class LifetimeReporter {
public:
  LifetimeReporter(ClangTidyCheck &Check, const TranslationUnitIR &Unit)
      : Check(Check), Unit(Unit) {}

  void report(const core::FreeBeforeWaitFinding &Finding);
  void report(const core::MissingConsumerEventFinding &Finding);
  void report(const core::UseBeforeAllocFinding &Finding);
  void report(const core::LimitNote &Limit);

private:
  SourceLocation at(ir::SiteId Site) const { return Unit.location(Site); }
  std::string describe(const core::StreamKey &S) const;
  std::string shortName(const core::StreamKey &S) const;
  std::string name(ir::NameId N) const;

  ClangTidyCheck &Check;
  const TranslationUnitIR &Unit;
};

/// The record-stream-in-loop check's sentence (no dataflow).
void reportRecordStreamInLoop(ClangTidyCheck &Check, const Expr *Call,
                              llvm::StringRef Buffer, const Stmt *Loop);

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_LIFETIMEREPORTER_H
