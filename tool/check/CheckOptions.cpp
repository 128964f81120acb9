//===- CheckOptions.cpp - `streamlife check` command line -----------------===//
//
// See CheckOptions.h for why this is not llvm::cl.
//
//===----------------------------------------------------------------------===//
#include "CheckOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include "../Commands.h"
#include "../cli/Renderers.h"

#ifndef STREAMLIFE_DEFAULT_CUDA_PATH
#define STREAMLIFE_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif
#ifndef STREAMLIFE_PROJECT_URL
#define STREAMLIFE_PROJECT_URL "https://github.com/streamlife/streamlife"
#endif

namespace streamlife::check {
namespace {

enum class OptionId {
  BuildDir,
  Jobs,
  FilesRegex,
  ExcludeRegex,
  Baseline,
  Format,
  Output,
  CudaPath,
  SourceRoot,
  Color,
  Quiet,
  Fix,
  WaitBeforeFree,
  Version,
  Help
};

struct OptionSpec {
  OptionId Id;
  llvm::StringRef LongName;  ///< "--format"
  llvm::StringRef ShortName; ///< "-p", or empty
  llvm::StringRef ValueName; ///< empty for a flag; "a|b|c" lists the choices
  cli::ValueKind Kind;       ///< what completes the value
  llvm::StringRef Help;
};

using cli::ValueKind;

// The single table of options: parsing, --help, the man page and the shell
// completions all come from it.
const OptionSpec Options[] = {
    {OptionId::BuildDir, "--build-dir", "-p", "BUILD_DIR", ValueKind::Directory,
     "read compile commands from BUILD_DIR/compile_commands.json; with no "
     "FILES, check every file in it"},
    {OptionId::Jobs, "--jobs", "-j", "N", ValueKind::Number,
     "check N files at once (default: one per core)"},
    {OptionId::FilesRegex, "--files", "", "REGEX", ValueKind::Text,
     "check only files whose absolute path matches REGEX (extended regular "
     "expression, searched anywhere in the path)"},
    {OptionId::ExcludeRegex, "--exclude", "", "REGEX", ValueKind::Text,
     "skip files whose absolute path matches REGEX"},
    {OptionId::Baseline, "--baseline", "", "FILE", ValueKind::File,
     "report only findings that are not in FILE, a SARIF or JSON report of an "
     "earlier run"},
    {OptionId::Format, "--format", "", "text|json|sarif", ValueKind::Choice,
     "output format (default: text)"},
    {OptionId::Output, "--output", "-o", "FILE", ValueKind::File,
     "write the report to FILE instead of standard output"},
    {OptionId::CudaPath, "--cuda-path", "", "DIR", ValueKind::Directory,
     "CUDA toolkit used to parse .cu files host-side (default: " STREAMLIFE_DEFAULT_CUDA_PATH ")"},
    {OptionId::SourceRoot, "--root", "", "DIR", ValueKind::Directory,
     "the root file paths are relative to in baselines, fingerprints and "
     "SARIF (%SRCROOT%) (default: the git repository holding the current "
     "directory, else the current directory)"},
    {OptionId::SourceRoot, "--source-root", "", "DIR", ValueKind::Directory,
     "the same as --root"},
    {OptionId::Color, "--color", "", "auto|always|never", ValueKind::Choice,
     "colour the text report and compile errors, as clang-tidy does (default: "
     "auto, on a terminal unless NO_COLOR is set)"},
    {OptionId::Quiet, "--quiet", "-q", "", ValueKind::None,
     "no progress on standard error (a progress line on a terminal, and a "
     "line per file when checking a whole compile database), and no closing "
     "count when nothing was found and every file was checked"},
    {OptionId::Fix, "--fix", "", "", ValueKind::None,
     "apply the fix-its of the reported findings to the source files "
     "(where a fix is local and certain; others say how in a note)"},
    {OptionId::WaitBeforeFree, "--wait-before-free", "", "", ValueKind::None,
     "Python: report a tensor release that leaves another stream's use "
     "unordered at the release, even when no allocation can be handed its "
     "block before the use is waited for (the runtime's --wait-before-free; "
     "also .clang-tidy's streamlife-python.WaitBeforeFree)"},
    {OptionId::Version, "--version", "", "", ValueKind::None, "print the version and exit"},
    {OptionId::Help, "--help", "-h", "", ValueKind::None, "print this help and exit"},
};

const OptionSpec *findOption(llvm::StringRef Name) {
  for (const OptionSpec &Spec : Options)
    if (Name == Spec.LongName || (!Spec.ShortName.empty() && Name == Spec.ShortName))
      return &Spec;
  return nullptr;
}

llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

} // namespace

std::string checkUsage() { return cli::renderHelp(streamlife::checkCommandDoc()); }

llvm::Expected<CheckOptions> parseCheckOptions(llvm::ArrayRef<const char *> Args,
                                               llvm::StringRef DefaultCudaPath) {
  CheckOptions Result;
  Result.CudaPath = DefaultCudaPath.str();
  // A value option given twice is refused rather than "last wins": with
  // `-o a.json ... -o b.json` or two -p, one of them was a mistake.
  llvm::SmallVector<OptionId, 8> Seen;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    if (Arg == "--") {
      Result.SawDoubleDash = true;
      Result.CompilerArgs.assign(Args.begin() + I + 1, Args.end());
      break;
    }
    if (!Arg.starts_with("-") || Arg == "-") {
      Result.Files.push_back(Arg.str());
      continue;
    }
    // Accept both "--format=json" and "--format json" (and "-pDIR").
    llvm::StringRef Name = Arg, Value;
    bool HasInlineValue = false;
    if (Arg.starts_with("--")) {
      auto [Before, After] = Arg.split('=');
      if (Before.size() != Arg.size()) {
        Name = Before;
        Value = After;
        HasInlineValue = true;
      }
    } else if (Arg.size() > 2 &&
               (Arg.starts_with("-p") || Arg.starts_with("-o") || Arg.starts_with("-j"))) {
      Name = Arg.take_front(2);
      Value = Arg.drop_front(2);
      HasInlineValue = true;
    }
    const OptionSpec *Spec = findOption(Name);
    if (!Spec)
      return makeError("unknown option '" + Arg + "' (try 'streamlife check --help')");
    if (Spec->ValueName.empty()) {
      if (HasInlineValue)
        return makeError("option '" + Name + "' takes no value");
    } else if (!HasInlineValue) {
      if (I + 1 == Args.size())
        return makeError("option '" + Name + "' needs a value (" + Spec->ValueName + ")");
      Value = Args[++I];
    }
    if (!Spec->ValueName.empty() && Value.empty())
      return makeError("option '" + Name + "' needs a non-empty value (" +
                       Spec->ValueName + ")");
    if (!Spec->ValueName.empty()) {
      if (llvm::is_contained(Seen, Spec->Id))
        return makeError("option '" + Spec->LongName + "' given more than once");
      Seen.push_back(Spec->Id);
    }
    switch (Spec->Id) {
    case OptionId::BuildDir:
      Result.BuildDir = Value.str();
      break;
    case OptionId::Jobs: {
      unsigned Jobs = 0;
      if (Value.getAsInteger(10, Jobs) || Jobs == 0)
        return makeError("option '" + Name + "' needs a positive number, not '" + Value + "'");
      Result.Jobs = Jobs;
      break;
    }
    case OptionId::FilesRegex:
    case OptionId::ExcludeRegex: {
      std::string Why;
      if (!llvm::Regex(Value).isValid(Why))
        return makeError("invalid regular expression '" + Value + "' for '" + Name +
                         "': " + Why);
      (Spec->Id == OptionId::FilesRegex ? Result.FilesRegex : Result.ExcludeRegex) =
          Value.str();
      break;
    }
    case OptionId::Baseline:
      Result.BaselineFile = Value.str();
      break;
    case OptionId::Quiet:
      Result.Quiet = true;
      break;
    case OptionId::Fix:
      Result.Fix = true;
      break;
    case OptionId::WaitBeforeFree:
      Result.WaitBeforeFree = true;
      break;
    case OptionId::Color: {
      std::optional<ColorMode> Mode = llvm::StringSwitch<std::optional<ColorMode>>(Value)
                                          .Case("auto", ColorMode::Auto)
                                          .Case("always", ColorMode::Always)
                                          .Case("never", ColorMode::Never)
                                          .Default(std::nullopt);
      if (!Mode)
        return makeError("unknown colour mode '" + Value + "' (expected auto, always or never)");
      Result.Color = *Mode;
      break;
    }
    case OptionId::Version:
      Result.ShowVersion = true;
      break;
    case OptionId::Format: {
      std::optional<OutputFormat> Format =
          llvm::StringSwitch<std::optional<OutputFormat>>(Value)
              .Case("text", OutputFormat::Text)
              .Case("json", OutputFormat::Json)
              .Case("sarif", OutputFormat::Sarif)
              .Default(std::nullopt);
      if (!Format)
        return makeError("unknown format '" + Value + "' (expected text, json or sarif)");
      Result.Format = *Format;
      break;
    }
    case OptionId::Output:
      Result.OutputFile = Value.str();
      break;
    case OptionId::CudaPath:
      Result.CudaPath = Value.str();
      break;
    case OptionId::SourceRoot:
      Result.SourceRoot = Value.str();
      break;
    case OptionId::Help:
      Result.ShowHelp = true;
      break;
    }
  }
  if (Result.ShowHelp || Result.ShowVersion)
    return Result;
  if (Result.Files.empty() && !Result.BuildDir)
    return makeError("no input files (give FILES, or -p BUILD_DIR to check "
                     "every file of its compile database)");
  return Result;
}

} // namespace streamlife::check

