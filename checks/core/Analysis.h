//===--- Analysis.h - streamlife --------------------------------*- C++ -*-===//
//
// The entry point of the analysis core: the fixpoint over a function's IR
// blocks, summaries of the functions it calls (computed callee first, with
// an explicit worklist: no recursion proportional to the input), and the
// diagnose pass that turns the fixpoint into findings.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_ANALYSIS_H
#define STREAMLIFE_CHECKS_CORE_ANALYSIS_H

#include "Findings.h"
#include "LifetimeLattice.h"
#include "StreamIR.h"
#include <memory>
#include <vector>

namespace streamlife {
namespace core {

struct AnalysisOptions {
  /// A guard against a transfer bug, not a precision knob: the lattice has
  /// finite height and the transfer is monotone, so the fixpoint ends long
  /// before this many block visits per block. Hitting it gives a LimitNote.
  unsigned MaxVisitsPerBlock = 10000;
  /// Caching releases are judged at the release like every other ("wait
  /// before free, never after"), not at the next reuse opportunity.
  bool WaitBeforeFree = false;
};

/// Analyses the functions of one Module on demand. The Module may grow
/// between calls (a front end lowering more functions); results already
/// computed stay valid.
class Analyzer {
public:
  explicit Analyzer(const ir::Module &M, AnalysisOptions Options = {})
      : M(M), Options(Options) {}

  /// The findings of \p F, analysing (and summarising) every function it
  /// calls first.
  const FunctionFindings &findings(ir::FunctionId F);
  /// \p F's summary (its exit state), or null while it is being computed.
  const LifetimeState *summary(ir::FunctionId F);

private:
  struct Result {
    enum StatusTy : uint8_t { NotStarted, InProgress, Done } Status = NotStarted;
    LifetimeState Exit;
    FunctionFindings Findings;
  };
  void ensure(ir::FunctionId F);
  void run(ir::FunctionId F);
  Result &result(ir::FunctionId F);

  const ir::Module &M;
  AnalysisOptions Options;
  std::vector<std::unique_ptr<Result>> Results;
};

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_ANALYSIS_H
