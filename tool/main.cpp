//===- main.cpp - the streamlife command-line driver ----------------------===//
//
// Dispatches to a subcommand. Kept free of LLVM so that the driver (with
// `streamlife run`) also builds on machines without LLVM, such as the GPU
// machine; `check` is compiled in only when the static checker is built.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "InstallLayout.h"

#include <cstdio>
#include <cstring>

namespace {

const char *const Usage =
    "usage: streamlife <command> [options]\n"
    "\n"
    "commands:\n"
    "  check   find cross-stream buffer-lifetime bugs in C++/CUDA source\n"
    "  compdb  write a compile database clang-tidy and editors can read (nvcc\n"
    "          commands translated, as `check` reads them)\n"
    "  run     run a program under the runtime validator (libstreamlife_rt.so)\n"
    "\n"
    "'streamlife <command> --help' describes a command's options.\n"
    "\n"
    "  --print-plugin-path    the clang-tidy plugin that came with streamlife, for\n"
    "                         clang-tidy-22 --load=PATH (editors, run-clang-tidy)\n"
    "  --print-runtime-path   the runtime library (libstreamlife_rt.so)\n"
    "  --version\n";

} // namespace

int main(int Argc, const char **Argv) {
  if (Argc < 2) {
    std::fputs(Usage, stderr);
    return streamlife::ExitUsage;
  }
  const char *Command = Argv[1];
  if (!std::strcmp(Command, "--help") || !std::strcmp(Command, "-h") ||
      !std::strcmp(Command, "help")) {
    std::fputs(Usage, stdout);
    return streamlife::ExitClean;
  }
  if (!std::strcmp(Command, "--version")) {
    std::puts("streamlife " STREAMLIFE_VERSION);
    return streamlife::ExitClean;
  }
  if (!std::strcmp(Command, "--print-plugin-path")) {
    std::puts(streamlife::findSupportFile("StreamlifeTidyModule.so").c_str());
    return streamlife::ExitClean;
  }
  if (!std::strcmp(Command, "--print-runtime-path")) {
    std::puts(streamlife::findSupportFile("libstreamlife_rt.so").c_str());
    return streamlife::ExitClean;
  }
  if (!std::strcmp(Command, "check")) {
#ifdef STREAMLIFE_HAVE_CHECKER
    return streamlife::runCheckCommand(Argc - 1, Argv + 1);
#else
    std::fputs("streamlife: error: this build has no static checker "
               "(configured with STREAMLIFE_BUILD_CHECKER=OFF)\n",
               stderr);
    return streamlife::ExitUsage;
#endif
  }
  if (!std::strcmp(Command, "compdb")) {
#ifdef STREAMLIFE_HAVE_CHECKER
    return streamlife::runCompdbCommand(Argc - 1, Argv + 1);
#else
    std::fputs("streamlife: error: this build has no static checker "
               "(configured with STREAMLIFE_BUILD_CHECKER=OFF)\n",
               stderr);
    return streamlife::ExitUsage;
#endif
  }
  if (!std::strcmp(Command, "run")) {
#ifdef STREAMLIFE_HAVE_RUNTIME
    return streamlife::runRunCommand(Argc - 1, Argv + 1);
#else
    std::fputs("streamlife: error: this build has no runtime validator "
               "(configured with STREAMLIFE_BUILD_RUNTIME=OFF)\n",
               stderr);
    return streamlife::ExitUsage;
#endif
  }
  std::fprintf(stderr, "streamlife: error: unknown command '%s' (try 'streamlife --help')\n",
               Command);
  return streamlife::ExitUsage;
}
