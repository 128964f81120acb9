//===- ProgressReporter.h - how far a run is --------------------*- C++ -*-===//
//
// Progress of a run over several files, on standard error:
//  - on a terminal, one line rewritten in place:
//      streamlife: [37/120] 0:42 elapsed, 5 findings, 1 failed
//  - otherwise (CI logs), one plain line per finished file, which a log
//    keeps and a slow file shows up in:
//      streamlife: [37/120] src/pipeline.cu: 2 findings (1.4 s)
// Findings are counted once: a header's finding that an earlier file already
// reported does not count again.
// Nothing for a single file or with --quiet, so that the output of a
// one-file run is the diagnostics alone (CheckCommand.cpp decides when).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_PROGRESSREPORTER_H
#define STREAMLIFE_TOOL_CHECK_PROGRESSREPORTER_H

#include "Finding.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace streamlife::check {

class ProgressReporter {
public:
  ProgressReporter(llvm::raw_ostream &OS, size_t TotalFiles, bool Enabled, bool Terminal);

  void fileDone(const FileResult &Result);
  /// Ends the terminal line so that what follows starts on a fresh line.
  void finish();

private:
  llvm::raw_ostream &OS;
  size_t Total;
  bool Enabled;
  bool Terminal;
  size_t Done = 0;
  size_t Findings = 0;
  size_t Failed = 0;
  /// Findings counted so far: a header's finding reported by several files
  /// counts once, as in the report.
  llvm::StringSet<> Seen;
  std::chrono::steady_clock::time_point Start;
};

} // namespace streamlife::check

#endif
