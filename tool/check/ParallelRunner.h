//===- ParallelRunner.h - check many files at once -------------*- C++ -*-===//
//
// Runs checkFile over a list of files with up to N files in flight and
// returns the results in the order of the list, whatever order they finished
// in. Each file is parsed once, in a worker process of its own (see
// ParallelRunner.cpp for why processes and not threads); a worker that
// crashes or is killed fails its file alone. Findings reported from a header
// by several translation units are kept once, in the first file that reports
// them.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_PARALLELRUNNER_H
#define STREAMLIFE_TOOL_CHECK_PARALLELRUNNER_H

#include "Finding.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <functional>

namespace streamlife::check {

struct ParallelSettings {
  unsigned Jobs = 1; ///< files in flight; at least 1
  /// Called in the parent, in completion order, as each file finishes.
  std::function<void(const FileResult &)> OnFileDone;
  /// Files the parent removes should it be interrupted (the -o temporary):
  /// a worker that crashes must leave them alone.
  std::vector<std::string> ParentsFiles;
};

CheckReport runChecksInParallel(const clang::tooling::CompilationDatabase &Database,
                                llvm::ArrayRef<std::string> Files,
                                const ParallelSettings &Settings);

/// What makes two findings the same one: check, position and message.
std::string repeatedFindingKey(const Diagnostic &Finding);

/// Drops findings already reported by an earlier file of \p Report (same
/// check, position and message: a header included by several of them).
void dropRepeatedHeaderFindings(CheckReport &Report);

/// The default of -j: the cores this process may run on.
unsigned defaultJobCount();

} // namespace streamlife::check

#endif
