//===--- FreeBeforeWaitCheck.cpp - streamlife ---------------------------===//

#include "FreeBeforeWaitCheck.h"
#include "LifetimeReporter.h"
#include "QueuePopOrder.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

namespace clang {
namespace tidy {
namespace streamlife {

void FreeBeforeWaitCheck::check(
    const ast_matchers::MatchFinder::MatchResult &Result) {
  LifetimeCheckBase::check(Result);
  // Keepalive queues: entries in containers are not followed by the
  // dataflow (a store is an escape); their pops are checked against the
  // entries' events here.
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  if (!Function || Function->isTemplated() || Function->isDependentContext())
    return;
  for (const QueuePopFinding &Finding :
       findUnorderedQueuePops(Function, *Result.Context))
    reportQueuePop(*this, Finding);
}

void FreeBeforeWaitCheck::reportFindings(const FunctionDecl &Function,
                                   const TranslationUnitIR &Unit,
                                   const core::FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this, Unit, &Function);
  for (const auto &Finding : Findings.FreeBeforeWait)
    if (Finding.ExplainedByStaleWaits.empty() || !StaleEventsReportedElsewhere)
      Reporter.report(Finding);
  for (const auto &Finding : Findings.HandOff)
    Reporter.report(Finding);
  // A limit of the analysis is said once, by this check.
  for (const auto &Limit : Findings.Limits)
    Reporter.report(Limit);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
