//===- CheckRunner.h - run the streamlife checks in-process ----*- C++ -*-===//
//
// Runs clang-tidy's engine (clang::tidy::runClangTidy) with exactly the
// streamlife-* checks, i.e. the same checks the plugin adds to clang-tidy:
// only our module is linked into this executable, and the check filter is
// pinned to 'streamlife-*'. A .clang-tidy file next to the sources still
// supplies CheckOptions and can switch individual streamlife checks off, as
// with the plugin (CLANG_NO_DEFAULT_CONFIG=1 ignores such files).
//
// Each file is run on its own so that compiler errors belong to the file that
// was being parsed, whichever header they point into.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_CHECKRUNNER_H
#define STREAMLIFE_TOOL_CHECK_CHECKRUNNER_H

#include "Finding.h"

#include "clang/Tooling/CompilationDatabase.h"

namespace streamlife::check {

/// Checks \p Files (absolute paths, each with a command in \p Database).
CheckReport runChecks(const clang::tooling::CompilationDatabase &Database,
                      llvm::ArrayRef<std::string> Files);

} // namespace streamlife::check

#endif
