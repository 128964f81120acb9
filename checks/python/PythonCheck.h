//===--- PythonCheck.h - streamlife -----------------------------*- C++ -*-===//
//
// The Python front end from file to findings: parse (tree-sitter), load the
// local modules it imports, lower everything into the IR, run the analysis
// core on the checked file's functions, word the findings.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONCHECK_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONCHECK_H

#include "PythonLowering.h"
#include "PythonModuleSet.h"
#include "PythonReporter.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace streamlife::python {

struct PyCheckResult {
  /// Set when the file cannot be read ("No such file or directory").
  std::string ReadError;
  /// Set when the file is not valid Python: nothing else is reported.
  std::optional<SyntaxError> Syntax;
  std::unique_ptr<PyModuleSet> Files;
  LoweredPython Lowered;
  /// Sorted by the warning's position.
  std::vector<PyDiagnostic> Diagnostics;

  /// The text of line \p Line of \p Path, if it is one of Files.
  llvm::StringRef lineText(llvm::StringRef Path, unsigned Line) const;
};

/// What a project configures for the Python front end.
struct PyCheckOptions {
  PyDeviceModules DeviceModules = PyDeviceModules::defaults();
  /// Every release is judged at the release ("wait before free, never
  /// after"), not at the next allocation that could reuse its block: for
  /// teams that enforce the invariant, and for programs run with PyTorch's
  /// `backend:cudaMallocAsync`, whose stream-ordered free may hand the
  /// bytes out at once.
  bool WaitBeforeFree = false;
};

PyCheckResult checkPythonFile(const std::string &Path,
                              const PyCheckOptions &Options = {});
/// The same for text in memory (the bench).
PyCheckResult checkPythonText(std::string Path, std::string Text,
                              const PyCheckOptions &Options = {});

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONCHECK_H
