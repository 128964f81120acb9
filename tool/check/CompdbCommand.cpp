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

const char *const CompdbUsage =
    "usage: streamlife compdb -p BUILD_DIR [-o OUT] [--cuda-path DIR] [-- COMPILER_ARGS]\n"
    "\n"
    "Writes BUILD_DIR/compile_commands.json as `streamlife check` reads it: nvcc\n"
    "commands translated to clang commands, .cu files parsed host-side. Point\n"
    "clang-tidy, run-clang-tidy or an editor at OUT (clang-tidy -p OUT).\n"
    "\n"
    "options:\n"
    "  -p, --build-dir BUILD_DIR  the build folder holding compile_commands.json (or the file)\n"
    "  -o, --output OUT           a folder (OUT/compile_commands.json is written) or a\n"
    "                             .json file; standard output when absent\n"
    "  --cuda-path DIR            CUDA toolkit for parsing .cu files (default " STREAMLIFE_DEFAULT_CUDA_PATH
    ")\n"
    "  -h, --help                 print this help\n"
    "COMPILER_ARGS are appended to every command.\n";

int usageError(const llvm::Twine &Message) {
  llvm::errs() << "streamlife: error: " << Message << '\n';
  return ExitUsage;
}

struct CompdbOptions {
  std::optional<std::string> BuildDir;
  std::optional<std::string> Output;
  std::string CudaPath = STREAMLIFE_DEFAULT_CUDA_PATH;
  std::vector<std::string> ExtraArgs;
  bool Help = false;
};

/// `-p DIR`, `-pDIR`, `--build-dir=DIR`, ... \returns an error line, or "".
std::string parseCompdbOptions(llvm::ArrayRef<const char *> Args, CompdbOptions &Out) {
  struct Spec {
    llvm::StringRef Long, Short;
    std::optional<std::string> *Target;
  };
  std::optional<std::string> CudaPath;
  const Spec Specs[] = {{"--build-dir", "-p", &Out.BuildDir},
                        {"--output", "-o", &Out.Output},
                        {"--cuda-path", "", &CudaPath}};
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    if (Arg == "--") {
      Out.ExtraArgs.assign(Args.begin() + I + 1, Args.end());
      break;
    }
    if (Arg == "-h" || Arg == "--help") {
      Out.Help = true;
      continue;
    }
    const Spec *Matched = nullptr;
    std::optional<llvm::StringRef> Value;
    for (const Spec &S : Specs) {
      if (Arg == S.Long || (!S.Short.empty() && Arg == S.Short)) {
        Matched = &S;
        if (I + 1 == Args.size())
          return ("option '" + Arg + "' needs a value").str();
        Value = Args[++I];
      } else if (Arg.starts_with((S.Long + "=").str())) {
        Matched = &S;
        Value = Arg.drop_front(S.Long.size() + 1);
      } else if (!S.Short.empty() && Arg.size() > 2 && Arg.starts_with(S.Short)) {
        Matched = &S;
        Value = Arg.drop_front(2);
      }
      if (Matched)
        break;
    }
    if (!Matched)
      return ("unknown argument '" + Arg + "' (try 'streamlife compdb --help')").str();
    if (Value->empty())
      return ("option '" + Matched->Long + "' needs a non-empty value").str();
    if (*Matched->Target)
      return ("option '" + Matched->Long + "' given more than once").str();
    *Matched->Target = Value->str();
  }
  if (CudaPath)
    Out.CudaPath = *CudaPath;
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

int runCompdbCommand(int Argc, const char **Argv) {
  CompdbOptions Options;
  if (std::string Error = parseCompdbOptions(llvm::ArrayRef(Argv + 1, Argv + Argc), Options);
      !Error.empty())
    return usageError(Error);
  if (Options.Help) {
    llvm::outs() << CompdbUsage;
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
  Settings.CudaPath = Options.CudaPath;
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
