//===- RunCommand.cpp - `streamlife run [OPTIONS] -- CMD ARGS...` ----------===//
//
// Runs a command under the runtime validator: LD_PRELOAD gets
// libstreamlife_rt.so (appended to an existing LD_PRELOAD),
// STREAMLIFE_OPTIONS the flags, PYTHONPATH the validator's sitecustomize module
// (Python call sites); Supervisor.cpp then runs the command as a child
// and turns what every process of its tree found into our exit status. The flags are
// generated from the validator's option table (runtime-validator/config/
// Options.inc), so `--help` (RunCommandDoc.cpp) and STREAMLIFE_OPTIONS never
// disagree.
//
// Exit codes of the launcher itself: 2 usage error (one line on stderr),
// 126 command found but not executable, 127 command not found (as shells do).
//
//===----------------------------------------------------------------------===//
#include "../Commands.h"
#include "../InstallLayout.h"

#include "Supervisor.h"
#include "../cli/Renderers.h"
#include "config/Options.h"
#include "config/Suppressions.h"
#include "support/PrivatePaths.h"

#include <sys/stat.h>
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

int usageError(const std::string &Message) {
  std::fprintf(stderr, "streamlife run: error: %s (try 'streamlife run --help')\n", Message.c_str());
  return ExitUsage;
}

void printHelp() { std::fputs(cli::renderHelp(runCommandDoc()).c_str(), stdout); }

/// Why the processes could not write the file an option names (the report,
/// the timeline, the log), or "": said before the program runs, since they
/// find out only at their end, after a run of hours whose results would then
/// be lost. Only the directory is asked (it exists and this user may create
/// files in it) and, when Path is the file itself (not log_path's prefix of
/// PATH.<pid>), a directory named as the file; the processes' own writes
/// still refuse links, FIFOs and a full disk (support/AtomicFile.h).
std::string outputPathProblem(const std::string &Path, bool PathIsTheFile) {
  struct stat Info;
  if (PathIsTheFile && stat(Path.c_str(), &Info) == 0 && S_ISDIR(Info.st_mode))
    return "'" + Path + "' is a directory; name a file";
  std::string::size_type Slash = Path.rfind('/');
  std::string Dir = Slash == std::string::npos ? "." : Slash == 0 ? "/" : Path.substr(0, Slash);
  // A directory named per process ('%p') does not exist yet by design.
  if (Dir.find('%') != std::string::npos)
    return "";
  if (stat(Dir.c_str(), &Info) != 0)
    return "cannot write '" + Path + "': " + std::strerror(errno);
  if (!S_ISDIR(Info.st_mode))
    return "cannot write '" + Path + "': " + std::strerror(ENOTDIR);
  if (access(Dir.c_str(), W_OK | X_OK) != 0)
    return "cannot write '" + Path + "': " + std::strerror(errno);
  return "";
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

/// The runtime library that came with this executable (InstallLayout.h);
/// $STREAMLIFE_RT_LIBRARY overrides it.
std::string runtimeLibraryPath() {
  if (const char *Env = std::getenv("STREAMLIFE_RT_LIBRARY"))
    return Env;
  return findSupportFile("libstreamlife_rt.so");
}

/// Python programs report Python call sites: <prefix>/share/streamlife/python
/// holds a sitecustomize module that installs the validator's Python tracer
/// (runtime-validator/python/sitecustomize.py). It goes first on PYTHONPATH;
/// it imports the next sitecustomize on the path itself. Every Python
/// program of the run executes it, so it is added only when nobody but
/// root, this user or the owner of this executable can change it or a folder
/// above it (support/PrivatePaths.h); otherwise Python call sites are lost,
/// and said to be.
void addPythonHook() {
  std::string Dir = installPrefix() + "/share/streamlife/python";
  std::string Hook = Dir + "/sitecustomize.py";
  if (access(Hook.c_str(), R_OK) != 0)
    return;
  struct stat Self;
  unsigned Installer = stat("/proc/self/exe", &Self) == 0 ? Self.st_uid : 0;
  std::string Why = whyNotTrustedLike(Dir, Installer);
  if (Why.empty())
    Why = whyNotTrustedLike(Hook, Installer);
  if (!Why.empty()) {
    std::fprintf(stderr,
                 "streamlife run: warning: not loading the Python hook from '%s': %s; Python "
                 "programs run without Python call sites\n",
                 Dir.c_str(), Why.c_str());
    return;
  }
  std::string Path = Dir;
  if (const char *Existing = std::getenv("PYTHONPATH"); Existing && *Existing)
    Path += ":" + std::string(Existing);
  setenv("PYTHONPATH", Path.c_str(), 1);
}

} // namespace

