//===- Supervisor.cpp - run the command and account for its process tree ---===//
#include "Supervisor.h"

#include "../Commands.h"
#include "support/ProcessTally.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace streamlife {
namespace {

constexpr int ExitCannotExecute = 126;
constexpr int ExitCommandNotFound = 127;

volatile sig_atomic_t ChildPid = 0;

/// Termination requests aimed at the launcher (kill, a CI timeout) go to the
/// command; it decides how to end, and we report how it did.
void relaySignal(int Signal) {
  if (ChildPid > 0)
    kill(ChildPid, Signal);
}

/// A private, unpredictable file the processes of the tree append to: in
/// $TMPDIR, else in /tmp (a TMPDIR that is missing, a file or full must not
/// silently drop --error-exitcode and the summary). "" when neither works,
/// with a warning, which is an error when --error-exitcode depends on it.
std::string createTally(const SupervisorSettings &Settings, bool &Failed) {
  Failed = false;
  const char *TmpDir = std::getenv("TMPDIR");
  std::vector<std::string> Dirs;
  // ':' separates the tallies of nested launchers.
  if (TmpDir && *TmpDir && !std::strchr(TmpDir, ':'))
    Dirs.push_back(TmpDir);
  if (Dirs.empty() || Dirs.front() != "/tmp")
    Dirs.push_back("/tmp");
  std::string Why;
  for (const std::string &Dir : Dirs) {
    std::string Error;
    std::string Path = createTallyFile(Dir, Error);
    if (!Path.empty()) {
      if (!Why.empty())
        std::fprintf(stderr, "streamlife run: warning: %s; using /tmp\n", Why.c_str());
      return Path;
    }
    if (Why.empty())
      Why = "cannot create the findings tally in '" + Dir + "' (TMPDIR): " + Error;
    else
      Why += ", nor in '" + Dir + "': " + Error;
  }
  if (Settings.ErrorExitcode != 0) {
    std::fprintf(stderr,
                 "streamlife run: error: %s; --error-exitcode could not see the findings of the "
                 "command's processes (set TMPDIR to a writable folder)\n",
                 Why.c_str());
    Failed = true;
  } else {
    std::fprintf(stderr, "streamlife run: warning: %s; no per-process summary\n", Why.c_str());
  }
  return {};
}

const char *plural(unsigned long N) { return N == 1 ? "" : "s"; }

void printPerProcessSummary(const std::vector<ProcessCount> &Processes) {
  unsigned long Total = 0;
  for (const ProcessCount &P : Processes) {
    Total += P.Findings;
    std::string Who = "pid " + std::to_string(P.Pid);
    if (!P.Rank.empty())
      Who = "rank " + P.Rank + ", " + Who;
    if (!P.Command.empty())
      Who += ", " + P.Command;
    std::fprintf(stderr, "streamlife: summary: %s: %lu finding%s\n", Who.c_str(), P.Findings,
                 plural(P.Findings));
  }
  std::fprintf(stderr, "streamlife: summary: %lu finding%s in %zu processes\n", Total,
               plural(Total), Processes.size());
}

[[noreturn]] void dieOfSignal(int Signal) {
  // No second core file: the command already dumped one if it was to.
  struct rlimit NoCore = {0, 0};
  setrlimit(RLIMIT_CORE, &NoCore);
  signal(Signal, SIG_DFL);
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, Signal);
  sigprocmask(SIG_UNBLOCK, &Set, nullptr);
  raise(Signal);
  _exit(128 + Signal);
}

} // namespace

int superviseCommand(std::vector<char *> &Args, const SupervisorSettings &Settings) {
  bool Failed = false;
  std::string Tally = createTally(Settings, Failed);
  if (Failed)
    return ExitUsage;
  // Under another `streamlife run` (a wrapper script that runs its own), the
  // processes report to both launchers.
  if (!Tally.empty())
    setenv(TallyEnvironmentVariable,
           tallyList(Tally, std::getenv(TallyEnvironmentVariable)).c_str(), 1);
  std::fflush(nullptr);
  pid_t Pid = fork();
  if (Pid < 0) {
    std::fprintf(stderr, "streamlife run: error: cannot start '%s': %s\n", Args[0], std::strerror(errno));
    if (!Tally.empty())
      unlink(Tally.c_str());
    return ExitUsage;
  }
  if (Pid == 0) {
    execvp(Args[0], Args.data());
    int Err = errno;
    if (Err == ENOENT || Err == ENOTDIR) {
      std::fprintf(stderr, "streamlife run: error: command not found: '%s'\n", Args[0]);
      _exit(ExitCommandNotFound);
    }
    std::fprintf(stderr, "streamlife run: error: cannot execute '%s': %s\n", Args[0], std::strerror(Err));
    _exit(ExitCannotExecute);
  }
  ChildPid = Pid;
  // Ctrl-C and Ctrl-\ reach the whole foreground group, the command included;
  // the launcher waits for the command's answer instead of dying first.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  for (int Signal : {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM})
    signal(Signal, relaySignal);

  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  std::vector<ProcessCount> Processes;
  if (!Tally.empty()) {
    Processes = readTally(Tally);
    unlink(Tally.c_str());
  }
  unsigned long Findings = 0;
  for (const ProcessCount &P : Processes)
    Findings += P.Findings;
  if (Settings.PrintSummary && Processes.size() > 1)
    printPerProcessSummary(Processes);
  // A report was asked for and no process wrote one (no CUDA driver, the
  // program never reached CUDA, the validator could not attach): say so
  // rather than leave a CI job to find the file missing.
  if (!Settings.ReportPath.empty() && !Tally.empty() && Processes.empty())
    std::fprintf(stderr,
                 "streamlife run: note: no process of the command used CUDA under the validator, "
                 "so no report was written to '%s' (--verbosity=1 says why a process was not "
                 "attached)\n",
                 Settings.ReportPath.c_str());

  if (WIFSIGNALED(Status))
    dieOfSignal(WTERMSIG(Status));
  int Code = WIFEXITED(Status) ? WEXITSTATUS(Status) : 1;
  if (Settings.ErrorExitcode != 0 && Findings > 0)
    return Settings.ErrorExitcode;
  // By default a finding does not fail the program (as with UBSan): a CI job
  // that passes with findings must at least have been told why.
  if (Findings > 0 && Code == 0)
    std::fprintf(stderr,
                 "streamlife run: note: exit status 0 although %lu finding%s %s reported: "
                 "--error-exitcode N makes the run fail on findings (e.g. in CI)\n",
                 Findings, plural(Findings), Findings == 1 ? "was" : "were");
  return Code;
}

} // namespace streamlife
