//===- NvccCommandTranslator.h - an nvcc command as clang reads it -*- C++ -*-===//
//
// CMake's CUDA language with nvcc writes nvcc command lines into
// compile_commands.json; clang's driver rejects nvcc's own options (-gencode,
// -rdc=true, -Xcompiler=..., --default-stream per-thread, ...). This reads
// the command with nvcc's option table (NvccOptionTable.h) and writes the
// clang command that parses the same translation unit host-side: only what
// changes the host-side parse is kept (macros, include paths, forced includes,
// the language and its standard, relocatable device code, per-thread default
// streams, host compiler flags that matter to a parse); every other option is
// dropped with its value.
//
// An option the table does not know is what nvcc does with it: with
// -forward-unknown-to-host-compiler (CMake always adds it) a host compiler
// flag, kept when it matters to the parse; otherwise an option of another
// nvcc release, dropped and reported (UnknownOptions). Either way an argument
// after it that is not an input file is taken as its value, never as an input.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_NVCCCOMMANDTRANSLATOR_H
#define STREAMLIFE_TOOL_CHECK_NVCCCOMMANDTRANSLATOR_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace streamlife::check {

/// True when \p Compiler (argv[0] of a recorded command) is nvcc.
bool isNvccCommand(llvm::StringRef Compiler);

struct NvccTranslation {
  /// "clang++" and the arguments that matter to a host-side parse, inputs
  /// in their place.
  clang::tooling::CommandLineArguments Arguments;
  /// Options neither nvcc's table nor the host compiler forwarding explains,
  /// as written (dropped from Arguments).
  std::vector<std::string> UnknownOptions;
};

/// Translates an nvcc command line (argv[0] included).
NvccTranslation translateNvccCommand(const clang::tooling::CommandLineArguments &NvccArgs);

/// One warning line per unknown option (each with how many commands had it).
void warnUnknownNvccOptions(llvm::ArrayRef<std::pair<std::string, size_t>> Options,
                            llvm::raw_ostream &OS);

} // namespace streamlife::check

#endif
