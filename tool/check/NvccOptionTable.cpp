//===- NvccOptionTable.cpp - the options nvcc knows, with their values ----===//
#include "NvccOptionTable.h"

#include "llvm/ADT/StringMap.h"

namespace streamlife::check {
namespace {

const NvccOption DocumentedOptions[] = {
#define NVCC_OPTION(LONG, SHORT, TAKES_VALUE, JOINS_VALUE, VALUE_FORM)                     \
  {LONG, SHORT, TAKES_VALUE, JOINS_VALUE, VALUE_FORM},
#include "NvccOptionTable.def"
#undef NVCC_OPTION
};

/// Options nvcc 13.0 accepts (checked with `nvcc -dryrun`) that its --help
/// does not list; CMake writes -Xfatbin=-compress-all into every CUDA
/// command, and -Xcudafe --diag_suppress=N is common in project flags.
const NvccOption UnlistedOptions[] = {
    {"--fatbin-options", "-Xfatbin", true, false, "<options>,..."},
    {"--cudafe-options", "-Xcudafe", true, false, "<options>,..."},
    {"--cicc-options", "-Xcicc", true, false, "<options>,..."},
};

/// Every long and short name to its row.
const llvm::StringMap<const NvccOption *> &optionsByName() {
  static const llvm::StringMap<const NvccOption *> Names = [] {
    llvm::StringMap<const NvccOption *> Map;
    auto Add = [&](const NvccOption &Option) {
      Map.try_emplace(Option.LongName, &Option);
      if (!Option.ShortName.empty())
        Map.try_emplace(Option.ShortName, &Option);
    };
    for (const NvccOption &Option : DocumentedOptions)
      Add(Option);
    for (const NvccOption &Option : UnlistedOptions)
      Add(Option);
    return Map;
  }();
  return Names;
}

const NvccOption *lookup(llvm::StringRef Name) {
  return optionsByName().lookup(Name);
}

} // namespace

llvm::StringRef nvccOptionTableRelease() { return NVCC_OPTION_TABLE_RELEASE; }

std::optional<NvccArgument>
readNvccOption(const clang::tooling::CommandLineArguments &Args, size_t Index) {
  llvm::StringRef Arg = Args[Index];
  NvccArgument Result;
  // "--name" / "-name", and "--name value" for an option that takes one.
  if (const NvccOption *Option = lookup(Arg)) {
    Result.Option = Option;
    if (Option->TakesValue && Index + 1 < Args.size()) {
      Result.Value = Args[Index + 1];
      Result.ArgumentsUsed = 2;
    }
    return Result;
  }
  // "--name=value" / "-name=value".
  if (auto [Name, Value] = Arg.split('='); Name.size() != Arg.size())
    if (const NvccOption *Option = lookup(Name); Option && Option->TakesValue) {
      Result.Option = Option;
      Result.Value = Value.str();
      return Result;
    }
  // "-DX", "-Idir", "-O3": a single-letter short name with its value joined.
  if (!Arg.starts_with("--") && Arg.size() > 2)
    if (const NvccOption *Option = lookup(Arg.take_front(2)); Option && Option->JoinsValue) {
      Result.Option = Option;
      Result.Value = Arg.drop_front(2).str();
      return Result;
    }
  return std::nullopt;
}

} // namespace streamlife::check
