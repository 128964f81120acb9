//===--- PythonCheck.cpp - streamlife -------------------------------------===//

#include "PythonCheck.h"

#include "Analysis.h"

#include <algorithm>
#include <cassert>

namespace streamlife::python {
namespace {

void analyze(PyCheckResult &Result, const PyCheckOptions &Options) {
  if (auto Error = Result.Files->main().Source->syntaxError()) {
    Result.Syntax = *Error;
    return;
  }
  Result.Lowered = lowerPython(*Result.Files);
  const ir::Module &M = Result.Lowered.Module;
  core::AnalysisOptions Analysis;
  Analysis.WaitBeforeFree = Options.WaitBeforeFree;
  core::Analyzer Analyzer(M, Analysis);
  for (ir::FunctionId F : Result.Lowered.Checked) {
    size_t First = Result.Diagnostics.size();
    reportFindings(M, Analyzer.findings(F), Result.Diagnostics);
    // Every operation the lowering emits has a site, so every finding has
    // one; should one ever lack it, it is reported at its function rather
    // than dropped or left without a place.
    for (size_t I = First; I < Result.Diagnostics.size(); ++I) {
      assert(Result.Diagnostics[I].Site != ir::NoId && "a finding without a site");
      if (Result.Diagnostics[I].Site == ir::NoId)
        Result.Diagnostics[I].Site = M.Functions[F].Site;
    }
  }
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

PyCheckResult checkPythonFile(const std::string &Path,
                              const PyCheckOptions &Options) {
  PyCheckResult Result;
  Result.Files =
      PyModuleSet::load(Path, Result.ReadError, Options.DeviceModules);
  if (Result.Files)
    analyze(Result, Options);
  return Result;
}

PyCheckResult checkPythonText(std::string Path, std::string Text,
                              const PyCheckOptions &Options) {
  PyCheckResult Result;
  Result.Files = PyModuleSet::fromText(std::move(Path), std::move(Text),
                                       Options.DeviceModules);
  analyze(Result, Options);
  return Result;
}

} // namespace streamlife::python