int runRunCommand(int Argc, const char **Argv) {
  rt::Options Parsed;
  std::string OptionText;
  // With a '--' on the line, every word before it belongs to the options, so a
  // BOOL flag may take the next word as its value (`--api-stats true -- ./app`
  // must not run `true`). Without one, the command starts at the first word
  // that is not an option, and a BOOL takes its value only as --flag=BOOL.
  bool HasDoubleDash = false;
  for (int J = 1; J < Argc && !HasDoubleDash; ++J)
    HasDoubleDash = std::strcmp(Argv[J], "--") == 0;
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
      if (Arg.empty() || Arg[0] == '-')
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
    std::string Flag = "--" + Name;
    for (char &C : Name)
      if (C == '-')
        C = '_';
    const rt::OptionInfo *Info = rt::findOption(Name);
    if (!Info)
      return usageError("unknown option '" + Flag + "'");
    if (!HasValue) {
      bool NextIsWord = I + 1 < Argc && std::strcmp(Argv[I + 1], "--") != 0 && Argv[I + 1][0] != '-';
      if (Info->Type == rt::OptionType::Bool) {
        Value = "1";
        if (HasDoubleDash && NextIsWord)
          Value = Argv[++I];
      } else {
        if (!NextIsWord)
          return usageError("option '" + Flag + "' needs a value");
        Value = Argv[++I];
      }
    }
    if (Value.find(':') != std::string::npos)
      return usageError("the value of '" + Flag + "' must not contain ':' (STREAMLIFE_OPTIONS separator)");
    // Every process of the tree writes into the one report (and its own log
    // file and timeline), wherever it has changed directory to: name them
    // from here.
    if ((Name == "report" || Name == "timeline" ||
         (Name == "log_path" && Value != "stderr" && Value != "stdout")) &&
        !Value.empty() && Value[0] != '/') {
      char Cwd[PATH_MAX];
      if (getcwd(Cwd, sizeof(Cwd)) && !std::strchr(Cwd, ':'))
        Value = std::string(Cwd) + "/" + Value;
    }
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

  // An inherited STREAMLIFE_OPTIONS is checked here, once, like the flags:
  // otherwise every process of the command would print the same error.
  rt::Options Effective;
  if (const char *Existing = std::getenv("STREAMLIFE_OPTIONS"); Existing && *Existing) {
    std::vector<std::string> Errors;
    if (!rt::parseOptionString(Effective, Existing, Errors))
      return usageError("STREAMLIFE_OPTIONS: " + Errors.front());
  }
  {
    std::vector<std::string> Ignored;
    rt::parseOptionString(Effective, OptionText, Ignored);
  }

  struct OutputFile {
    const char *Flag;
    std::string Path;
    bool PathIsTheFile;
  };
  for (const OutputFile &Out : {OutputFile{"--report", Effective.report, true},
                                OutputFile{"--timeline", Effective.timeline, true},
                                OutputFile{"--log-path", Effective.log_path, false}}) {
    if (Out.Path.empty() || Out.Path == "stderr" || Out.Path == "stdout")
      continue;
    if (std::string Problem = outputPathProblem(Out.Path, Out.PathIsTheFile); !Problem.empty()) {
      std::fprintf(stderr, "streamlife run: error: %s: %s\n", Out.Flag, Problem.c_str());
      return ExitUsage;
    }
  }

  std::string Library = runtimeLibraryPath();
  if (Library.empty() || access(Library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "streamlife run: error: runtime library '%s' not found (set STREAMLIFE_RT_LIBRARY)\n",
                 Library.c_str());
    return ExitUsage;
  }
  // ld.so splits LD_PRELOAD at spaces and colons and has no escape: such a
  // path would silently not load, and the program would run unvalidated.
  if (Library.find_first_of(" :\t\n") != std::string::npos) {
    std::fprintf(stderr,
                 "streamlife run: error: the runtime library path '%s' contains a space or ':', which "
                 "LD_PRELOAD cannot express (install streamlife under another path, or set "
                 "STREAMLIFE_RT_LIBRARY to a link without them)\n",
                 Library.c_str());
    return ExitUsage;
  }
  std::string Preload = Library;
  if (const char *Existing = std::getenv("LD_PRELOAD"); Existing && *Existing) {
    // A nested `streamlife run` finds the library already there.
    std::string List = std::string(":") + Existing + ":";
    Preload = List.find(":" + Library + ":") != std::string::npos ? std::string(Existing)
                                                                   : std::string(Existing) + ":" + Library;
  }
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
  SupervisorSettings Settings;
  Settings.ErrorExitcode = static_cast<int>(Effective.error_exitcode);
  Settings.PrintSummary = Effective.print_summary;
  Settings.ReportPath = Effective.report;
  Settings.TimelinePath = Effective.timeline;
  return superviseCommand(Args, Settings);
}

} // namespace streamlife
