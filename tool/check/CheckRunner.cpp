//===- CheckRunner.cpp - run the streamlife checks in-process -------------===//
#include "CheckRunner.h"

#include "ReportFormatters.h"
#include "RetiredConfigKeys.h"
#include "SourceFileCache.h"
#include "ToolingNoiseFilter.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/thread.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

namespace streamlife::check {
namespace {

using clang::tidy::ClangTidyError;
using clang::tidy::ClangTidyOptions;

/// 'streamlife-*' only. The static analyzer's clang-analyzer-* checks live
/// inside libclangTidy itself, so a user's `Checks: '*'` must not reach them;
/// and a project's own `.clang-tidy` (`Checks: '-*,bugprone-*'`, in any parent
/// folder) must not switch the streamlife checks off, or `streamlife check`
/// would pass silently. The override is appended after the file's own Checks
/// and so wins; the file may still set the checks' options, and NOLINT works.
constexpr llvm::StringLiteral DefaultChecks = "-*,streamlife-*";
constexpr llvm::StringLiteral ForcedChecks = "-clang-analyzer-*,-clang-diagnostic-*,streamlife-*";

/// Diagnostics about the configuration (a bad CheckOptions value): input
/// errors, never findings.
bool isConfigurationDiagnostic(const ClangTidyError &Error) {
  return Error.DiagnosticName == "clang-tidy-config";
}

/// An unmatched NOLINTBEGIN/NOLINTEND. clang-tidy reports it as an error
/// that counts like a finding (and exits 1 under -warnings-as-errors only);
/// here it is an input error, like a bad option: one line, exit status 2,
/// and it does not count as a finding. The suppression it meant to make is
/// not applied (clang-tidy's rule), so the warnings inside are reported.
bool isSuppressionDiagnostic(const ClangTidyError &Error) {
  return Error.DiagnosticName == "clang-tidy-nolint";
}

std::unique_ptr<clang::tidy::ClangTidyOptionsProvider> makeOptionsProvider() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = DefaultChecks.str();
  // Findings in the project's own headers count (helpers defined inline in a
  // .cuh), system headers never do.
  Defaults.HeaderFilterRegex = ".*";
  Defaults.SystemHeaders = false;
  ClangTidyOptions Overrides;
  Overrides.Checks = ForcedChecks.str();
  // Same switch as clang-tidy's: tests must not pick up a stray .clang-tidy.
  if (llvm::sys::Process::GetEnv("CLANG_NO_DEFAULT_CONFIG"))
    return std::make_unique<clang::tidy::DefaultOptionsProvider>(
        clang::tidy::ClangTidyGlobalOptions(), Defaults.merge(Overrides, 0));
  return makeRetiredKeyTolerantProvider(std::move(Defaults), std::move(Overrides));
}

/// Every check of every linked module that the options enable, sorted.
std::vector<std::string> enabledCheckNames(clang::tidy::ClangTidyContext &Context) {
  clang::tidy::ClangTidyCheckFactories Factories;
  for (const auto &Module : clang::tidy::ClangTidyModuleRegistry::entries())
    Module.instantiate()->addCheckFactories(Factories);
  std::vector<std::string> Names;
  for (const auto &Factory : Factories)
    if (Context.isCheckEnabled(Factory.getKey()))
      Names.push_back(Factory.getKey().str());
  llvm::sort(Names);
  return Names;
}

/// clang-tidy reports paths as the compiler saw them, relative to the
/// command's working directory.
std::string resolvePath(llvm::StringRef Path, llvm::StringRef BuildDirectory) {
  if (Path.empty() || llvm::sys::path::is_absolute(Path))
    return Path.str();
  llvm::SmallString<256> Absolute(BuildDirectory);
  llvm::sys::path::append(Absolute, Path);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

SourceLocationInfo locate(SourceFileCache &Sources,
                          const clang::tooling::DiagnosticMessage &Message,
                          llvm::StringRef BuildDirectory) {
  SourceLocationInfo Location;
  Location.Path = resolvePath(Message.FilePath, BuildDirectory);
  if (!Location.Path.empty())
    Sources.resolve(Location.Path, Message.FileOffset, Location);
  return Location;
}

Diagnostic convert(SourceFileCache &Sources, const ClangTidyError &Error) {
  Diagnostic Result;
  Result.CheckName = Error.DiagnosticName;
  Result.Level = Error.DiagLevel == ClangTidyError::Error || Error.IsWarningAsError
                     ? Severity::Error
                     : Severity::Warning;
  Result.Message = Error.Message.Message;
  Result.Location = locate(Sources, Error.Message, Error.BuildDirectory);
  for (const clang::tooling::DiagnosticMessage &Note : Error.Notes)
    Result.Notes.push_back({Note.Message, locate(Sources, Note, Error.BuildDirectory)});
  for (const auto &Entry : Error.Message.Fix)
    for (const clang::tooling::Replacement &R : Entry.getValue())
      Result.Fix.push_back({resolvePath(R.getFilePath(), Error.BuildDirectory), R.getOffset(),
                            R.getLength(), R.getReplacementText().str()});
  return Result;
}

bool isCompilerDiagnostic(const ClangTidyError &Error) {
  return llvm::StringRef(Error.DiagnosticName).starts_with("clang-diagnostic-");
}

/// The file being checked, for the out-of-memory line (no allocation there).
char CurrentFile[1024];

/// The stack of the thread that parses and checks a file: 8x the usual 8 MB
/// (address space is reserved, memory only used as deep input needs it).
constexpr unsigned CheckThreadStackBytes = 64u << 20;

/// Pathological input (tens of thousands of branches on one buffer) can
/// exhaust memory; say so in one line naming the file, with the error exit
/// status, instead of "LLVM ERROR: out of memory" and an abort (134).
[[noreturn]] void outOfMemory() {
  restoreCapturedStandardError();
  static const char Prefix[] = "streamlife: error: out of memory while checking '";
  static const char Suffix[] = "'\n";
  ssize_t Ignored = write(2, Prefix, sizeof(Prefix) - 1);
  Ignored = write(2, CurrentFile, strnlen(CurrentFile, sizeof(CurrentFile)));
  Ignored = write(2, Suffix, sizeof(Suffix) - 1);
  (void)Ignored;
  _exit(2);
}

/// LLVM's own allocations (SmallVector growth, safe_malloc) report failure
/// here rather than through operator new.
void llvmOutOfMemory(void *, const char *, bool) { outOfMemory(); }

bool byPosition(const Diagnostic &A, const Diagnostic &B) {
  return std::tie(A.Location.Path, A.Location.Line, A.Location.Column, A.CheckName) <
         std::tie(B.Location.Path, B.Location.Line, B.Location.Column, B.CheckName);
}

} // namespace

void runOnCheckThread(const std::string &File, llvm::function_ref<void()> Check) {
  std::snprintf(CurrentFile, sizeof(CurrentFile), "%s", File.c_str());
  std::new_handler PreviousHandler = std::set_new_handler(outOfMemory);
  llvm::install_bad_alloc_error_handler(llvmOutOfMemory);
  // On a thread with a larger stack than the process's 8 MB: clang's parser
  // and Sema recurse once per nesting level of the source (a chain of 10,000
  // `else if`s overflows clang++-22's own stack, exit 139), and so does the
  // Python front end's lowering (30,000 nested brackets, 139), while the
  // analysis does not recurse with the input size (checks/core/Analysis.h).
  // clang-tidy runs on the main thread and crashes there too.
  llvm::thread Worker(std::optional<unsigned>(CheckThreadStackBytes), [&] {
    // Names the file in the stack dump should a check crash on it (the
    // context is per thread).
    llvm::PrettyStackTraceFormat CrashContext("streamlife check: while checking '%s'",
                                              File.c_str());
    Check();
  });
  Worker.join();
  llvm::remove_bad_alloc_error_handler();
  std::set_new_handler(PreviousHandler);
}

std::vector<std::string> enabledChecks() {
  clang::tidy::ClangTidyContext Context(makeOptionsProvider());
  return enabledCheckNames(Context);
}

FileResult checkFile(const clang::tooling::CompilationDatabase &Database,
                     const std::string &File) {
  clang::tidy::ClangTidyContext Context(makeOptionsProvider());
  SourceFileCache Sources;
  FileResult Result;
  Result.Path = File;
  // A database entry whose file is gone, or is a directory: clang would say
  // so too, in several lines and (for a directory) in its driver's words,
  // "expected exactly one compiler job"; this is one line naming the cause.
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(File, Status)) {
    Result.Failure = EC == std::errc::too_many_symbolic_link_levels ? "symbolic link loop"
                     : EC == std::errc::no_such_file_or_directory   ? "no such file"
                                                                    : EC.message();
    return Result;
  }
  if (Status.type() == llvm::sys::fs::file_type::directory_file) {
    Result.Failure = NotASourceFile.str();
    return Result;
  }
  std::vector<ClangTidyError> Errors;
  {
    // clang tooling's "Error while processing" lines are dropped.
    ToolingNoiseFilter QuietTooling;
    runOnCheckThread(File, [&] {
      Errors = clang::tidy::runClangTidy(
          Context, Database, {File},
          llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem()),
          /*ApplyAnyFix=*/false, /*EnableCheckProfile=*/false,
          /*StoreCheckProfile=*/"", /*Quiet=*/true);
    });
  }
  // clang-tidy raises the NOLINT error while it handles the warning inside
  // the block, and the warning's notes then attach to that error (inherited,
  // reliability sweep #93): they go back to the finding that follows.
  decltype(ClangTidyError::Notes) StrayNotes;
  auto addInputError = [&](std::string Line) {
    if (!llvm::is_contained(Result.ConfigurationErrors, Line))
      Result.ConfigurationErrors.push_back(std::move(Line));
  };
  for (const ClangTidyError &Error : Errors) {
    if (isConfigurationDiagnostic(Error)) {
      addInputError(".clang-tidy: " + Error.Message.Message);
      continue;
    }
    if (isSuppressionDiagnostic(Error)) {
      Diagnostic Where = convert(Sources, Error);
      addInputError(displayPath(Where.Location.Path) + ":" +
                    std::to_string(Where.Location.Line) + ":" +
                    std::to_string(Where.Location.Column) + ": " + Where.Message);
      StrayNotes.append(Error.Notes.begin(), Error.Notes.end());
      continue;
    }
    if (!StrayNotes.empty() && Error.Notes.empty() && !isCompilerDiagnostic(Error)) {
      ClangTidyError WithNotes = Error;
      WithNotes.Notes = std::move(StrayNotes);
      StrayNotes.clear();
      // Taken as notes of another diagnostic, they carry this check's name.
      std::string Suffix = " [" + Error.DiagnosticName + "]";
      for (clang::tooling::DiagnosticMessage &Note : WithNotes.Notes)
        if (llvm::StringRef(Note.Message).ends_with(Suffix))
          Note.Message.resize(Note.Message.size() - Suffix.size());
      Result.Findings.push_back(convert(Sources, WithNotes));
      continue;
    }
    if (isCompilerDiagnostic(Error)) {
      // Compiler warnings are filtered out by the check filter; errors
      // always come through and mean the AST is incomplete.
      if (Error.DiagLevel == ClangTidyError::Error)
        Result.CompileErrors.push_back(convert(Sources, Error));
      continue;
    }
    Result.Findings.push_back(convert(Sources, Error));
  }
  // Findings stay beside the compile errors, as clang-tidy reports them: the
  // checks analyse only the functions that parse (a function whose body has
  // an error is skipped by the checks), so one missing include elsewhere in
  // the file does not hide them.
  llvm::stable_sort(Result.Findings, byPosition);
  return Result;
}

} // namespace streamlife::check
