//===- ProcessTally.h - findings per process, for `streamlife run` -*- C++ -*-===//
//
// `streamlife run` starts one command, but the validator attaches to every
// process of its tree (a bash or Python wrapper, torchrun and its ranks), and
// each process only knows its own findings. So the launcher creates a private
// tally file (mkstemp) and names it in STREAMLIFE_TALLY; every attached process
// that used CUDA appends one line each time its count changes (and at exit).
// After the command ends, the launcher reads the last line of each process
// and (1) prints one summary line per process when there were several, and
// (2) exits with --error-exitcode when any process found something, even if
// that process ended with _exit() or a wrapper shell's status hid it.
//
// Line format (tab-separated, one write(2) of < PIPE_BUF bytes, O_APPEND):
//   pid <TAB> findings <TAB> rank <TAB> command <NL>
// rank is "" when the process has none (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_SUPPORT_PROCESSTALLY_H
#define STREAMLIFE_SUPPORT_PROCESSTALLY_H

#include <string>
#include <vector>

namespace streamlife {

constexpr const char *TallyEnvironmentVariable = "STREAMLIFE_TALLY";

struct ProcessCount {
  int Pid = 0;
  unsigned long Findings = 0;
  std::string Rank;    ///< "" when none
  std::string Command; ///< the program's name (argv[0] without its folder)
};

/// This process: pid, rank from the launcher's environment, command name.
ProcessCount describeThisProcess(unsigned long Findings);

/// Appends P to the tally named by $STREAMLIFE_TALLY, if any. Never creates
/// the file and never follows a symlink; failures are ignored (the tally only
/// refines the launcher's summary).
void appendToTally(const ProcessCount &P);

/// For a warning every process of the tree would print alike (the validator
/// cannot attach: another CUPTI client, a stub libcuda), so that a shell
/// pipeline does not repeat it per process: true for the first process of the
/// launcher's tree to claim Text (recorded in the tally as pid 0, which
/// readTally skips), false for the rest; always true without a tally.
bool claimWarning(const std::string &Text);

/// The tally at Path: the last line of each pid, in order of first appearance.
std::vector<ProcessCount> readTally(const std::string &Path);

} // namespace streamlife

#endif
