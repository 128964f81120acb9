//===- LogFile.h - where the validator writes: stderr or log_path ----*- C++ -*-===//
//
// The sanitizers' log_path: with log_path=PATH every line the validator prints
// in a process (findings, notes, summaries, statistics) goes to PATH.<pid>
// instead of standard error, so that the processes of a run (torchrun's
// ranks, a test runner's workers) each get a file and the program's own
// stderr stays its own. "stderr" (also the empty default) and "stdout" name
// those streams.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_LOGFILE_H
#define STREAMLIFE_RT_REPORT_LOGFILE_H

#include <cstdio>
#include <string>

namespace streamlife {
namespace rt {

/// Where the validator writes in this process: stderr, unless
/// setValidatorLog chose another stream or a file, which is opened here, at
/// the first line written (a process that prints nothing leaves no file, as
/// with the sanitizers). The file is created or truncated, never opened
/// through a symbolic link, and must be a regular file; otherwise one line on
/// stderr says why and the validator writes to stderr.
std::FILE *validatorLog();

/// Chooses the stream for log_path: PATH.<pid> (a relative PATH is taken from
/// the current directory now), "stdout", or "stderr" and "" for stderr.
void setValidatorLog(const std::string &LogPath);

/// The file name openValidatorLog uses for LogPath in process Pid; empty for
/// the standard streams.
std::string logFileName(const std::string &LogPath, int Pid);

} // namespace rt
} // namespace streamlife

#endif
