//===- FileFilter.h - --files / --exclude -----------------------*- C++ -*-===//
//
// Which candidate files a run checks: those whose absolute path matches the
// --files regular expression (all, when it is not given) and does not match
// --exclude. The expressions are POSIX extended regular expressions
// (llvm::Regex) searched anywhere in the path, as run-clang-tidy's file
// filter does, so `--exclude /third_party/` and `--files '\.cu$'` read
// naturally. Shared by the compile-database loader and by directory
// arguments, which apply the same test to each file they find.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_FILEFILTER_H
#define STREAMLIFE_TOOL_CHECK_FILEFILTER_H

#include "CheckOptions.h"

#include "llvm/Support/Regex.h"

#include <optional>

namespace streamlife::check {

class FileFilter {
public:
  /// The expressions were validated when the options were parsed.
  explicit FileFilter(const CheckOptions &Options);

  bool accepts(llvm::StringRef AbsolutePath) const;

private:
  std::optional<llvm::Regex> Include;
  std::optional<llvm::Regex> Exclude;
};

} // namespace streamlife::check

#endif
