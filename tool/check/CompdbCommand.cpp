//===- CompdbCommand.cpp - `streamlife compdb` ----------------------------===//
//
// Writes the compile database `streamlife check` parses: every entry of
// BUILD_DIR/compile_commands.json with nvcc commands translated to clang ones
// and CUDA sources set up for a host-side parse (CompileCommandAdjuster.h).
// clang-tidy with the plugin, run-clang-tidy and the editors' clang-tidy
// integrations read it with `-p OUT_DIR` and see no "unknown argument" errors
// on a CMake + nvcc project (docs/editors.md). Every entry is kept, in the
// database's order (editors look up any of a file's commands); clang finds its
// own resource directory, so none is pinned.
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"
#include "../cli/Renderers.h"

#include "CompilationDatabaseLoader.h"
#include "CompileCommandAdjuster.h"
#include "NvccCommandTranslator.h"
#include "ReportOutput.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

#ifndef STREAMLIFE_DEFAULT_CUDA_PATH
#define STREAMLIFE_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif

namespace streamlife {
namespace {

/// The single table of options: parsing, --help, the man page and the shell
/// completions come from it.
struct CompdbOption {
  enum Id { BuildDir, Output, CudaPath, ShowHelp } Which;
  const char *Long, *Short, *Value;
  cli::ValueKind Kind;
  const char *Help;
};
const CompdbOption CompdbOptions[] = {
    {CompdbOption::BuildDir, "--build-dir", "-p", "BUILD_DIR", cli::ValueKind::Directory,
     "the build folder holding compile_commands.json (or the file itself)"},
    {CompdbOption::Output, "--output", "-o", "OUT", cli::ValueKind::File,
     "a folder to write OUT/compile_commands.json into, or a .json file "
     "(default: standard output)"},
    {CompdbOption::CudaPath, "--cuda-path", "", "DIR", cli::ValueKind::Directory,
     "CUDA toolkit for parsing .cu files host-side (default: " STREAMLIFE_DEFAULT_CUDA_PATH ")"},
    {CompdbOption::ShowHelp, "--help", "-h", "", cli::ValueKind::None, "print this help and exit"},
};

int usageError(const llvm::Twine &Message) {
  llvm::errs() << "streamlife: error: " << Message << '\n';
  return ExitUsage;
}

struct CompdbSettings {
  std::optional<std::string> BuildDir;
  std::optional<std::string> Output;
  std::optional<std::string> CudaPath;
  std::vector<std::string> ExtraArgs;
  bool Help = false;
};

/// `-p DIR`, `-pDIR`, `--build-dir DIR`, `--build-dir=DIR`, ... \returns an
/// error line, or "".
std::string parseCompdbOptions(llvm::ArrayRef<const char *> Args, CompdbSettings &Out) {
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    if (Arg == "--") {
      Out.ExtraArgs.assign(Args.begin() + I + 1, Args.end());
      break;
    }
    const CompdbOption *Matched = nullptr;
    std::optional<llvm::StringRef> Value;
    for (const CompdbOption &Option : CompdbOptions) {
      llvm::StringRef Long = Option.Long, Short = Option.Short;
      bool TakesValue = *Option.Value;
      if (Arg == Long || (!Short.empty() && Arg == Short)) {
        Matched = &Option;
        if (TakesValue) {
          if (I + 1 == Args.size())
            return ("option '" + Long + "' needs a value (" + Option.Value + ")").str();
          Value = Args[++I];
        }
      } else if (TakesValue && Arg.starts_with(Long) && Arg.drop_front(Long.size()).starts_with("=")) {
        Matched = &Option;
        Value = Arg.drop_front(Long.size() + 1);
      } else if (TakesValue && !Short.empty() && Arg.size() > 2 && Arg.starts_with(Short)) {
        Matched = &Option;
        Value = Arg.drop_front(Short.size());
      }
      if (Matched)
        break;
    }
    if (!Matched)
      return ("unknown option '" + Arg + "' (try 'streamlife compdb --help')").str();
    std::optional<std::string> *Target = nullptr;
    switch (Matched->Which) {
    case CompdbOption::BuildDir: Target = &Out.BuildDir; break;
    case CompdbOption::Output: Target = &Out.Output; break;
    case CompdbOption::CudaPath: Target = &Out.CudaPath; break;
    case CompdbOption::ShowHelp: Out.Help = true; continue;
    }
    if (Value->empty())
      return ("option '" + llvm::StringRef(Matched->Long) + "' needs a non-empty value (" +
              Matched->Value + ")")
          .str();
    if (*Target)
      return ("option '" + llvm::StringRef(Matched->Long) + "' given more than once").str();
    *Target = Value->str();
  }
  if (!Out.Help && !Out.BuildDir)
    return "no build folder (give -p BUILD_DIR, the folder holding compile_commands.json)";
  return "";
}

/// OUT names a .json file, or a folder to hold compile_commands.json.
std::string outputFile(llvm::StringRef Output) {
  if (llvm::sys::path::extension(Output).equals_insensitive(".json"))
    return Output.str();
  llvm::SmallString<256> Path(Output);
  llvm::sys::path::append(Path, "compile_commands.json");
  return std::string(Path);
}

} // namespace

