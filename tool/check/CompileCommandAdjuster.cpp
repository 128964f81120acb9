//===- CompileCommandAdjuster.cpp - make commands parseable by clang ------===//
#include "CompileCommandAdjuster.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace streamlife::check {

using clang::tooling::CommandLineArguments;

bool isNvccCommand(llvm::StringRef Compiler) {
  llvm::StringRef Name = llvm::sys::path::filename(Compiler);
  return Name == "nvcc" || Name == "nvcc.exe";
}

namespace {

/// .cu sources, and .cuh headers given as FILES on their own.
bool isCudaSource(llvm::StringRef File) {
  llvm::StringRef Extension = llvm::sys::path::extension(File);
  return Extension.equals_insensitive(".cu") || Extension.equals_insensitive(".cuh");
}

/// nvcc options that take a separate value and are dropped with it (the value
/// must not be mistaken for the source file).
bool isDroppedNvccOptionWithValue(llvm::StringRef Arg) {
  static const llvm::StringRef WithValue[] = {
      "-o",        "-ccbin",          "--compiler-bindir", "-arch",
      "--gpu-architecture", "-code",   "--gpu-code",        "-gencode",
      "--generate-code", "-Xptxas",    "--ptxas-options",   "-Xnvlink",
      "--nvlink-options", "-Xlinker",  "--linker-options",  "-Xarchive",
      "--archive-options", "-maxrregcount", "--maxrregcount", "-t",
      "--threads", "-MF",             "--dependency-output", "-MT",
      "-MQ",       "--options-file",  "-optf",              "-x",
      "--x",       "--keep-dir",      "-odir",              "--output-directory"};
  return llvm::is_contained(WithValue, Arg);
}

/// Host compiler flags passed through -Xcompiler that matter to a parse.
bool isParseRelevantHostFlag(llvm::StringRef Flag) {
  return Flag.starts_with("-D") || Flag.starts_with("-U") || Flag.starts_with("-I") ||
         Flag.starts_with("-std=") || Flag.starts_with("-isystem") ||
         Flag == "-fopenmp" || Flag == "-pthread";
}

/// Appends \p Flag (and its value, for the two-token spellings) when it is a
/// parse-relevant nvcc/host flag; \returns how many extra tokens it consumed.
size_t keepParseRelevantFlag(const CommandLineArguments &Args, size_t I,
                             CommandLineArguments &Out) {
  llvm::StringRef Arg = Args[I];
  auto NextValue = [&]() -> std::optional<std::string> {
    if (I + 1 < Args.size())
      return Args[I + 1];
    return std::nullopt;
  };
  // Two-token forms: "-I dir", "-isystem dir", "--include-path dir", ...
  static const std::pair<llvm::StringRef, llvm::StringRef> Spellings[] = {
      {"-I", "-I"},           {"--include-path", "-I"}, {"-isystem", "-isystem"},
      {"--system-include", "-isystem"}, {"-D", "-D"},   {"--define-macro", "-D"},
      {"-U", "-U"},           {"--undefine-macro", "-U"}, {"-include", "-include"},
      {"--pre-include", "-include"}, {"-std", "-std="}, {"--std", "-std="}};
  for (const auto &[NvccName, ClangName] : Spellings) {
    auto Emit = [&](llvm::StringRef Value) {
      if (ClangName == "-isystem" || ClangName == "-include") {
        Out.push_back(ClangName.str());
        Out.push_back(Value.str());
      } else {
        Out.push_back((ClangName + Value).str());
      }
    };
    if (Arg == NvccName) {
      if (auto Value = NextValue()) {
        Emit(*Value);
        return 1;
      }
      return 0;
    }
    if (Arg.starts_with(NvccName) && Arg.size() > NvccName.size()) {
      llvm::StringRef Value = Arg.drop_front(NvccName.size());
      // "--include-path=dir", "-isystem=dir" (CMake writes this for nvcc),
      // "-std=c++17"; the short "-Idir"/"-DX" forms have no '='.
      if (Value.consume_front("=") || NvccName.size() == 2) {
        Emit(Value);
        return 0;
      }
    }
  }
  // Host compiler flags: "-Xcompiler=-fPIC,-DX", "-Xcompiler -DX",
  // "--compiler-options=...".
  for (llvm::StringRef Name : {"-Xcompiler", "--compiler-options"}) {
    size_t Consumed = 0;
    llvm::StringRef Value;
    if (Arg == Name) {
      if (I + 1 >= Args.size())
        return 0;
      Value = Args[I + 1];
      Consumed = 1;
    } else if (Arg.starts_with(Name) && Arg.drop_front(Name.size()).starts_with("=")) {
      Value = Arg.drop_front(Name.size() + 1);
    } else {
      continue;
    }
    llvm::SmallVector<llvm::StringRef, 8> HostFlags;
    Value.split(HostFlags, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef Flag : HostFlags)
      if (isParseRelevantHostFlag(Flag))
        Out.push_back(Flag.str());
    return Consumed;
  }
  return 0;
}

bool selectsCudaMode(const CommandLineArguments &Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    if (Arg == "--cuda-host-only" || Arg == "--cuda-device-only" || Arg == "-xcuda" ||
        (Arg == "-x" && I + 1 < Args.size() && Args[I + 1] == "cuda"))
      return true;
  }
  return false;
}

