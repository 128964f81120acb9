//===- FixApplier.h - --fix: apply the checks' fix-its ---------*- C++ -*-===//
//
// Applies the fix-its of the reported findings to the files on disk, as
// `clang-tidy --fix` does: each finding's edits as a whole or not at all (a
// finding whose edits overlap an already accepted one is left unfixed and
// counted), an edit reported by several translation units (a header) once.
// Findings left out by --baseline are not fixed: they were not reported.
//
// Source files are precious, so --fix refuses more than clang-tidy does:
//   * only the run's inputs are rewritten (same device and inode, so other
//     spellings and hard links count): a fix that would touch a header or
//     any other file not given to the run is left, and counted;
//   * a file with compile errors is not fixed (its analysis is suspect), nor
//     one modified after the run started (the offsets would be stale);
//   * a file is replaced as -o replaces a report (support/AtomicFile.h): a
//     temporary beside it, renamed over it once completely written, with the
//     file's mode; a symbolic link is refused, not followed.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_FIXAPPLIER_H
#define STREAMLIFE_TOOL_CHECK_FIXAPPLIER_H

#include "Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace streamlife::check {

struct FixSettings {
  /// The files the run checked: the only ones --fix may rewrite.
  llvm::ArrayRef<std::string> Inputs;
  /// When the run started (nanoseconds since the epoch, CLOCK_REALTIME): a
  /// file modified later is not fixed. 0: no such check.
  int64_t StartedNs = 0;
};

struct FixSummary {
  unsigned FixedFindings = 0;
  unsigned ConflictingFindings = 0;
  unsigned FilesChanged = 0;
  /// Fixes left because they touch a file that is not an input.
  unsigned NotInputFindings = 0;
  /// Fixes left because their file has compile errors or changed since the
  /// run started.
  unsigned StaleFindings = 0;
};

/// Nanoseconds since the epoch now, for FixSettings::StartedNs.
int64_t fixClockNow();

/// Writes the fixed files; an error (one line) when a file cannot be read or
/// written (files written before it stay fixed: each one is whole).
llvm::Expected<FixSummary> applyFixes(const CheckReport &Report, const FixSettings &Settings);

} // namespace streamlife::check

#endif
