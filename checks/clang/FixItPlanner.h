//===--- FixItPlanner.h - streamlife ----------------------------*- C++ -*-===//
//
// Decides whether a finding has a fix that is local and certain, and spells
// it as clang FixItHints. Only one kind of rewrite is ever offered: moving one
// expression statement later within its own block, past statements that
// cannot observe the move.
//
//   free-before-wait       the allocation stream's wait comes after the
//                          release (`free; wait` -> `wait; free`): move the
//                          release after the wait, when that wait's event
//                          is recorded on each consumer after its last use.
//   missing-consumer-event the consumer's event is recorded before its last
//                          use (`record; use; wait` -> `use; record; wait`):
//                          move the record after the last use.
//
// Everything else (an event to create, a keepalive queue to introduce, a
// record in another block or branch) is not local: the reporter's notes say
// what to do instead.
//
// "Certain" is checked on both sides: the IR (which operation each statement
// is: the wait's event, the record's stream, that nothing in between records,
// waits on or syncs the event) and the AST (one block, no jump or label in
// between, no write to or shadowing of what the moved statement reads, only
// locals and parameters whose address does not escape).
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_FIXITPLANNER_H
#define STREAMLIFE_CHECKS_CLANG_FIXITPLANNER_H

#include "ClangLowering.h"
#include "Findings.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

/// A fix: the edits (all belong together) and the statement it moves after.
struct FixItPlan {
  std::vector<FixItHint> Hints;
  SourceLocation After; ///< The statement the moved one now follows.
};

class FixItPlanner {
public:
  FixItPlanner(const FunctionDecl &Function, const TranslationUnitIR &Unit);
  ~FixItPlanner();

  /// Move the release after the late wait that covers every racing use.
  std::optional<FixItPlan>
  moveReleaseAfterWait(const core::FreeBeforeWaitFinding &Finding) const;

  /// Move the stale record after the last use. \p Siblings are all the
  /// missing-consumer-event findings of the function: a record that several
  /// buffers' findings share moves after the latest of their last uses.
  std::optional<FixItPlan> moveRecordAfterLastUse(
      const core::MissingConsumerEventFinding &Finding,
      llvm::ArrayRef<core::MissingConsumerEventFinding> Siblings) const;

  class Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_FIXITPLANNER_H
