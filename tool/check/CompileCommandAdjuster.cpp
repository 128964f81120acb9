//===- CompileCommandAdjuster.cpp - make commands parseable by clang ------===//
#include "CompileCommandAdjuster.h"

#include "NvccCommandTranslator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace streamlife::check {

using clang::tooling::CommandLineArguments;

namespace {

/// .cu sources, and .cuh headers given as FILES on their own.
bool isCudaSource(llvm::StringRef File) {
  llvm::StringRef Extension = llvm::sys::path::extension(File);
  return Extension.equals_insensitive(".cu") || Extension.equals_insensitive(".cuh");
}

/// `-x cuda` (or -xcuda) on the command line.
bool selectsCudaLanguage(const CommandLineArguments &Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    if (Arg == "-xcuda" || (Arg == "-x" && I + 1 < Args.size() && Args[I + 1] == "cuda"))
      return true;
  }
  return false;
}

/// The command already says which side of a CUDA compile to parse.
bool selectsCudaSide(const CommandLineArguments &Args) {
  return llvm::any_of(Args, [](llvm::StringRef Arg) {
    return Arg == "--cuda-host-only" || Arg == "--cuda-device-only" ||
           Arg == "--cuda-compile-host-device";
  });
}

bool hasFlagPrefix(const CommandLineArguments &Args, llvm::StringRef Prefix) {
  for (const std::string &Arg : Args)
    if (llvm::StringRef(Arg).starts_with(Prefix))
      return true;
  return false;
}

} // namespace

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

clang::tooling::ArgumentsAdjuster makeNvccTranslationAdjuster() {
  return [](const CommandLineArguments &Args, llvm::StringRef) {
    if (Args.empty() || !isNvccCommand(Args.front()))
      return Args;
    return translateNvccCommand(Args).Arguments;
  };
}

clang::tooling::ArgumentsAdjuster
makeCompileCommandAdjuster(CompileCommandSettings Settings) {
  return [Settings = std::move(Settings)](const CommandLineArguments &Args,
                                          llvm::StringRef File) {
    CommandLineArguments Result = Args;
    dropOutputWritingFlags(Result);
    // Everything is inserted right after argv[0], i.e. before the file name,
    // where "-x cuda" must appear to apply to it.
    CommandLineArguments Inserted;
    bool CudaLanguage = selectsCudaLanguage(Result);
    bool Cuda = CudaLanguage || isCudaSource(File);
    if (Cuda) {
      if (!CudaLanguage)
        Inserted.insert(Inserted.end(), {"-x", "cuda"});
      if (!selectsCudaSide(Result))
        Inserted.push_back("--cuda-host-only");
      if (!llvm::is_contained(Result, "-nocudalib"))
        Inserted.push_back("-nocudalib");
      if (!hasFlagPrefix(Result, "--cuda-path"))
        Inserted.push_back("--cuda-path=" + Settings.CudaPath);
    }
    // nvcc puts CCCL (cuda/std, thrust, cub; include/cccl since CUDA 13) on
    // the system include path through nvcc.profile; clang's CUDA driver does
    // not, so .cu code including <cuda/std/...> or <thrust/...> would not
    // parse. Mirror nvcc.
    if (Cuda) {
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
