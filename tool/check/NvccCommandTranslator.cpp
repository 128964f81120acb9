//===- NvccCommandTranslator.cpp - an nvcc command as clang reads it ------===//
#include "NvccCommandTranslator.h"

#include "NvccOptionTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace streamlife::check {

using clang::tooling::CommandLineArguments;

bool isNvccCommand(llvm::StringRef Compiler) {
  llvm::StringRef Name = llvm::sys::path::filename(Compiler);
  return Name == "nvcc" || Name == "nvcc.exe";
}

namespace {

/// The input files nvcc reads, by extension (nvcc --help, "compilation
/// phase"): an argument after an unknown option with one of these is an
/// input, anything else its value.
bool looksLikeInput(llvm::StringRef Arg) {
  llvm::StringRef Extension = llvm::sys::path::extension(Arg).ltrim('.');
  return llvm::StringSwitch<bool>(Extension.lower())
      .Cases({"cu", "cuh", "c", "cc", "cpp", "cxx", "c++"}, true)
      .Cases({"i", "ii", "o", "obj", "a", "so", "lib"}, true)
      .Cases({"ptx", "cubin", "fatbin", "gpu", "ltoir", "optixir"}, true)
      .Default(false);
}

/// Host compiler flags (from -Xcompiler, or forwarded as unknown options)
/// that matter to a parse.
bool isParseRelevantHostFlag(llvm::StringRef Flag) {
  return Flag.starts_with("-D") || Flag.starts_with("-U") || Flag.starts_with("-I") ||
         Flag.starts_with("-std=") || Flag.starts_with("-isystem") ||
         llvm::is_contained({"-fopenmp", "-pthread", "-fno-exceptions", "-fexceptions",
                             "-fno-rtti", "-frtti"},
                            Flag);
}

/// nvcc's list values: "-DA=1,B=2" defines A and B.
llvm::SmallVector<llvm::StringRef, 4> splitList(llvm::StringRef Value) {
  llvm::SmallVector<llvm::StringRef, 4> Items;
  Value.split(Items, ',', -1, /*KeepEmpty=*/false);
  return Items;
}

bool forwardsUnknownOptions(const CommandLineArguments &Args) {
  return llvm::any_of(Args, [](llvm::StringRef Arg) {
    return Arg == "-forward-unknown-to-host-compiler" ||
           Arg == "--forward-unknown-to-host-compiler" || Arg == "-forward-unknown-opts" ||
           Arg == "--forward-unknown-opts";
  });
}

/// Appends the clang arguments that nvcc option \p Option with \p Value
/// means to a host-side parse; nothing for the options that do not matter.
void translateOption(const NvccOption &Option, llvm::StringRef Value,
                     CommandLineArguments &Out) {
  llvm::StringRef Name = Option.LongName;
  auto EachItem = [&](llvm::StringRef Prefix, bool Separate) {
    for (llvm::StringRef Item : splitList(Value)) {
      if (Separate) {
        Out.push_back(Prefix.str());
        Out.push_back(Item.str());
      } else {
        Out.push_back((Prefix + Item).str());
      }
    }
  };
  if (Name == "--define-macro")
    EachItem("-D", false);
  else if (Name == "--undefine-macro")
    EachItem("-U", false);
  else if (Name == "--include-path")
    EachItem("-I", false);
  else if (Name == "--system-include")
    EachItem("-isystem", true);
  else if (Name == "--pre-include")
    EachItem("-include", true);
  else if (Name == "--std")
    Out.push_back(("-std=" + Value).str());
  else if (Name == "--compiler-options") {
    for (llvm::StringRef Flag : splitList(Value))
      if (isParseRelevantHostFlag(Flag))
        Out.push_back(Flag.str());
  }
  // Relocatable device code changes what host code may do (kernel launches
  // from device code), so clang must know.
  else if ((Name == "--relocatable-device-code" && Value == "true") || Name == "--device-c")
    Out.push_back("-fgpu-rdc");
  // nvcc compiles the host side with this macro defined, and the CUDA
  // headers then give every stream-ordered call the per-thread default
  // stream (checked with nvcc -dryrun).
  else if (Name == "--default-stream" && Value == "per-thread")
    Out.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
  else if (Name == "--x") {
    llvm::StringRef Language = llvm::StringSwitch<llvm::StringRef>(Value)
                                   .Case("cu", "cuda")
                                   .Case("c++", "c++")
                                   .Case("c", "c")
                                   .Default("");
    if (!Language.empty()) {
      Out.push_back("-x");
      Out.push_back(Language.str());
    }
  } else if (Name == "--no-exceptions")
    Out.push_back("-fno-exceptions");
}

} // namespace

void warnUnknownNvccOptions(llvm::ArrayRef<std::pair<std::string, size_t>> Options,
                            llvm::raw_ostream &OS) {
  for (const auto &[Option, Commands] : Options)
    OS << "streamlife: warning: unknown nvcc option '" << Option << "' (not in nvcc "
       << nvccOptionTableRelease() << "'s option table) dropped from " << Commands
       << " compile command" << (Commands == 1 ? "" : "s") << '\n';
}

NvccTranslation translateNvccCommand(const CommandLineArguments &NvccArgs) {
  NvccTranslation Result;
  CommandLineArguments &Out = Result.Arguments;
  Out.push_back("clang++");
  bool Forwarding = forwardsUnknownOptions(NvccArgs);
  for (size_t I = 1; I < NvccArgs.size(); ++I) {
    llvm::StringRef Arg = NvccArgs[I];
    if (!Arg.starts_with("-") || Arg == "-") {
      Out.push_back(Arg.str()); // an input file
      continue;
    }
    if (std::optional<NvccArgument> Known = readNvccOption(NvccArgs, I)) {
      translateOption(*Known->Option, Known->Value, Out);
      I += Known->ArgumentsUsed - 1;
      continue;
    }
    if (Forwarding) {
      if (isParseRelevantHostFlag(Arg))
        Out.push_back(Arg.str());
    } else if (!llvm::is_contained(Result.UnknownOptions, Arg)) {
      Result.UnknownOptions.push_back(Arg.str());
    }
    // `--option-of-a-later-nvcc value`: the value is not an input.
    if (!Arg.contains('=') && I + 1 < NvccArgs.size() &&
        !llvm::StringRef(NvccArgs[I + 1]).starts_with("-") && !looksLikeInput(NvccArgs[I + 1]))
      ++I;
  }
  return Result;
}

} // namespace streamlife::check
