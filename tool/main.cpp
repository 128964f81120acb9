//===- main.cpp - the streamlife command-line driver ----------------------===//
//
// Dispatches to a subcommand. Kept free of LLVM so that the driver (with
// `streamlife run`) also builds on machines without LLVM, such as the GPU
// machine; `check` is compiled in only when the static checker is built.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "InstallLayout.h"
#include "cli/Renderers.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace cli = streamlife::cli;

namespace {

/// The pages and completions describe the commands this build has.
std::vector<cli::CommandDoc> subcommandDocs() {
  std::vector<cli::CommandDoc> Docs;
#ifdef STREAMLIFE_HAVE_CHECKER
  Docs.push_back(streamlife::checkCommandDoc());
  Docs.push_back(streamlife::compdbCommandDoc());
#endif
#ifdef STREAMLIFE_HAVE_RUNTIME
  Docs.push_back(streamlife::runCommandDoc());
#endif
  Docs.push_back(streamlife::timelineCommandDoc());
  return Docs;
}

cli::CommandDoc driverDoc() {
  cli::CommandDoc Doc = streamlife::driverCommandDoc();
  std::vector<cli::CommandDoc> Built = subcommandDocs();
  std::vector<cli::SubcommandDoc> Present;
  for (const cli::SubcommandDoc &Sub : Doc.Subcommands)
    for (const cli::CommandDoc &Command : Built)
      if (Command.subcommand() == Sub.Name)
        Present.push_back(Sub);
  Doc.Subcommands = Present;
  return Doc;
}

/// `--print-man-page PAGE` / `--print-completion SHELL`: the value, as
/// the next word or after '='.
const char *optionValue(int Argc, const char **Argv, const char *Option) {
  const char *Arg = Argv[1];
  size_t Length = std::strlen(Option);
  if (!std::strncmp(Arg, Option, Length) && Arg[Length] == '=')
    return Arg + Length + 1;
  if (!std::strcmp(Arg, Option))
    return Argc > 2 ? Argv[2] : nullptr;
  return nullptr;
}

bool startsWith(const char *Arg, const char *Option) {
  size_t Length = std::strlen(Option);
  return !std::strncmp(Arg, Option, Length) && (Arg[Length] == 0 || Arg[Length] == '=');
}

int printManPage(const char *Page) {
  std::vector<cli::CommandDoc> Docs = subcommandDocs();
  Docs.push_back(driverDoc());
  Docs.push_back(streamlife::clangTidyWrapperDoc());
  for (const cli::CommandDoc &Doc : Docs)
    if (Page && Doc.manName() == Page) {
      std::fputs(cli::renderManPage(Doc, STREAMLIFE_VERSION).c_str(), stdout);
      return streamlife::ExitClean;
    }
  std::fprintf(stderr, "streamlife: error: no man page '%s' in this build (expected one of:",
               Page ? Page : "");
  for (const cli::CommandDoc &Doc : Docs)
    std::fprintf(stderr, " %s", Doc.manName().c_str());
  std::fputs(")\n", stderr);
  return streamlife::ExitUsage;
}

int printCompletion(const char *Shell) {
  std::string Shell_ = Shell ? Shell : "";
  if (Shell_ == "bash")
    std::fputs(cli::renderBashCompletion(driverDoc(), subcommandDocs()).c_str(), stdout);
  else if (Shell_ == "zsh")
    std::fputs(cli::renderZshCompletion(driverDoc(), subcommandDocs()).c_str(), stdout);
  else {
    std::fprintf(stderr, "streamlife: error: no completion for shell '%s' (expected bash or zsh)\n",
                 Shell_.c_str());
    return streamlife::ExitUsage;
  }
  return streamlife::ExitClean;
}

} // namespace

int main(int Argc, const char **Argv) {
  if (Argc < 2) {
    std::fputs(cli::renderHelp(driverDoc()).c_str(), stderr);
    return streamlife::ExitUsage;
  }
  const char *Command = Argv[1];
  if (!std::strcmp(Command, "--help") || !std::strcmp(Command, "-h") ||
      !std::strcmp(Command, "help")) {
    std::fputs(cli::renderHelp(driverDoc()).c_str(), stdout);
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
  if (startsWith(Command, "--print-man-page"))
    return printManPage(optionValue(Argc, Argv, "--print-man-page"));
  if (startsWith(Command, "--print-completion"))
    return printCompletion(optionValue(Argc, Argv, "--print-completion"));
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
  if (!std::strcmp(Command, "timeline"))
    return streamlife::runTimelineCommand(Argc - 1, Argv + 1);
  std::fprintf(stderr, "streamlife: error: unknown command '%s' (try 'streamlife --help')\n",
               Command);
  return streamlife::ExitUsage;
}
