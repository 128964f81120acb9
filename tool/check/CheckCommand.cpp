//===- CheckCommand.cpp - `streamlife check` ------------------------------===//
//
// The command: parse options, open the output, load and validate the compile
// database, run the checks, write the report, and map the outcome to the exit
// status of tool/Commands.h. Every input error is one line on stderr
// ("streamlife: error: ...") and exit status 2; when some files do not compile,
// the findings of the others are still written, and the status is still 2.
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"

#include "CheckOptions.h"
#include "CheckRunner.h"
#include "Baseline.h"
#include "CompilationDatabaseLoader.h"
#include "Fingerprint.h"
#include "FixApplier.h"
#include "NvccCommandTranslator.h"
#include "ParallelRunner.h"
#include "ProgressReporter.h"
#include "ProjectConfig.h"
#include "PythonInputs.h"
#include "PythonRunner.h"
#include "ReportFormatters.h"
#include "ReportOutput.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstdlib>
#include <optional>
#include <vector>

#ifndef STREAMLIFE_VERSION
#define STREAMLIFE_VERSION "0"
#endif
#ifndef STREAMLIFE_DEFAULT_CUDA_PATH
#define STREAMLIFE_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif
#ifndef STREAMLIFE_CLANG_RESOURCE_DIR
#define STREAMLIFE_CLANG_RESOURCE_DIR ""
#endif

