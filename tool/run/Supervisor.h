//===- Supervisor.h - run the command and account for its process tree -*- C++ -*-===//
//
// `streamlife run` used to exec the command, so its exit status was the
// command's: a wrapper shell's status hid its CUDA child's --error-exitcode,
// and a program that ended with _exit() skipped it. Now the launcher stays as
// the parent: it creates the tally file (support/ProcessTally.h), starts the
// command, relays termination signals to it, waits, and then
//   * prints one summary line per process that used CUDA when there were
//     several (and a total), so every torchrun rank is accounted for;
//   * exits with --error-exitcode when any process found something and the
//     command exited normally;
//   * otherwise exits with the command's status, or dies of the command's
//     signal (so a shell sees 139 for a crash, as without the launcher);
//   * closes the timelines (--timeline) of processes that died before they
//     finished theirs, so that no half-written trace is left behind.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_RUN_SUPERVISOR_H
#define STREAMLIFE_TOOL_RUN_SUPERVISOR_H

#include <string>
#include <vector>

namespace streamlife {

struct SupervisorSettings {
  int ErrorExitcode = 0; ///< 0: keep the command's status
  bool PrintSummary = true;
  std::string ReportPath; ///< --report, to say when nothing wrote it
  /// --timeline (absolute, '%p' for the process id): a trace a process left
  /// unfinished (it died before its exit handlers) is closed here.
  std::string TimelinePath;
};

/// Runs Args (null-terminated, Args[0] looked up in PATH) with the current
/// environment; returns the launcher's exit status (or does not return when
/// the command died of a signal, which is re-raised).
int superviseCommand(std::vector<char *> &Args, const SupervisorSettings &Settings);

} // namespace streamlife

#endif
