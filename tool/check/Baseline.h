//===- Baseline.h - --baseline: only what is new ---------------*- C++ -*-===//
//
// Adopting the checker on a codebase that already has findings: keep the
// report of one run (SARIF or JSON), pass it as --baseline, and later runs
// report only findings that are not in it. Findings are matched by their
// fingerprint (Fingerprint.h), not by line, so edits elsewhere in a file keep
// them matched. SARIF output then marks every result with baselineState
// "new" or "unchanged", and lists the baseline's findings that are gone as
// "absent" results, as SARIF 2.1.0 §3.27.24 prescribes; text and JSON output
// show only the new findings. The exit status counts new findings only.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_BASELINE_H
#define STREAMLIFE_TOOL_CHECK_BASELINE_H

#include "Finding.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace streamlife::check {

struct Baseline {
  /// The earlier run's findings, each with its fingerprint; locations as far
  /// as the report gives them (absolute paths).
  std::vector<Diagnostic> Findings;
};

/// Reads a report written by `streamlife check --format sarif|json`. A
/// SARIF report's own "absent" results are not part of it. \p SourceRoot
/// resolves SARIF's %SRCROOT%-relative URIs. The error is one line.
llvm::Expected<Baseline> loadBaseline(llvm::StringRef Path, llvm::StringRef SourceRoot);

/// Sets the State of every finding of \p Report (fingerprints assigned) and
/// fills Report.AbsentFindings with the baseline's findings that are gone.
/// Only a file this run checked can have lost a finding: the unmatched
/// findings of other files (a run on a subset, a pre-commit hook on the
/// staged files) are left alone and only counted, in
/// Report.BaselineFindingsNotChecked. \p Checked says whether a path
/// (absolute) was covered by the run.
void compareWithBaseline(CheckReport &Report, const Baseline &Earlier,
                         llvm::function_ref<bool(llvm::StringRef)> Checked);

} // namespace streamlife::check

#endif