namespace streamlife {
namespace {

int inputError(const llvm::Twine &Message) {
  llvm::errs() << "streamlife: error: " << Message << '\n';
  return ExitUsage;
}

/// The project's .clang-tidy files that apply to Files: a broken one is an
/// input error (printed; false), a key clang-tidy retired a warning.
bool validateConfigs(check::ProjectConfigValidator &Configs, llvm::ArrayRef<std::string> Files) {
  llvm::Error Broken = Configs.validate(Files);
  for (const std::string &Warning : Configs.takeWarnings())
    llvm::errs() << "streamlife: warning: " << Warning << '\n';
  if (!Broken)
    return true;
  llvm::handleAllErrors(std::move(Broken),
                        [](const llvm::ErrorInfoBase &Error) { inputError(Error.message()); });
  return false;
}

std::string currentDirectory() {
  llvm::SmallString<256> Cwd;
  if (llvm::sys::fs::current_path(Cwd))
    return "/";
  return std::string(Cwd);
}

/// Where report paths start (--root): the git repository around the
/// current directory (a folder holding .git, a directory or a worktree's
/// file), else the current directory. A baseline written at the top of a
/// repository then matches a run started in its build folder.
std::string defaultRoot() {
  std::string Cwd = currentDirectory();
  for (llvm::StringRef Dir = Cwd; !Dir.empty(); Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Git(Dir);
    llvm::sys::path::append(Git, ".git");
    if (llvm::sys::fs::exists(Git))
      return Dir.str();
    if (Dir == llvm::sys::path::root_path(Dir))
      break;
  }
  return Cwd;
}

std::string normalizedAbsolute(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

/// The file -p names: BUILD_DIR/compile_commands.json, or the file itself.
std::string databaseFile(llvm::StringRef BuildDirOrFile) {
  llvm::SmallString<256> Path(BuildDirOrFile);
  if (llvm::sys::fs::is_directory(Path))
    llvm::sys::path::append(Path, "compile_commands.json");
  return std::string(Path);
}

/// What nvcc accepts and clang does not, recognised in compile errors: one
/// line per difference for the whole run, with its fix
/// (docs/troubleshooting.md has the longer story).
struct CompilerDifference {
  llvm::StringRef ErrorText; ///< a part of clang's error message
  llvm::StringRef What;
  llvm::StringRef Fix;
};
const CompilerDifference KnownDifferences[] = {
    {"no matching function for call to 'min'",
     "host code calls CUDA's min/max, which nvcc's headers declare for the host and clang's "
     "only for the device",
     "call std::min/std::max there"},
    {"no matching function for call to 'max'",
     "host code calls CUDA's min/max, which nvcc's headers declare for the host and clang's "
     "only for the device",
     "call std::min/std::max there"},
    {"'omp.h' file not found",
     "omp.h is not found: clang looks for its own OpenMP header, not gcc's",
     "install Debian's libomp-22-dev"},
};

void noteKnownCompilerDifferences(const check::CheckReport &Report) {
  for (size_t I = 0; I < std::size(KnownDifferences); ++I) {
    const CompilerDifference &Difference = KnownDifferences[I];
    // min and max share one line.
    if (I > 0 && KnownDifferences[I - 1].What == Difference.What)
      continue;
    size_t Files = 0;
    std::string First;
    for (const check::FileResult &File : Report.Files) {
      bool Hit = llvm::any_of(File.CompileErrors, [&](const check::Diagnostic &Error) {
        for (size_t J = I; J < std::size(KnownDifferences) &&
                           KnownDifferences[J].What == Difference.What;
             ++J)
          if (llvm::StringRef(Error.Message).contains(KnownDifferences[J].ErrorText))
            return true;
        return false;
      });
      if (!Hit)
        continue;
      if (Files++ == 0)
        First = check::displayPath(File.Path);
    }
    if (!Files)
      continue;
    llvm::errs() << "streamlife: note: " << First;
    if (Files > 1)
      llvm::errs() << " (and " << Files - 1 << " other file" << (Files == 2 ? "" : "s") << ")";
    llvm::errs() << ": " << Difference.What << "; fix: " << Difference.Fix
                 << " (docs/troubleshooting.md)\n";
  }
}

/// Compile errors go to stderr whatever the format: they are about the input,
/// not findings. One summary line per file, after the compiler's own lines.
unsigned reportCompileErrors(const check::CheckReport &Report,
                             const check::CheckOptions &Options) {
  unsigned BrokenFiles = 0;
  for (const check::FileResult &File : Report.Files) {
    if (File.parsedCleanly())
      continue;
    ++BrokenFiles;
    if (!File.Failure.empty()) {
      // A stale entry of a whole-database run names the database.
      std::string Origin;
      if (Options.BuildDir && Options.Files.empty() && File.CompileErrors.empty() &&
          (File.Failure == "no such file" || File.Failure == "symbolic link loop" ||
           File.Failure == check::NotASourceFile))
        Origin = " (listed in the compile database of '" + *Options.BuildDir + "')";
      llvm::errs() << "streamlife: error: " << check::displayPath(File.Path) << ": "
                   << File.Failure << Origin << "; no findings reported for it\n";
      continue;
    }
    for (const check::Diagnostic &Error : File.CompileErrors)
      check::writeTextDiagnostic(Error, llvm::errs());
    size_t N = File.CompileErrors.size();
    llvm::errs() << "streamlife: error: " << check::displayPath(File.Path) << ": " << N << " compile error"
                 << (N == 1 ? "" : "s")
                 << "; findings are reported for the functions without errors\n";
  }
  noteKnownCompilerDifferences(Report);
  return BrokenFiles;
}

/// --color: auto colours a terminal unless NO_COLOR is set (no-color.org)
/// or TERM says it cannot (has_colors()).
bool wantsColor(check::ColorMode Mode, llvm::raw_ostream &Stream) {
  switch (Mode) {
  case check::ColorMode::Always:
    return true;
  case check::ColorMode::Never:
    return false;
  case check::ColorMode::Auto: {
    const char *NoColor = std::getenv("NO_COLOR");
    return !(NoColor && *NoColor) && Stream.is_displayed() && Stream.has_colors();
  }
  }
  return false;
}

/// The closing count on standard error: every run ends with one (a clean run
/// too, so that a CI log shows what was checked), except a clean -q run,
/// which stays silent like a passing linter.
void reportClosingCount(const check::CheckReport &Report, unsigned BrokenFiles, bool Quiet) {
  unsigned Findings = Report.findingCount();
  if (Quiet && !Findings && !BrokenFiles)
    return;
  size_t Files = Report.Files.size();
  llvm::errs() << "streamlife: " << Findings << (Report.ComparedToBaseline ? " new" : "")
               << " finding" << (Findings == 1 ? "" : "s") << " in " << Files << " checked file"
               << (Files == 1 ? "" : "s");
  // A file that could not be checked at all has no findings; one with compile
  // errors has those of its functions that parse.
  size_t Failed = 0, WithErrors = 0;
  for (const check::FileResult &File : Report.Files) {
    Failed += !File.Failure.empty();
    WithErrors += File.Failure.empty() && !File.CompileErrors.empty();
  }
  if (Failed)
    llvm::errs() << ", " << Failed << " of which failed (no findings reported for "
                 << (Failed == 1 ? "it" : "them") << ", see above)";
  if (WithErrors)
    llvm::errs() << (Failed ? " and " : ", ") << WithErrors << " with compile errors (findings "
                 << "reported for the functions without errors, see above)";
  llvm::errs() << '\n';
}

/// Each file is parsed once, with its first compile command: say so when the
/// database has more (code under the others' flags is not checked).
void noteUnusedCommands(const check::LoadedDatabase &Database) {
  if (!Database.FilesWithSeveralCommands)
    return;
  std::string First = check::displayPath(Database.FirstFileWithSeveralCommands);
  llvm::errs() << "streamlife: note: ";
  if (Database.FilesWithSeveralCommands == 1)
    llvm::errs() << First << " has " << Database.UnusedCommands + 1
                 << " compile commands in the database; it is checked once, with the first";
  else
    llvm::errs() << Database.FilesWithSeveralCommands
                 << " files have several compile commands in the database (" << First
                 << " is the first); each is checked once, with its first, and "
                 << Database.UnusedCommands << " commands are not used";
  llvm::errs() << '\n';
}

/// Commands streamlife had to make up or cut: a file the database does not
/// list (its command interpolated from a neighbour, as clangd does), and nvcc
/// options its option table does not know (dropped), each said once.
void noteAdjustedCommands(const check::LoadedDatabase &Database) {
  for (const check::LoadedDatabase::Interpolation &Entry : Database.InterpolatedFiles)
    llvm::errs() << "streamlife: note: " << check::displayPath(Entry.File)
                 << " is not in the compile database; checked with the command of "
                 << check::displayPath(Entry.From) << " (interpolated, as clangd does)\n";
  check::warnUnknownNvccOptions(Database.UnknownNvccOptions, llvm::errs());
}

/// The termination signals this process was started with ignored: a job
/// started in the background by a non-interactive shell ignores SIGINT and
/// SIGQUIT, nohup ignores SIGHUP.
std::vector<int> ignoredTerminationSignals() {
  std::vector<int> Ignored;
  for (int Signal : {SIGHUP, SIGINT, SIGTERM, SIGUSR2}) {
    struct sigaction Action;
    if (sigaction(Signal, nullptr, &Action) == 0 && Action.sa_handler == SIG_IGN)
      Ignored.push_back(Signal);
  }
  return Ignored;
}

} // namespace

int runCheckCommand(int Argc, const char **Argv) {
  // LLVM's handlers (for the stack dump, and to remove the -o temporary on
  // an interrupt) replace the caller's SIG_IGN: such a signal then removed
  // the temporary, and, re-raised into SIG_IGN, let the run go on to fail at
  // the end. What the caller ignores stays ignored.
  std::vector<int> Ignored = ignoredTerminationSignals();
  // A crash in a check must say so, with a stack, not die silently.
  llvm::sys::PrintStackTraceOnErrorSignal("streamlife");
  for (int Signal : Ignored)
    std::signal(Signal, SIG_IGN);
  // Argv[0] is "check"; its options follow.
  llvm::Expected<check::CheckOptions> Parsed = check::parseCheckOptions(
      llvm::ArrayRef(Argv + 1, Argv + Argc), STREAMLIFE_DEFAULT_CUDA_PATH);
  if (!Parsed)
    return inputError(llvm::toString(Parsed.takeError()));
  const check::CheckOptions &Options = *Parsed;
  if (Options.ShowHelp || Options.ShowVersion) {
    llvm::outs() << (Options.ShowHelp ? check::checkUsage()
                                      : std::string("streamlife check " STREAMLIFE_VERSION "\n"));
    if (std::string Error; !check::standardOutputIsHealthy(Error))
      return inputError(Error);
    return ExitClean;
  }
  // Run from a deleted folder, clang's virtual file system aborts with a
  // bogus "out of memory" (clang-tidy does the same): say what is wrong.
  if (llvm::SmallString<256> Cwd; llvm::sys::fs::current_path(Cwd))
    return inputError("the current directory no longer exists (cd to an existing one)");

  // Check the output and create its temporary first: an unwritable --output
  // should fail before a long analysis, not after it. The target itself is
  // only replaced once the whole report is written (ReportOutput.h).
  check::ReportOutput Output;
  if (std::string Error; !Output.open(Options.OutputFile, Error))
    return inputError(Error);
  llvm::raw_ostream &Out = Output.stream();
  // Colour only the text report (JSON and SARIF are read by programs), and
  // compile errors on standard error, each by whether it goes to a terminal.
  Out.enable_colors(Options.Format == check::OutputFormat::Text &&
                    wantsColor(Options.Color, Out));
  llvm::errs().enable_colors(wantsColor(Options.Color, llvm::errs()));

  std::string SourceRoot =
      Options.SourceRoot ? normalizedAbsolute(*Options.SourceRoot) : defaultRoot();
  // Read the baseline before the analysis: a wrong path fails at once.
  std::optional<check::Baseline> Earlier;
  if (Options.BaselineFile) {
    llvm::Expected<check::Baseline> Loaded = check::loadBaseline(*Options.BaselineFile, SourceRoot);
    if (!Loaded)
      return inputError(llvm::toString(Loaded.takeError()));
    Earlier = std::move(*Loaded);
  }

  // Python files and directories go to the Python front end (directories
  // honour --files/--exclude like a compile database does); the rest to the
  // compile database.
  llvm::Expected<check::SplitInputs> PythonSplit =
      check::splitPythonInputs(Options.Files, Options.FilesRegex, Options.ExcludeRegex);
  if (!PythonSplit) {
    llvm::handleAllErrors(PythonSplit.takeError(), [](const llvm::ErrorInfoBase &Error) {
      inputError(Error.message());
    });
    return ExitUsage;
  }
  check::CheckOptions CxxOptions = Options;
  CxxOptions.Files = PythonSplit->OtherFiles;
  bool HasCxx =
      !CxxOptions.Files.empty() || (Options.BuildDir && PythonSplit->PythonFiles.empty());
  // Only Python inputs were named and the filters left none of them:
  // nothing would be checked, which must not look like a clean run.
  if (!HasCxx && PythonSplit->PythonFiles.empty())
    return inputError("no files to check: --files/--exclude left none of the named Python "
                      "files and directories");

  check::CheckReport Report;
  check::ProjectConfigValidator Configs;
  std::vector<std::string> Inputs = PythonSplit->PythonFiles;
  // --fix leaves a file that changes from here on (its offsets would be
  // stale).
  int64_t StartedNs = check::fixClockNow();
  if (HasCxx) {
    llvm::Expected<check::LoadedDatabase> Database =
        check::loadCompilationDatabase(CxxOptions, STREAMLIFE_CLANG_RESOURCE_DIR);
    if (!Database) {
      llvm::handleAllErrors(Database.takeError(), [](const llvm::ErrorInfoBase &Error) {
        inputError(Error.message());
      });
      return ExitUsage;
    }
    Inputs.insert(Inputs.end(), Database->Files.begin(), Database->Files.end());
    if (Options.BuildDir)
      Inputs.push_back(databaseFile(*Options.BuildDir));
    if (std::string Error; !Output.checkNotAnInput(Inputs, Error))
      return inputError(Error);
    if (!validateConfigs(Configs, Database->Files))
      return ExitUsage;
    noteUnusedCommands(*Database);
    noteAdjustedCommands(*Database);

    // Progress: on a terminal for any run over several files (the line is
    // rewritten in place and leaves nothing behind in a log); as plain lines
    // only for whole-database runs, where a CI log needs them. A list of FILES
    // outside a terminal stays as quiet as one file.
    bool Terminal = llvm::errs().is_displayed();
    bool WholeDatabase = Options.BuildDir && Options.Files.empty();
    check::ProgressReporter Progress(llvm::errs(), Database->Files.size(),
                                     !Options.Quiet && (Terminal || WholeDatabase), Terminal);
    check::ParallelSettings Parallel;
    Parallel.Jobs = Options.Jobs ? Options.Jobs : check::defaultJobCount();
    Parallel.OnFileDone = [&](const check::FileResult &File) { Progress.fileDone(File); };
    if (std::optional<std::string> Temporary = Output.temporaryPath())
      Parallel.ParentsFiles.push_back(*Temporary);
    Report = check::runChecksInParallel(*Database->Database, Database->Files, Parallel);
    Progress.finish();
  } else {
    if (std::string Error; !Output.checkNotAnInput(Inputs, Error))
      return inputError(Error);
    for (llvm::StringRef Name : check::pythonCheckNames())
      Report.EnabledChecks.push_back(Name.str());
  }
  // The Python files' settings first: a broken one is an input error
  // before anything is checked.
  std::vector<python::PyCheckOptions> PythonOptions;
  if (!PythonSplit->PythonFiles.empty()) {
    if (!validateConfigs(Configs, PythonSplit->PythonFiles))
      return ExitUsage;
    for (const std::string &File : PythonSplit->PythonFiles) {
      llvm::Expected<python::PyCheckOptions> FileOptions = check::pythonOptionsFor(File);
      if (!FileOptions) {
        std::string Message = llvm::toString(FileOptions.takeError());
        return inputError(Message);
      }
      // The command line's strictness adds to the project's.
      FileOptions->WaitBeforeFree |= Options.WaitBeforeFree;
      PythonOptions.push_back(std::move(*FileOptions));
    }
  }
  for (size_t I = 0; I < PythonSplit->PythonFiles.size(); ++I)
    Report.Files.push_back(check::checkPythonFile(PythonSplit->PythonFiles[I], PythonOptions[I]));
  check::assignFingerprints(Report, SourceRoot);
  if (Earlier) {
    // A whole-database run looks at every file (headers included); a run on
    // named files or through --files/--exclude only at those it checked.
    bool WholeRun = Options.BuildDir && Options.Files.empty() && !Options.FilesRegex &&
                    !Options.ExcludeRegex;
    llvm::StringSet<> CheckedFiles;
    for (const check::FileResult &File : Report.Files)
      CheckedFiles.insert(normalizedAbsolute(File.Path));
    check::compareWithBaseline(Report, *Earlier, [&](llvm::StringRef Path) {
      return WholeRun || CheckedFiles.contains(normalizedAbsolute(Path));
    });
  }

  switch (Options.Format) {
  case check::OutputFormat::Text:
    check::writeTextReport(Report, Out);
    break;
  case check::OutputFormat::Json:
    check::writeJsonReport(Report, STREAMLIFE_VERSION, Out);
    break;
  case check::OutputFormat::Sarif:
    check::writeSarifReport(Report, {STREAMLIFE_VERSION, SourceRoot}, Out);
    break;
  }
  if (std::string Error; !Output.finish(Error))
    return inputError(Error);

  unsigned BrokenFiles = reportCompileErrors(Report, Options);
  if (Options.Fix) {
    llvm::Expected<check::FixSummary> Fixed = check::applyFixes(Report, {Inputs, StartedNs});
    if (!Fixed)
      return inputError(llvm::toString(Fixed.takeError()));
    llvm::errs() << "streamlife: --fix: fixed " << Fixed->FixedFindings << " finding"
                 << (Fixed->FixedFindings == 1 ? "" : "s") << " in " << Fixed->FilesChanged
                 << " file" << (Fixed->FilesChanged == 1 ? "" : "s");
    if (Fixed->ConflictingFindings)
      llvm::errs() << "; " << Fixed->ConflictingFindings << " left, their fixes overlap others";
    if (Fixed->NotInputFindings)
      llvm::errs() << "; " << Fixed->NotInputFindings
                   << " left, their fixes touch files that are not inputs";
    if (Fixed->StaleFindings)
      llvm::errs() << "; " << Fixed->StaleFindings
                   << " left, their files have compile errors or changed during the run";
    llvm::errs() << '\n';
  }
  for (const std::string &Error : Report.ConfigurationErrors)
    inputError(Error);
  unsigned Findings = Report.findingCount();
  reportClosingCount(Report, BrokenFiles, Options.Quiet);
  if (Report.ComparedToBaseline) {
    unsigned Unchanged = 0;
    for (const check::FileResult &File : Report.Files)
      for (const check::Diagnostic &Finding : File.Findings)
        Unchanged += Finding.State == check::BaselineState::Unchanged;
    llvm::errs() << "streamlife: baseline: " << Findings << " new, " << Unchanged
                 << " unchanged (not shown), " << Report.AbsentFindings.size()
                 << " fixed since";
    if (Report.BaselineFindingsNotChecked)
      llvm::errs() << "; " << Report.BaselineFindingsNotChecked
                   << " in files not checked in this run, left as they are";
    llvm::errs() << '\n';
  }
  if (BrokenFiles || !Report.ConfigurationErrors.empty())
    return ExitUsage;
  return Findings ? ExitFindings : ExitClean;
}

} // namespace streamlife
