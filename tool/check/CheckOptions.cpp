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
  Quiet,
  Fix,
  Help
};

struct OptionSpec {
  OptionId Id;
  llvm::StringRef LongName;  ///< "--format"
  llvm::StringRef ShortName; ///< "-p", or empty
  llvm::StringRef ValueName; ///< empty for a flag
  llvm::StringRef Help;
};

// The single table of options: parsing and --help both come from it.
const OptionSpec Options[] = {
    {OptionId::BuildDir, "--build-dir", "-p", "BUILD_DIR",
     "read compile commands from BUILD_DIR/compile_commands.json; with no "
     "FILES, check every file in it"},
    {OptionId::Jobs, "--jobs", "-j", "N",
     "check N files at once (default: one per core)"},
    {OptionId::FilesRegex, "--files", "", "REGEX",
     "check only files whose absolute path matches REGEX (extended regular "
     "expression, searched anywhere in the path)"},
    {OptionId::ExcludeRegex, "--exclude", "", "REGEX",
     "skip files whose absolute path matches REGEX"},
    {OptionId::Baseline, "--baseline", "", "FILE",
     "report only findings that are not in FILE, a SARIF or JSON report of an "
     "earlier run"},
    {OptionId::Format, "--format", "", "text|json|sarif",
     "output format (default: text)"},
    {OptionId::Output, "--output", "-o", "FILE",
     "write the report to FILE instead of standard output"},
    {OptionId::CudaPath, "--cuda-path", "", "DIR",
     "CUDA toolkit used to parse .cu files host-side"},
    {OptionId::SourceRoot, "--root", "", "DIR",
     "the root file paths are relative to in reports, baselines and "
     "fingerprints (SARIF %SRCROOT%; default: the git repository holding the "
     "current directory, else the current directory)"},
    {OptionId::SourceRoot, "--source-root", "", "DIR", "the same as --root"},
    {OptionId::Quiet, "--quiet", "-q", "",
     "no progress on standard error (a progress line on a terminal, and a "
     "line per file when checking a whole compile database)"},
    {OptionId::Fix, "--fix", "", "",
     "apply the fix-its of the reported findings to the source files "
     "(where a fix is local and certain; others say how in a note)"},
    {OptionId::Help, "--help", "-h", "", "print this help"},
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

std::string checkUsage() {
  std::string Text =
      "usage: streamlife check [options] FILES... [-- COMPILER_ARGS]\n"
      "\n"
      "Finds cross-stream buffer-lifetime bugs (the streamlife-* checks) in C++ "
      "and CUDA\nsource. .cu files are parsed host-side against the CUDA "
      "toolkit headers.\n"
      "Without -p, COMPILER_ARGS is the compile command for every file.\n"
      "\n"
      "options:\n";
  for (const OptionSpec &Spec : Options) {
    std::string Names = Spec.ShortName.empty()
                            ? Spec.LongName.str()
                            : (Spec.ShortName + ", " + Spec.LongName).str();
    if (!Spec.ValueName.empty())
      Names += " " + Spec.ValueName.str();
    Text += llvm::formatv("  {0,-30} {1}\n", Names, Spec.Help).str();
  }
  Text += "\nexit status: 0 no findings, 1 findings, 2 usage or input error "
          "(bad option,\nmissing file, broken compile database, code that does "
          "not compile)\n";
  return Text;
}

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
  if (Result.ShowHelp)
    return Result;
  if (Result.Files.empty() && !Result.BuildDir)
    return makeError("no input files (give FILES, or -p BUILD_DIR to check "
                     "every file of its compile database)");
  return Result;
}

} // namespace streamlife::check
