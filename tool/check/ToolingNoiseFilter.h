//===- ToolingNoiseFilter.h - clang tooling's stray stderr lines -*- C++ -*-===//
//
// clang's tooling prints "Error while processing FILE." on standard error for
// every file with compile errors (ClangTool's error message, which
// runClangTidy leaves switched on): the errors themselves are reported with
// their summary line, so it is noise, and it carried the run's only absolute
// paths. While a file is checked, standard error goes to an unlinked
// temporary file; it is copied back afterwards without those lines. Should the
// check crash, the signal handler copies it back as it is, the stack trace
// included, before the process dies.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_TOOLINGNOISEFILTER_H
#define STREAMLIFE_TOOL_CHECK_TOOLINGNOISEFILTER_H

namespace streamlife::check {

class ToolingNoiseFilter {
public:
  /// Starts capturing standard error (nothing happens when it cannot).
  ToolingNoiseFilter();
  /// Stops, and writes what was captured minus clang tooling's lines.
  ~ToolingNoiseFilter();
  ToolingNoiseFilter(const ToolingNoiseFilter &) = delete;
  ToolingNoiseFilter &operator=(const ToolingNoiseFilter &) = delete;
};

/// Gives standard error back at once, with what was captured (for a path
/// that ends the process without unwinding, such as running out of memory).
/// Async-signal-safe.
void restoreCapturedStandardError();

} // namespace streamlife::check

#endif
