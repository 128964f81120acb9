//===- SharedReport.h - one JSON report for a whole process tree -*- C++ -*-===//
//
// Under `streamlife run --report r.json -- bash -c './app'` (or a Python
// launcher, or torchrun with its ranks) every process of the tree has the
// validator attached and would write r.json at exit, and the last to exit
// (usually the wrapper, which found nothing) would win. Instead:
//   * a process that used no CUDA and found nothing writes no report at all;
//   * the processes of one run merge into the one file: each rewrite takes an
//     exclusive flock on the report's folder, reads the file, keeps the other
//     processes' parts when the file belongs to the same run (STREAMLIFE_RUN_ID,
//     set by the launcher or the first attached process and inherited by its
//     children), replaces its own part, and writes the result through
//     support/AtomicFile (mkstemp + rename, never through a symlink);
//   * a file from an earlier run (another run id, or not our format) is
//     replaced, not merged.
// A part is one program image: pid and image (support/ProcessTally.h's id,
// new at each exec()), so a process that execs adds the new image's part and
// keeps the old image's findings. '%p' in the report name still gives one
// file per process.
//
// The file is JSON with one element per line, so that merging needs no JSON
// parser in the preloaded library (it only ever reads files it wrote):
//   {"format":"streamlife-run-report","version":2,"run":"ID",
//   "findings":[
//   {"pid":P,"image":"I","rank":"R",<finding>},   <- one per line
//   ],
//   "notes":[
//   "text",
//   ],
//   "processes":[
//   {"pid":P,"image":"I","rank":"R","command":"app","findings":N},
//   ],
//   "summary":{"findings":TOTAL,"processes":COUNT}}
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_SHAREDREPORT_H
#define STREAMLIFE_RT_REPORT_SHAREDREPORT_H

#include <string>
#include <vector>

namespace streamlife {
namespace rt {

constexpr const char *RunIdEnvironmentVariable = "STREAMLIFE_RUN_ID";

/// This process's run id: $STREAMLIFE_RUN_ID, or a fresh one that is then
/// exported so that the processes this one starts share it.
std::string currentRunId();

/// This process's part of the report.
struct ReportPart {
  std::string RunId;
  int Pid = 0;
  std::string Image; ///< ProcessCount::Image: the program image within the pid
  std::string Rank;
  std::string Command;
  std::vector<std::string> FindingObjects; ///< formatFindingJson, one line each
  std::vector<std::string> Notes;
};

/// Merges Part into the report at Path (see above). False with a one-line
/// reason in Error.
bool mergeIntoReport(const std::string &Path, const ReportPart &Part, std::string &Error);

/// The whole document for Existing (the file's text, possibly empty or
/// foreign) with Part's process replaced. Pure; exposed for tests.
std::string mergedReportText(const std::string &Existing, const ReportPart &Part);

} // namespace rt
} // namespace streamlife

#endif
