//===- RunCommand.cpp - `streamlife run [OPTIONS] -- CMD ARGS...` ----------===//
//
// Runs a command under the runtime validator: LD_PRELOAD gets
// libstreamlife_rt.so (appended to an existing LD_PRELOAD), STREAMLIFE_OPTIONS
// the flags, and PYTHONPATH the validator's sitecustomize module (Python call
// sites), then the command replaces this process, so its
// exit status (or the one --error-exitcode sets) is ours. The flags are
// generated from the validator's option table (runtime-validator/report/
// Options.inc), so `--help` and STREAMLIFE_OPTIONS never disagree.
//
// Exit codes of the launcher itself: 2 usage error (one line on stderr),
// 126 command found but not executable, 127 command not found (as shells do).
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"

#include "report/Options.h"
#include "report/Suppressions.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace streamlife {

namespace {

constexpr int ExitCannotExecute = 126;
constexpr int ExitCommandNotFound = 127;

int usageError(const std::string &Message) {
  std::fprintf(stderr, "streamlife run: error: %s (try 'streamlife run --help')\n", Message.c_str());
  return ExitUsage;
}

void printHelp() {
  std::printf("usage: streamlife run [OPTIONS] -- CMD ARGS...\n"
              "\n"
              "Runs CMD with the runtime validator (libstreamlife_rt.so) preloaded. Findings go\n"
              "to stderr, each starting 'streamlife: error: <kind>:', then a summary at exit.\n"
              "Equivalent: LD_PRELOAD=<lib>/libstreamlife_rt.so STREAMLIFE_OPTIONS=name=value:... CMD\n"
              "\n"
              "options (STREAMLIFE_OPTIONS names use '_' for '-'):\n%s"
              "  --help                      print this help\n"
              "\n"
              "exit status: CMD's own, or --error-exitcode's when something was found;\n"
              "2 usage error, 126 CMD not executable, 127 CMD not found\n",
              rt::renderFlagHelp().c_str());
}

/// <prefix> of <prefix>/bin/streamlife.
std::string installPrefix() {
  char Self[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
  if (N <= 0)
    return "";
  Self[N] = 0;
  std::string Dir(Self);
  Dir = Dir.substr(0, Dir.rfind('/'));
  return Dir.substr(0, Dir.rfind('/'));
}

/// The runtime library next to this executable: <prefix>/bin/streamlife ->
/// <prefix>/lib/libstreamlife_rt.so; $STREAMLIFE_RT_LIBRARY overrides it.
std::string runtimeLibraryPath() {
  if (const char *Env = std::getenv("STREAMLIFE_RT_LIBRARY"))
    return Env;
  std::string Prefix = installPrefix();
  return Prefix.empty() ? "" : Prefix + "/lib/libstreamlife_rt.so";
}

/// Python programs report Python call sites: <prefix>/share/streamlife/python
/// holds a sitecustomize module that installs the validator's Python tracer
/// (runtime-validator/python/sitecustomize.py). It goes first on PYTHONPATH;
/// it imports the next sitecustomize on the path itself.
void addPythonHook() {
  std::string Dir = installPrefix() + "/share/streamlife/python";
  if (access((Dir + "/sitecustomize.py").c_str(), R_OK) != 0)
    return;
  std::string Path = Dir;
  if (const char *Existing = std::getenv("PYTHONPATH"); Existing && *Existing)
    Path += ":" + std::string(Existing);
  setenv("PYTHONPATH", Path.c_str(), 1);
}

} // namespace

int runRunCommand(int Argc, const char **Argv) {
  rt::Options Parsed;
  std::string OptionText;
  int I = 1;
  for (; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (Arg == "--") {
      ++I;
      break;
    }
    if (Arg == "--help" || Arg == "-h") {
      printHelp();
      return ExitClean;
    }
    if (Arg.size() < 3 || Arg.compare(0, 2, "--") != 0) {
      if (Arg[0] == '-')
        return usageError("unknown option '" + Arg + "'");
      break; // the command starts here ('--' is optional before it)
    }
    std::string Name = Arg.substr(2), Value;
    bool HasValue = false;
    if (std::size_t Eq = Name.find('='); Eq != std::string::npos) {
      Value = Name.substr(Eq + 1);
      Name = Name.substr(0, Eq);
      HasValue = true;
    }
    for (char &C : Name)
      if (C == '-')
        C = '_';
    const rt::OptionInfo *Info = rt::findOption(Name);
    if (!Info)
      return usageError("unknown option '" + Arg + "'");
    if (!HasValue) {
      if (Info->Type == rt::OptionType::Bool) {
        Value = "1";
      } else {
        if (I + 1 >= Argc)
          return usageError("option '" + Arg + "' needs a value");
        Value = Argv[++I];
      }
    }
    if (Value.find(':') != std::string::npos)
      return usageError("the value of '" + Arg + "' must not contain ':' (STREAMLIFE_OPTIONS separator)");
    std::string Error;
    if (Name == "suppressions") {
      // Checked here, so that a bad file stops before the program runs; made
      // absolute, because the program may change its directory.
      rt::Suppressions Rules;
      if (!Rules.load(Value, Error))
        return usageError(Error);
      if (char *Absolute = realpath(Value.c_str(), nullptr)) {
        Value = Absolute;
        std::free(Absolute);
      }
    }
    if (!rt::setOption(Parsed, Name, Value, Error))
      return usageError(Error);
    OptionText += (OptionText.empty() ? "" : ":") + Name + "=" + Value;
  }
  if (I >= Argc)
    return usageError("no command to run (usage: streamlife run [OPTIONS] -- CMD ARGS...)");

  std::string Library = runtimeLibraryPath();
  if (Library.empty() || access(Library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "streamlife run: error: runtime library '%s' not found (set STREAMLIFE_RT_LIBRARY)\n",
                 Library.c_str());
    return ExitUsage;
  }
  std::string Preload = Library;
  if (const char *Existing = std::getenv("LD_PRELOAD"); Existing && *Existing)
    Preload = std::string(Existing) + ":" + Library;
  setenv("LD_PRELOAD", Preload.c_str(), 1);
  addPythonHook();
  // Flags come after what the environment already set, so they win.
  if (const char *Existing = std::getenv("STREAMLIFE_OPTIONS"); Existing && *Existing)
    OptionText = OptionText.empty() ? std::string(Existing) : std::string(Existing) + ":" + OptionText;
  setenv("STREAMLIFE_OPTIONS", OptionText.c_str(), 1);

  std::vector<char *> Args;
  for (int J = I; J < Argc; ++J)
    Args.push_back(const_cast<char *>(Argv[J]));
  Args.push_back(nullptr);
  std::fflush(nullptr);
  execvp(Args[0], Args.data());
  int Err = errno;
  if (Err == ENOENT || Err == ENOTDIR) {
    std::fprintf(stderr, "streamlife run: error: command not found: '%s'\n", Args[0]);
    return ExitCommandNotFound;
  }
  std::fprintf(stderr, "streamlife run: error: cannot execute '%s': %s\n", Args[0], std::strerror(Err));
  return ExitCannotExecute;
}

} // namespace streamlife
