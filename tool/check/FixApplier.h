//===- FixApplier.h - --fix: apply the checks' fix-its ---------*- C++ -*-===//
//
// Applies the fix-its of the reported findings to the files on disk, as
// `clang-tidy --fix` does: each finding's edits as a whole or not at all (a
// finding whose edits overlap an already accepted one is left unfixed and
// counted), an edit reported by several translation units (a header) once.
// Findings left out by --baseline are not fixed: they were not reported.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_FIXAPPLIER_H
#define STREAMLIFE_TOOL_CHECK_FIXAPPLIER_H

#include "Finding.h"

#include "llvm/Support/Error.h"

namespace streamlife::check {

struct FixSummary {
  unsigned FixedFindings = 0;
  unsigned ConflictingFindings = 0;
  unsigned FilesChanged = 0;
};

/// Writes the fixed files; an error (one line) when a file cannot be read or
/// written.
llvm::Expected<FixSummary> applyFixes(const CheckReport &Report);

} // namespace streamlife::check

#endif
