//===- CompileCommandAdjuster.h - make commands parseable by clang -*- C++ -*-===//
//
// Rewrites each compile command before clang parses it:
//  - commands recorded for nvcc (CMake's CUDA language with nvcc writes them
//    into compile_commands.json) are translated to a clang command
//    (NvccCommandTranslator.h): clang's driver rejects nvcc-only flags such
//    as -gencode, -rdc or -Xcompiler, which is why projects like nv-legate
//    skip .cu files in clang-tidy altogether;
//  - CUDA sources (.cu, .cuh, or `-x cuda`) are parsed host-side: `-x cuda
//    --cuda-host-only -nocudalib --cuda-path=DIR`, each unless the command
//    already says it, and CCCL's include directory as nvcc adds it;
//  - clang's resource directory (builtin and CUDA wrapper headers) is pinned,
//    because LibTooling would otherwise look for it next to this executable;
//  - the user's extra arguments (after `--` together with -p) are appended.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_COMPILECOMMANDADJUSTER_H
#define STREAMLIFE_TOOL_CHECK_COMPILECOMMANDADJUSTER_H

#include "clang/Tooling/ArgumentsAdjusters.h"

#include <string>
#include <vector>

namespace streamlife::check {

struct CompileCommandSettings {
  std::string CudaPath;
  std::string ClangResourceDir;
  std::vector<std::string> ExtraArgs;
};

/// Rewrites nvcc commands as clang commands (NvccCommandTranslator.h); other
/// commands pass unchanged. Applied first: a command interpolated for a file
/// missing from the database is built from the translated one.
clang::tooling::ArgumentsAdjuster makeNvccTranslationAdjuster();

/// The adjuster applying every other rewrite described at the top of this
/// file, to clang commands (translated ones included).
clang::tooling::ArgumentsAdjuster
makeCompileCommandAdjuster(CompileCommandSettings Settings);

} // namespace streamlife::check

#endif
