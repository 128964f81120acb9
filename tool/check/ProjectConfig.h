//===- ProjectConfig.h - the project's .clang-tidy files, validated -*- C++ -*-===//
//
// `streamlife check` reads a project's .clang-tidy the way clang-tidy does (the
// file's folder and every parent), for the CheckOptions of the streamlife
// checks. clang-tidy itself prints a YAML error or an unknown key once per
// options lookup (4 times for one file) and then ignores the whole file, so a
// typo silently drops the project's settings. Here a broken or unknown entry
// is an input error: one line, exit status 2, before anything is parsed. A key
// that clang-tidy itself retired is a warning instead (RetiredConfigKeys.h).
// (The Checks list cannot switch the streamlife checks off: CheckRunner.cpp.)
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_PROJECTCONFIG_H
#define STREAMLIFE_TOOL_CHECK_PROJECTCONFIG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace streamlife::check {

/// Validates the .clang-tidy files that apply to the inputs of one run, each
/// file once however many inputs (C++ and Python) it applies to.
class ProjectConfigValidator {
public:
  /// Validates every .clang-tidy that applies to Files and was not validated
  /// before. One error per broken file ("PATH:LINE:COL: invalid
  /// configuration: ..."), joined.
  llvm::Error validate(llvm::ArrayRef<std::string> Files);

  /// One line per retired key met so far ("PATH:LINE:1: key ... is ignored"),
  /// each once; taken, so that the caller prints each warning once.
  std::vector<std::string> takeWarnings() { return std::move(Warnings); }

private:
  llvm::StringSet<> VisitedDirs;
  std::vector<std::string> Warnings;
};

} // namespace streamlife::check

#endif