bool hasFlagPrefix(const CommandLineArguments &Args, llvm::StringRef Prefix) {
  for (const std::string &Arg : Args)
    if (llvm::StringRef(Arg).starts_with(Prefix))
      return true;
  return false;
}

} // namespace

CommandLineArguments translateNvccCommand(const CommandLineArguments &NvccArgs) {
  CommandLineArguments Out;
  Out.push_back("clang++");
  for (size_t I = 1; I < NvccArgs.size(); ++I) {
    llvm::StringRef Arg = NvccArgs[I];
    if (isDroppedNvccOptionWithValue(Arg)) {
      ++I;
      continue;
    }
    // Relocatable device code changes what host code may do (kernel launches
    // from device code), so clang must know.
    if (Arg == "-rdc=true" || Arg == "--relocatable-device-code=true" || Arg == "-dc" ||
        Arg == "--device-c") {
      Out.push_back("-fgpu-rdc");
      continue;
    }
    if (Arg.starts_with("-")) {
      I += keepParseRelevantFlag(NvccArgs, I, Out);
      continue; // every other nvcc flag is dropped
    }
    Out.push_back(Arg.str()); // an input file
  }
  return Out;
}

/// Checking must write nothing. clang tooling strips -o, -MF, -MD and the
/// like, but not --serialize-diagnostics FILE, which made `check -p` overwrite
/// FILE with a bitstream (as clang-tidy does).
static void dropOutputWritingFlags(CommandLineArguments &Args) {
  CommandLineArguments Kept;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    if (I > 0 && (Arg == "--serialize-diagnostics" || Arg == "-serialize-diagnostics" ||
                  Arg == "-serialize-diagnostic-file")) {
      ++I; // and its value
      continue;
    }
    if (I > 0 && Arg.starts_with("--serialize-diagnostics="))
      continue;
    Kept.push_back(Args[I]);
  }
  Args = std::move(Kept);
}

clang::tooling::ArgumentsAdjuster
makeCompileCommandAdjuster(CompileCommandSettings Settings) {
  return [Settings = std::move(Settings)](const CommandLineArguments &Args,
                                          llvm::StringRef File) {
    CommandLineArguments Result =
        !Args.empty() && isNvccCommand(Args.front()) ? translateNvccCommand(Args)
                                                      : Args;
    dropOutputWritingFlags(Result);
    // Everything is inserted right after argv[0], i.e. before the file name,
    // where "-x cuda" must appear to apply to it.
    CommandLineArguments Inserted;
    if (isCudaSource(File) && !selectsCudaMode(Result)) {
      Inserted.insert(Inserted.end(), {"-x", "cuda", "--cuda-host-only", "-nocudalib"});
      if (!hasFlagPrefix(Result, "--cuda-path"))
        Inserted.push_back("--cuda-path=" + Settings.CudaPath);
    }
    // nvcc puts CCCL (cuda/std, thrust, cub; include/cccl since CUDA 13) on
    // the system include path through nvcc.profile; clang's CUDA driver does
    // not, so .cu code including <cuda/std/...> or <thrust/...> would not
    // parse. Mirror nvcc.
    if (isCudaSource(File) || selectsCudaMode(Result)) {
      llvm::SmallString<128> Cccl(Settings.CudaPath);
      llvm::sys::path::append(Cccl, "include", "cccl");
      if (llvm::sys::fs::is_directory(Cccl) && !llvm::is_contained(Result, std::string(Cccl)))
        Inserted.insert(Inserted.end(), {"-isystem", std::string(Cccl)});
    }
    if (!Settings.ClangResourceDir.empty() && !hasFlagPrefix(Result, "-resource-dir"))
      Inserted.push_back("-resource-dir=" + Settings.ClangResourceDir);
    size_t InsertAt = Result.empty() ? 0 : 1;
    Result.insert(Result.begin() + InsertAt, Inserted.begin(), Inserted.end());
    Result.insert(Result.end(), Settings.ExtraArgs.begin(), Settings.ExtraArgs.end());
    return Result;
  };
}

} // namespace streamlife::check
