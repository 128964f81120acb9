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
//   pid <TAB> image <TAB> findings <TAB> rank <TAB> command <NL>
// rank is "" when the process has none (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK).
// image tells the program images of one pid apart: a process that exec()s
// keeps its pid, and the new image's count must not replace what the old
// one found (its findings were printed; the exit status must keep them).
//
// A nested `streamlife run` (a wrapper script that runs its own) must not
// hide the inner findings from the outer launcher: STREAMLIFE_TALLY is a
// ':'-separated list, the innermost launcher's file first, and a process
// appends to each. The launcher's file has room reserved beforehand (a full
// $TMPDIR must not drop --error-exitcode), and a process that still cannot
// append says so.
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
  std::string Image;   ///< this program image's id (hex), new at each exec()
  unsigned long Findings = 0;
  std::string Rank;    ///< "" when none
  std::string Command; ///< the program's name (argv[0] without its folder)
};

/// This process: pid, rank from the launcher's environment, command name.
ProcessCount describeThisProcess(unsigned long Findings);

/// Appends P to each tally named by $STREAMLIFE_TALLY, if any. Never creates
/// a file and never follows a symlink. False when a tally that is there could
/// not be appended to (the launcher will not count these findings).
bool appendToTally(const ProcessCount &P);

/// Creates a private, unpredictable tally file in Dir with room reserved for
/// the lines of a run; its path, or "" with a reason.
std::string createTallyFile(const std::string &Dir, std::string &Error);

/// The value of STREAMLIFE_TALLY for a launcher whose own tally is Path:
/// Path first, then the tallies of launchers around this one (Inherited).
std::string tallyList(const std::string &Path, const char *Inherited);

/// For a warning every process of the tree would print alike (the validator
/// cannot attach: another CUPTI client, a stub libcuda), so that a shell
/// pipeline does not repeat it per process: true for the first process of the
/// launcher's tree to claim Text (recorded in the tally as pid 0, which
/// readTally skips), false for the rest; always true without a tally.
bool claimWarning(const std::string &Text);

/// The tally at Path: the last line of each program image (pid and image), in
/// order of first appearance.
std::vector<ProcessCount> readTally(const std::string &Path);

} // namespace streamlife

#endif
