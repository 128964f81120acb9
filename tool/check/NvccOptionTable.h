//===- NvccOptionTable.h - the options nvcc knows, with their values -*- C++ -*-===//
//
// How nvcc splits a command line into options, their values and inputs: one
// row per option of CUDA 13.0's `nvcc --help` (NvccOptionTable.def, generated
// by scripts/gen-nvcc-option-table.py, never edited by hand), plus the few
// options nvcc accepts without listing them. A value is never mistaken for an
// input file: `--default-stream per-thread`, `--diag-suppress 177` and
// `-Werror all-warnings` take theirs from the next argument, as nvcc does.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_NVCCOPTIONTABLE_H
#define STREAMLIFE_TOOL_CHECK_NVCCOPTIONTABLE_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace streamlife::check {

/// One row of nvcc's option table.
struct NvccOption {
  llvm::StringRef LongName;  ///< "--default-stream"
  llvm::StringRef ShortName; ///< "-default-stream"; empty when it has none
  bool TakesValue;           ///< `--opt value` or `--opt=value`
  bool JoinsValue;           ///< the short name also takes it joined: -O3
  llvm::StringRef ValueForm; ///< "{legacy|null|per-thread}", as --help says
};

/// The release whose `nvcc --help` the table was generated from ("13.0").
llvm::StringRef nvccOptionTableRelease();

/// One option of an nvcc command line as nvcc reads it: the row it matched,
/// its value (empty for a flag), and how many arguments it took (2 when the
/// value was the next argument).
struct NvccArgument {
  const NvccOption *Option = nullptr;
  std::string Value;
  unsigned ArgumentsUsed = 1;
};

/// Reads the option at \p Args[Index] (which starts with '-'): `--name`,
/// `--name=value`, `--name value`, the same with the short name, and a short
/// single-letter name with its value joined (`-DX`, `-O3`). \returns nullopt
/// for an option nvcc does not know.
std::optional<NvccArgument>
readNvccOption(const clang::tooling::CommandLineArguments &Args, size_t Index);

} // namespace streamlife::check

#endif
