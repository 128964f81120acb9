//===--- LifetimeReporter.h - streamlife ------------------------*- C++ -*-===//
//
// Owns every sentence a user reads from the streamlife checks (the role of
// MPI-Checker's MPIBugReporter): the warnings, the notes that tell the story
// in order, and the suggested fix. The analysis only hands over facts.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_LIFETIMEREPORTER_H
#define STREAMLIFE_CHECKS_LIFETIMEREPORTER_H

#include "LifetimeDataflow.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace clang {
namespace tidy {
namespace streamlife {

class LifetimeReporter {
public:
  explicit LifetimeReporter(ClangTidyCheck &Check) : Check(Check) {}

  void report(const FreeBeforeWaitFinding &Finding);
  void report(const MissingConsumerEventFinding &Finding);
  void report(const UseBeforeAllocFinding &Finding);
  /// \param Buffer the tensor or data pointer handed to the allocator.
  /// \param Loop the innermost loop of the same function around the call.
  void reportRecordStreamInLoop(const Expr *Call, llvm::StringRef Buffer,
                                const Stmt *Loop);

private:
  ClangTidyCheck &Check;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_LIFETIMEREPORTER_H
