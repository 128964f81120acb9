//===- RetiredConfigKeys.h - .clang-tidy keys clang-tidy no longer knows -*- C++ -*-===//
//
// A project's .clang-tidy is written for the clang-tidy the project pins, and
// keys that an older clang-tidy knew are errors to clang-tidy 22's parser:
// RMM's `AnalyzeTemporaryDtors` (deprecated in clang-tidy 16, removed in 18)
// made every file below it an input error, so a widely used library could not
// be checked without editing its configuration. Such a key sets nothing that
// streamlife reads, so it is dropped with a warning before the file is parsed,
// both where the file is validated and where its options are read. Any other
// unknown key stays an error (a typo must not silently drop the project's
// settings: ProjectConfig.h).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_RETIREDCONFIGKEYS_H
#define STREAMLIFE_TOOL_CHECK_RETIREDCONFIGKEYS_H

#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace streamlife::check {

/// A retired key found in a configuration's text.
struct RetiredKeyUse {
  std::string Key;
  unsigned Line = 0;             // 1-based
  llvm::StringRef RemovedIn;     // the clang-tidy release that removed it
};

/// Text with every top-level entry of a retired key removed (the key's line
/// and the indented lines of its value), the other lines kept in place so
/// that line numbers in later diagnostics still match the file. Only the
/// block (YAML) form is rewritten; a retired key in flow form (`{...}`) is
/// left for the parser to report.
std::string withoutRetiredKeys(llvm::StringRef Text, std::vector<RetiredKeyUse> *Found = nullptr);

/// The one-line warning for a retired key of ConfigPath.
std::string retiredKeyWarning(llvm::StringRef ConfigPath, const RetiredKeyUse &Use);

/// clang-tidy's FileOptionsProvider (the .clang-tidy of a file's folder and
/// its parents), reading each file without its retired keys.
std::unique_ptr<clang::tidy::FileOptionsProvider>
makeRetiredKeyTolerantProvider(clang::tidy::ClangTidyOptions Defaults,
                               clang::tidy::ClangTidyOptions Overrides);

} // namespace streamlife::check

#endif
