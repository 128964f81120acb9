//===- Finding.h - what one `streamlife check` run found -------*- C++ -*-===//
//
// The report model shared by the runner and the formatters. The runner turns
// clang-tidy's byte offsets into lines and columns once, and keeps the text of
// each location's source line, so that no formatter touches the file system
// (the text formatter prints it under a caret, the SARIF formatter hashes it
// into a fingerprint).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_FINDING_H
#define STREAMLIFE_TOOL_CHECK_FINDING_H

#include <string>
#include <vector>

namespace streamlife::check {

/// A point in a source file; Line and Column are 1-based, Column counts bytes
/// (as clang does). A location with an empty Path has no position, e.g. a
/// driver error about a command-line argument.
struct SourceLocationInfo {
  std::string Path; ///< absolute, native separators
  unsigned Line = 0;
  unsigned Column = 0;
  /// The source line without its newline. A long line is clipped to a window
  /// around the column (SourceFileCache::MaxSnippetBytes): every finding and
  /// note prints its line, so one 159 KB line with 1,000 findings was 952 MB
  /// of text and 637 MB of SARIF.
  std::string LineText;
  unsigned LineTextStart = 0;     ///< byte offset of LineText in the line
  bool LineTextClippedEnd = false; ///< the line goes on after LineText
  unsigned Utf16Column = 0;       ///< Column in UTF-16 code units (SARIF), 1-based

  bool hasPosition() const { return !Path.empty() && Line != 0; }
};

/// A note attached to a diagnostic: one step of the story (where the buffer
/// was allocated, the unordered use, the stale event...).
struct DiagnosticNote {
  std::string Message;
  SourceLocationInfo Location;
};

enum class Severity { Warning, Error };

/// One replacement of a fix-it: Length bytes at Offset in Path become
/// Replacement (clang::tooling::Replacement without the SourceManager).
struct TextEdit {
  std::string Path; ///< absolute
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Replacement;
};

/// Where a finding stands against a --baseline report (SARIF's
/// result.baselineState): NotCompared when no baseline was given.
enum class BaselineState { NotCompared, New, Unchanged, Absent };

/// One diagnostic: a finding of a streamlife check, or a compiler error.
struct Diagnostic {
  std::string CheckName; ///< "streamlife-free-before-wait", "clang-diagnostic-error"
  Severity Level = Severity::Warning;
  std::string Message;
  SourceLocationInfo Location;
  std::vector<DiagnosticNote> Notes;
  /// The check's fix-it, when it attached one (all edits belong together).
  std::vector<TextEdit> Fix;
  /// Identity of a finding across runs and edits (Fingerprint.h); set for
  /// findings before the report is written.
  std::string Fingerprint;
  BaselineState State = BaselineState::NotCompared;
};

/// Everything known about one checked file.
struct FileResult {
  std::string Path;                    ///< as given on the command line
  std::vector<Diagnostic> Findings;    ///< warnings of the streamlife checks
  std::vector<Diagnostic> CompileErrors; ///< the compiler's own errors
  /// Why the file could not be checked at all, when not for compile errors
  /// ("no such file", "the checker crashed (signal 11)", a Python
  /// syntax error: "line 3: invalid syntax"); empty otherwise.
  std::string Failure;
  /// Input errors met while checking it, each a whole line after
  /// "streamlife: error: " (see CheckReport::ConfigurationErrors): bad
  /// .clang-tidy options, an unmatched NOLINTBEGIN/NOLINTEND.
  std::vector<std::string> ConfigurationErrors;
  double Seconds = 0; ///< wall time of its check
  bool parsedCleanly() const { return CompileErrors.empty() && Failure.empty(); }
};

/// The outcome of a whole run, in command-line order of the files.
struct CheckReport {
  std::vector<FileResult> Files;
  /// Names of every enabled check, sorted: the SARIF rules table lists them
  /// all, so that rule indices stay the same whatever was found.
  std::vector<std::string> EnabledChecks;
  /// Bad options in a .clang-tidy (an invalid CheckOptions entry, as
  /// ".clang-tidy: MESSAGE") and malformed NOLINT blocks ("FILE:L:C:
  /// MESSAGE"): input errors (exit status 2), not findings. Each distinct
  /// line once.
  std::vector<std::string> ConfigurationErrors;

  /// With --baseline: the baseline's findings that this run no longer
  /// reports (SARIF lists them with baselineState "absent").
  std::vector<Diagnostic> AbsentFindings;
  /// With --baseline: its unmatched findings in files this run did not check
  /// (neither new nor gone: not looked at).
  unsigned BaselineFindingsNotChecked = 0;
  bool ComparedToBaseline = false;

  /// Findings to report: all of them, or with a baseline the new ones.
  unsigned findingCount() const {
    unsigned N = 0;
    for (const FileResult &F : Files)
      for (const Diagnostic &D : F.Findings)
        N += D.State != BaselineState::Unchanged;
    return N;
  }
};

} // namespace streamlife::check

#endif
