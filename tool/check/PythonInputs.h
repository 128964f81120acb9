//===- PythonInputs.h - which inputs are Python ----------------*- C++ -*-===//
//
// `streamlife check` takes Python files and directories next to C++ files:
// this splits the command line's FILES into the Python files to check (a
// directory is searched recursively for *.py, in sorted order; files and
// directories whose absolute path matches --exclude are skipped, and with
// --files only matching paths are kept) and the rest, which go to the
// compile database as before. A directory search takes regular *.py files
// (links to them too) and does not descend into symbolic links to
// directories; a folder it cannot read is an error.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_PYTHONINPUTS_H
#define STREAMLIFE_TOOL_CHECK_PYTHONINPUTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace streamlife::check {

struct SplitInputs {
  /// Absolute paths of the Python files, without duplicates.
  std::vector<std::string> PythonFiles;
  /// Every other FILES argument, unchanged and in order.
  std::vector<std::string> OtherFiles;
};

bool isPythonSource(llvm::StringRef Path);

/// \returns the split, or errors (one line each) for a missing .py file and
/// for a directory that cannot be read or holds no Python file (one that
/// --exclude emptied is not an error here). Other missing files are left to
/// the compile-database loader's error.
llvm::Expected<SplitInputs> splitPythonInputs(llvm::ArrayRef<std::string> Files,
                                              const std::optional<std::string> &FilesRegex,
                                              const std::optional<std::string> &ExcludeRegex);

} // namespace streamlife::check

#endif