namespace streamlife {

cli::CommandDoc checkCommandDoc() {
  cli::CommandDoc Doc;
  Doc.Name = "streamlife check";
  Doc.Summary = "find cross-CUDA-stream buffer-lifetime bugs in C++, CUDA and Python source";
  Doc.Synopsis = {"streamlife check [options] FILES... [-- COMPILER_ARGS]",
                  "streamlife check -p BUILD_DIR [options] [FILES...]"};
  Doc.Description = {
      cli::text("Finds buffers released on their allocation stream while another CUDA "
                "stream may still use them, and the mistakes around them (the "
                "streamlife-* checks: free-before-wait, missing-consumer-event, "
                "use-before-alloc, record-stream-in-loop), in C++ and CUDA source and "
                "in Python (PyTorch) source."),
      cli::text("C++ and CUDA files are parsed with their command of the compile "
                "database (-p), or without -p with COMPILER_ARGS as the command of every "
                "file. .cu files are parsed host-side against the CUDA toolkit headers; "
                "nvcc commands from CMake are translated."),
      cli::text("Python files, and directories (every *.py below them), need no compile "
                "command and may be mixed with C++ files in one run. A finding is "
                "silenced with // NOLINT(check) in C++, # NOLINT(check) or "
                "# noqa: check in Python."),
      cli::text("The report (text, JSON or SARIF) goes to standard output or --output; "
                "progress, compile errors and a closing count ('streamlife: N findings "
                "in M checked files') go to standard error."),
  };
  for (const check::OptionSpec &Spec : check::Options) {
    cli::OptionDoc Option;
    Option.Long = Spec.LongName.str();
    Option.Short = Spec.ShortName.str();
    Option.Value = Spec.ValueName.str();
    Option.Kind = Spec.Kind;
    if (Spec.Kind == cli::ValueKind::Choice) {
      llvm::SmallVector<llvm::StringRef, 4> Choices;
      Spec.ValueName.split(Choices, '|');
      for (llvm::StringRef Choice : Choices)
        Option.Choices.push_back(Choice.str());
    }
    Option.Help = Spec.Help.str();
    Doc.Options.push_back(std::move(Option));
  }
  Doc.Takes = cli::CommandDoc::Operands::Files;
  Doc.Sections = {
      {"exit status",
       {cli::item("0", "no findings (no new ones with --baseline)"),
        cli::item("1", "findings"),
        cli::item("2", "usage or input error: a bad option, a missing file, a broken compile "
                       "database, code that does not compile, a broken .clang-tidy, a report "
                       "that cannot be written; one line on standard error says which, and "
                       "the other files are still checked and reported")}},
      {"environment",
       {cli::item("NO_COLOR", "when set, --color=auto does not colour")}},
      {"examples",
       {cli::verbatim("streamlife check -p build                 # every file of the database\n"
                      "streamlife check -p build src/pipeline.cu # one file, with its command\n"
                      "streamlife check train.py my_package/     # Python\n"
                      "streamlife check -p build --format sarif -o streamlife.sarif\n"
                      "streamlife check -p build --baseline .streamlife-baseline.sarif")}},
      {"documentation",
       {cli::text("Each check's page (what it finds, the fix, options, limits) is "
                  "docs/checks/<check>.md; every error message and its fix is in "
                  "docs/troubleshooting.md; CI set-ups are in docs/ci/. They are installed "
                  "in share/doc/streamlife/ under the installation prefix, and online at "
                  STREAMLIFE_PROJECT_URL "/tree/main/docs.")}},
  };
  Doc.SeeAlso = {"streamlife(1)", "streamlife-run(1)", "streamlife-clang-tidy(1)",
                 "clang-tidy(1)"};
  return Doc;
}

} // namespace streamlife
