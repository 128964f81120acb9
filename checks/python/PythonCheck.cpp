//===--- PythonCheck.cpp - streamlife -------------------------------------===//

#include "PythonCheck.h"

#include "Analysis.h"

#include <algorithm>

namespace streamlife::python {
namespace {

void analyze(PyCheckResult &Result) {
  if (auto Error = Result.Files->main().Source->syntaxError()) {
    Result.Syntax = *Error;
    return;
  }
  Result.Lowered = lowerPython(*Result.Files);
  const ir::Module &M = Result.Lowered.Module;
  core::Analyzer Analyzer(M);
  for (ir::FunctionId F : Result.Lowered.Checked)
    reportFindings(M, Analyzer.findings(F), Result.Diagnostics);
  for (const RecordStreamInLoop &Finding : Result.Lowered.RecordStreamInLoops)
    reportRecordStreamInLoop(Finding, Result.Diagnostics);
  std::stable_sort(Result.Diagnostics.begin(), Result.Diagnostics.end(),
                   [&](const PyDiagnostic &A, const PyDiagnostic &B) {
                     return M.site(A.Site).Order < M.site(B.Site).Order;
                   });
}

} // namespace

llvm::StringRef PyCheckResult::lineText(llvm::StringRef Path,
                                        unsigned Line) const {
  if (!Files)
    return {};
  for (const auto &File : Files->files())
    if (File->Source->path() == Path)
      return File->Source->lineText(Line);
  return {};
}

PyCheckResult checkPythonFile(const std::string &Path) {
  PyCheckResult Result;
  Result.Files = PyModuleSet::load(Path, Result.ReadError);
  if (Result.Files)
    analyze(Result);
  return Result;
}

PyCheckResult checkPythonText(std::string Path, std::string Text) {
  PyCheckResult Result;
  Result.Files = PyModuleSet::fromText(std::move(Path), std::move(Text));
  analyze(Result);
  return Result;
}

} // namespace streamlife::python
