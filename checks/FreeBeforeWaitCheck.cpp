//===--- FreeBeforeWaitCheck.cpp - streamlife ---------------------------===//

#include "FreeBeforeWaitCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

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
