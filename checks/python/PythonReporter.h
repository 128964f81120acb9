//===--- PythonReporter.h - streamlife --------------------------*- C++ -*-===//
//
// The Python front end's side of the core's wording (core/Wording.h): the
// findings' stories as plain (site, text) pairs, since Python findings do not
// go through clang's diagnostics engine. The sentences are the core's, the
// same the clang-tidy checks print.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONREPORTER_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONREPORTER_H

#include "Findings.h"
#include "PythonLowering.h"

#include <string>
#include <vector>

namespace streamlife::python {

/// One warning with the notes that tell its story, in order.
struct PyDiagnostic {
  std::string Check; ///< "streamlife-free-before-wait"
  ir::SiteId Site = ir::NoId;
  std::string Message;
  std::vector<std::pair<ir::SiteId, std::string>> Notes;
};

/// Appends the warnings of \p Findings (one function's) to \p Out. A
/// free-before-wait explained by a stale wait is reported once, by
/// missing-consumer-event, as with the clang-tidy checks all enabled.
void reportFindings(const ir::Module &M, const core::FunctionFindings &Findings,
                    std::vector<PyDiagnostic> &Out);

void reportRecordStreamInLoop(const RecordStreamInLoop &Finding,
                              std::vector<PyDiagnostic> &Out);

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONREPORTER_H