cli::CommandDoc compdbCommandDoc() {
  cli::CommandDoc Doc;
  Doc.Name = "streamlife compdb";
  Doc.Summary = "write a compile database clang-tidy and editors can read, nvcc commands "
                "translated";
  Doc.Synopsis = {"streamlife compdb -p BUILD_DIR [-o OUT] [--cuda-path DIR] [-- COMPILER_ARGS]"};
  Doc.Description = {
      cli::text("Writes every entry of BUILD_DIR/compile_commands.json as streamlife check "
                "parses it: nvcc commands (CMake's CUDA language) translated to clang "
                "commands, read with nvcc 13.0's whole option table, and .cu files set up "
                "for a host-side parse (-x cuda --cuda-host-only -nocudalib "
                "--cuda-path=DIR). Other commands are kept as they are. An nvcc option the "
                "table does not know is dropped with one warning."),
      cli::text("clang-tidy with the streamlife plugin, run-clang-tidy and the editors' "
                "clang-tidy integrations read the result with -p OUT, without clang's "
                "'unknown argument' errors on nvcc's options. Write it again after each "
                "CMake configure. COMPILER_ARGS are appended to every command."),
  };
  for (const CompdbOption &Option : CompdbOptions) {
    cli::OptionDoc Row;
    Row.Long = Option.Long;
    Row.Short = Option.Short;
    Row.Value = Option.Value;
    Row.Kind = Option.Kind;
    Row.Help = Option.Help;
    Doc.Options.push_back(std::move(Row));
  }
  Doc.Sections = {
      {"exit status",
       {cli::item("0", "written"),
        cli::item("2", "usage or input error (a missing or broken compile database, an output "
                       "that cannot be written); one line on standard error says which")}},
      {"examples",
       {cli::verbatim("streamlife compdb -p build -o build/streamlife\n"
                      "clang-tidy-22 --load=\"$(streamlife --print-plugin-path)\" -p build/streamlife src/pipeline.cu")}},
      {"documentation", {cli::text("docs/editors.md: each editor's set-up with the translated database.")}},
  };
  Doc.SeeAlso = {"streamlife(1)", "streamlife-check(1)", "streamlife-clang-tidy(1)"};
  return Doc;
}

int runCompdbCommand(int Argc, const char **Argv) {
  CompdbSettings Options;
  if (std::string Error = parseCompdbOptions(llvm::ArrayRef(Argv + 1, Argv + Argc), Options);
      !Error.empty())
    return usageError(Error);
  if (Options.Help) {
    llvm::outs() << cli::renderHelp(compdbCommandDoc());
    return ExitClean;
  }
  auto Database = check::loadJsonCompilationDatabase(*Options.BuildDir);
  if (!Database)
    return usageError(llvm::toString(Database.takeError()));

  std::optional<std::string> Target;
  if (Options.Output) {
    Target = outputFile(*Options.Output);
    if (std::error_code EC =
            llvm::sys::fs::create_directories(llvm::sys::path::parent_path(*Target)))
      return usageError("cannot create the folder of '" + *Target + "': " + EC.message());
  }
  check::ReportOutput Output;
  if (std::string Error; !Output.open(Target, Error))
    return usageError(Error);
  llvm::SmallString<256> Recorded(*Options.BuildDir);
  if (llvm::sys::fs::is_directory(Recorded))
    llvm::sys::path::append(Recorded, "compile_commands.json");
  if (std::string Error; !Output.checkNotAnInput({std::string(Recorded)}, Error))
    return usageError(Error);

  check::CompileCommandSettings Settings;
  Settings.CudaPath = Options.CudaPath.value_or(STREAMLIFE_DEFAULT_CUDA_PATH);
  Settings.ExtraArgs = Options.ExtraArgs;
  clang::tooling::ArgumentsAdjuster Translate = check::makeNvccTranslationAdjuster();
  clang::tooling::ArgumentsAdjuster Adjust = check::makeCompileCommandAdjuster(Settings);
  llvm::json::Array Entries;
  llvm::StringMap<size_t> UnknownCount;
  std::vector<std::pair<std::string, size_t>> Unknown;
  size_t Translated = 0;
  for (const clang::tooling::CompileCommand &Command : (*Database)->getAllCompileCommands()) {
    if (!Command.CommandLine.empty() && check::isNvccCommand(Command.CommandLine.front())) {
      ++Translated;
      for (std::string &Option : check::translateNvccCommand(Command.CommandLine).UnknownOptions)
        if (UnknownCount[Option]++ == 0)
          Unknown.push_back({Option, 0});
    }
    clang::tooling::CommandLineArguments Arguments =
        Adjust(Translate(Command.CommandLine, Command.Filename), Command.Filename);
    Entries.push_back(llvm::json::Object{
        {"directory", Command.Directory},
        {"file", Command.Filename},
        {"arguments", llvm::json::Array(Arguments)},
    });
  }
  for (auto &[Option, Commands] : Unknown)
    Commands = UnknownCount[Option];
  check::warnUnknownNvccOptions(Unknown, llvm::errs());

  size_t Written = Entries.size();
  llvm::json::OStream Json(Output.stream(), /*IndentSize=*/2);
  Json.value(llvm::json::Value(std::move(Entries)));
  Output.stream() << '\n';
  if (std::string Error; !Output.finish(Error))
    return usageError(Error);
  if (Target)
    llvm::errs() << "streamlife: wrote " << Written << " compile command"
                 << (Written == 1 ? "" : "s") << " (" << Translated
                 << " translated from nvcc) to " << *Target << '\n';
  return ExitClean;
}

} // namespace streamlife
