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
// was being parsed, whichever header they point into. Running several files
// at once is ParallelRunner's job; this file checks one.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_CHECKRUNNER_H
#define STREAMLIFE_TOOL_CHECK_CHECKRUNNER_H

#include "Finding.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace streamlife::check {

/// FileResult::Failure of a file that is a directory.
inline constexpr llvm::StringLiteral NotASourceFile = "is a directory, not a source file";

/// Checks \p File (an absolute path with a command in \p Database). Not
/// thread-safe (see ParallelRunner.cpp): one call at a time per process.
FileResult checkFile(const clang::tooling::CompilationDatabase &Database,
                     const std::string &File);

/// Runs Check (which checks File) on a thread with a 64 MB stack, with
/// out-of-memory said in one line naming File (exit 2) and File named in a
/// crash's stack dump. Input-sized recursion (clang's parser, the Python
/// lowering) needs the stack; the process's 8 MB main stack overflowed.
void runOnCheckThread(const std::string &File, llvm::function_ref<void()> Check);

/// Names of every check the options enable, sorted.
std::vector<std::string> enabledChecks();

} // namespace streamlife::check

#endif
