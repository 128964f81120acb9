//===- ProjectConfig.h - the project's .clang-tidy files, validated -*- C++ -*-===//
//
// `streamlife check` reads a project's .clang-tidy the way clang-tidy does (the
// file's folder and every parent), for the CheckOptions of the streamlife
// checks. clang-tidy itself prints a YAML error or an unknown key once per
// options lookup (4 times for one file) and then ignores the whole file, so a
// typo silently drops the project's settings. Here a broken or unknown entry
// is an input error: one line, exit status 2, before anything is parsed.
// (The Checks list cannot switch the streamlife checks off: CheckRunner.cpp.)
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_PROJECTCONFIG_H
#define STREAMLIFE_TOOL_CHECK_PROJECTCONFIG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace streamlife::check {

/// Validates every .clang-tidy that applies to Files. One error per broken
/// file ("PATH:LINE:COL: invalid configuration: ..."), joined.
llvm::Error validateProjectConfigs(llvm::ArrayRef<std::string> Files);

} // namespace streamlife::check

#endif
