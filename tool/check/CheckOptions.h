//===- CheckOptions.h - `streamlife check` command line --------*- C++ -*-===//
//
// Parses the arguments of `streamlife check` into CheckOptions.
//
// A small hand parser rather than llvm::cl: llvm::cl keeps one process-wide
// option registry, and the libLLVM/libclang-cpp shared libraries this tool
// links register hundreds of their own options in it (e.g. -debug-pass,
// -print-after-all). llvm::cl would accept those as `streamlife check` options
// and its failures print several lines, whereas every bad argument here must be
// one clear line and exit status 2. The table of options lives in one place
// (CheckOptions.cpp) and generates the --help text, the man page and the
// shell completions too (tool/cli/).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_CHECKOPTIONS_H
#define STREAMLIFE_TOOL_CHECK_CHECKOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace streamlife::check {

enum class OutputFormat { Text, Json, Sarif };

/// --color: auto colours a stream that is a terminal, unless NO_COLOR is set.
enum class ColorMode { Auto, Always, Never };

struct CheckOptions {
  std::optional<std::string> BuildDir; ///< -p: where compile_commands.json is
  OutputFormat Format = OutputFormat::Text;
  std::optional<std::string> OutputFile; ///< --output; stdout when absent
  std::string CudaPath;                  ///< --cuda-path
  std::optional<std::string> SourceRoot; ///< --root (--source-root): SARIF %SRCROOT%
  std::vector<std::string> Files;
  /// -j: files checked at once; 0 means one per core.
  unsigned Jobs = 0;
  /// --files / --exclude: extended regular expressions (llvm::Regex) searched
  /// in each candidate file's absolute path; only files matching --files (when
  /// given) and not matching --exclude are checked. Already validated.
  std::optional<std::string> FilesRegex;
  std::optional<std::string> ExcludeRegex;
  /// --baseline: a SARIF or JSON report of an earlier run.
  std::optional<std::string> BaselineFile;
  /// --quiet: no progress on standard error.
  bool Quiet = false;
  /// --fix: apply the findings' fix-its to the files.
  bool Fix = false;
  /// --wait-before-free: Python releases are judged at the release, not at
  /// the next allocation that could reuse the block.
  bool WaitBeforeFree = false;
  /// Arguments after `--`: the whole compile command without -p, extra
  /// arguments appended to each database command with -p.
  std::vector<std::string> CompilerArgs;
  bool SawDoubleDash = false;
  ColorMode Color = ColorMode::Auto;
  bool ShowHelp = false;
  bool ShowVersion = false;
};

/// Parses \p Args (the arguments after "check"). The error message is one
/// line, without the "streamlife: error: " prefix.
llvm::Expected<CheckOptions> parseCheckOptions(llvm::ArrayRef<const char *> Args,
                                               llvm::StringRef DefaultCudaPath);

/// The --help text.
std::string checkUsage();

} // namespace streamlife::check

#endif
