//===- ReportOutput.h - where `streamlife check` writes its report -*- C++ -*-===//
//
// Standard output, or the file of -o/--output. The file is never opened in
// place: the report goes to a temporary beside it (support/AtomicFile.h) that
// is renamed over it only once the whole report is written, so a run that
// fails early (a usage error, a broken database) leaves a previous report
// intact, and the target can never be half written. An output that is one of
// the inputs (a source given on the command line, the compile database), or
// any existing C/C++/CUDA source or header, is refused: `-o a.cu a.cu` and a
// shell glob after -o (`-o src/*.cu`) would otherwise replace a source file.
//
// Standard output is checked too: a write error there (closed, /dev/full, a
// broken pipe with SIGPIPE ignored) is an error (exit 2), not the silent
// "exit 1 = findings" that LLVM's fatal handler would give at exit.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_REPORTOUTPUT_H
#define STREAMLIFE_TOOL_CHECK_REPORTOUTPUT_H

#include "support/AtomicFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace streamlife::check {

class ReportOutput {
public:
  /// Refuses a target that cannot be replaced safely and creates the
  /// temporary (so an unwritable folder fails before a long analysis). With no
  /// path, the report goes to standard output.
  bool open(const std::optional<std::string> &Path, std::string &Error);
  /// Refuses an output that is the same file as one of Inputs (same device and
  /// inode, so links and other spellings count), or an existing source file.
  bool checkNotAnInput(llvm::ArrayRef<std::string> Inputs, std::string &Error) const;

  llvm::raw_ostream &stream();
  /// The temporary the report is written to (removed on a signal), if any.
  std::optional<std::string> temporaryPath() const;
  /// Flushes; for a file, renames the temporary over the target. False with
  /// a one-line Error ("cannot write 'FILE': ...") when anything failed.
  bool finish(std::string &Error);

private:
  std::optional<std::string> Path;
  AtomicFile File;
  std::unique_ptr<llvm::raw_fd_ostream> FileStream;
};

/// Flushes standard output and reports (once) whether any write to it failed,
/// clearing LLVM's error flag so that it does not abort at exit. Error is one
/// line ("cannot write to standard output: Broken pipe").
bool standardOutputIsHealthy(std::string &Error);

} // namespace streamlife::check

#endif
