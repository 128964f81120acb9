//===- PythonRunner.h - `streamlife check` on Python files -----*- C++ -*-===//
//
// Runs the Python front end (checks/python) on each .py file and turns its
// findings into the report model the formatters share with C++ findings.
// Per-line suppressions are the Python ones: a comment on the warning's line
// `# NOLINT`, `# NOLINT(streamlife-free-before-wait, ...)`, `# noqa`, or
// `# noqa: streamlife-free-before-wait, ...` (a trailing `*` globs), or
// `# NOLINTNEXTLINE(...)` on the line before.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_PYTHONRUNNER_H
#define STREAMLIFE_TOOL_CHECK_PYTHONRUNNER_H

#include "Finding.h"
#include "PythonCheck.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace streamlife::check {

/// The names of the checks the Python front end reports.
llvm::ArrayRef<llvm::StringRef> pythonCheckNames();

/// The project's settings for the Python front end that apply to \p Path,
/// from the .clang-tidy files of its folder and the folders above (as
/// clang-tidy reads them): `streamlife-python.DeviceModules` and
/// `streamlife-python.WaitBeforeFree`. A malformed
/// value is an error naming the entry.
llvm::Expected<python::PyCheckOptions> pythonOptionsFor(const std::string &Path);

/// Checks one Python file (absolute path). A file that cannot be read or is
/// not valid Python gets a one-line Failure ("line 3: invalid syntax").
FileResult checkPythonFile(const std::string &Path,
                           const python::PyCheckOptions &Options = {});

/// True when \p LineText (or \p PreviousLine, for NOLINTNEXTLINE) suppresses
/// \p CheckName.
bool isSuppressed(llvm::StringRef LineText, llvm::StringRef PreviousLine,
                  llvm::StringRef CheckName);

} // namespace streamlife::check

#endif
