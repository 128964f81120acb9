//===- CompileCommandAdjuster.h - make commands parseable by clang -*- C++ -*-===//
//
// Rewrites each compile command before clang parses it:
//  - commands recorded for nvcc (CMake's CUDA language with nvcc writes them
//    into compile_commands.json) are translated to a clang command: clang's
//    driver rejects nvcc-only flags such as -gencode, --generate-code, -rdc,
//    --expt-relaxed-constexpr or -Xcompiler, which is why projects like
//    nv-legate skip .cu files in clang-tidy altogether. Only what changes the
//    host-side parse is kept: macros, include paths, the language standard,
//    forced includes;
//  - .cu (and .cuh) files get `-x cuda --cuda-host-only -nocudalib
//    --cuda-path=DIR` unless the command already selects a CUDA mode, and
//    CCCL's include directory as nvcc adds it;
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

/// True when \p Compiler (argv[0] of a recorded command) is nvcc.
bool isNvccCommand(llvm::StringRef Compiler);

/// Translates an nvcc command line (argv[0] included) into a clang one that
/// parses the same translation unit host-side.
clang::tooling::CommandLineArguments
translateNvccCommand(const clang::tooling::CommandLineArguments &NvccArgs);

/// The adjuster applying every rewrite described at the top of this file.
clang::tooling::ArgumentsAdjuster
makeCompileCommandAdjuster(CompileCommandSettings Settings);

} // namespace streamlife::check

#endif
