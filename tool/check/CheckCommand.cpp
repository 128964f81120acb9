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
#include "CompilationDatabaseLoader.h"
#include "PythonInputs.h"
#include "PythonRunner.h"
#include "ReportFormatters.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

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

std::string currentDirectory() {
  llvm::SmallString<256> Cwd;
  if (llvm::sys::fs::current_path(Cwd))
    return "/";
  return std::string(Cwd);
}

std::string absolute(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  return std::string(Absolute);
}

/// Compile errors go to stderr whatever the format: they are about the input,
/// not findings. One summary line per file, after the compiler's own lines.
unsigned reportCompileErrors(const check::CheckReport &Report) {
  unsigned BrokenFiles = 0;
  for (const check::FileResult &File : Report.Files) {
    if (File.parsedCleanly())
      continue;
    ++BrokenFiles;
    if (!File.Failure.empty()) {
      llvm::errs() << "streamlife: error: " << check::displayPath(File.Path) << ": "
                   << File.Failure << "; no findings reported for it\n";
      continue;
    }
    for (const check::Diagnostic &Error : File.CompileErrors)
      check::writeTextDiagnostic(Error, llvm::errs());
    size_t N = File.CompileErrors.size();
    llvm::errs() << "streamlife: error: " << check::displayPath(File.Path) << ": " << N << " compile error"
                 << (N == 1 ? "" : "s") << "; no findings reported for it\n";
  }
  return BrokenFiles;
}

} // namespace

int runCheckCommand(int Argc, const char **Argv) {
  // A crash in a check must say so, with a stack, not die silently.
  llvm::sys::PrintStackTraceOnErrorSignal("streamlife");
  // Argv[0] is "check"; its options follow.
  llvm::Expected<check::CheckOptions> Parsed = check::parseCheckOptions(
      llvm::ArrayRef(Argv + 1, Argv + Argc), STREAMLIFE_DEFAULT_CUDA_PATH);
  if (!Parsed)
    return inputError(llvm::toString(Parsed.takeError()));
  const check::CheckOptions &Options = *Parsed;
  if (Options.ShowHelp) {
    llvm::outs() << check::checkUsage();
    return ExitClean;
  }

  // Open the output first: an unwritable --output should fail before a long
  // analysis, not after it.
  std::optional<llvm::raw_fd_ostream> OutputFile;
  if (Options.OutputFile) {
    std::error_code EC;
    OutputFile.emplace(*Options.OutputFile, EC, llvm::sys::fs::OF_Text);
    if (EC)
      return inputError("cannot write '" + *Options.OutputFile + "': " + EC.message());
  }
  llvm::raw_ostream &Out = OutputFile ? *OutputFile : llvm::outs();

  // Python files and directories go to the Python front end; the rest to
  // the compile database, as before.
  llvm::Expected<check::SplitInputs> Inputs =
      check::splitPythonInputs(Options.Files, std::nullopt, std::nullopt);
  if (!Inputs)
    return inputError(llvm::toString(Inputs.takeError()));
  check::CheckOptions CxxOptions = Options;
  CxxOptions.Files = Inputs->OtherFiles;
  bool HasCxx = !CxxOptions.Files.empty() || (Options.BuildDir && Inputs->PythonFiles.empty());

  check::CheckReport Report;
  if (HasCxx) {
    llvm::Expected<check::LoadedDatabase> Database =
        check::loadCompilationDatabase(CxxOptions, STREAMLIFE_CLANG_RESOURCE_DIR);
    if (!Database) {
      llvm::handleAllErrors(Database.takeError(), [](const llvm::ErrorInfoBase &Error) {
        inputError(Error.message());
      });
      return ExitUsage;
    }
    Report = check::runChecks(*Database->Database, Database->Files);
  } else {
    for (llvm::StringRef Name : check::pythonCheckNames())
      Report.EnabledChecks.push_back(Name.str());
  }
  for (const std::string &File : Inputs->PythonFiles)
    Report.Files.push_back(check::checkPythonFile(File));

  switch (Options.Format) {
  case check::OutputFormat::Text:
    check::writeTextReport(Report, Out);
    break;
  case check::OutputFormat::Json:
    check::writeJsonReport(Report, STREAMLIFE_VERSION, Out);
    break;
  case check::OutputFormat::Sarif:
    check::writeSarifReport(
        Report,
        {STREAMLIFE_VERSION, Options.SourceRoot ? absolute(*Options.SourceRoot)
                                                : currentDirectory()},
        Out);
    break;
  }
  Out.flush();
  if (OutputFile && OutputFile->has_error()) {
    std::string Message = OutputFile->error().message();
    OutputFile->clear_error();
    return inputError("cannot write '" + *Options.OutputFile + "': " + Message);
  }

  unsigned BrokenFiles = reportCompileErrors(Report);
  unsigned Findings = Report.findingCount();
  if (Findings)
    llvm::errs() << "streamlife: " << Findings << " finding" << (Findings == 1 ? "" : "s")
                 << " in " << Report.Files.size() << " checked file"
                 << (Report.Files.size() == 1 ? "" : "s") << '\n';
  if (BrokenFiles)
    return ExitUsage;
  return Findings ? ExitFindings : ExitClean;
}

} // namespace streamlife
