//===--- FreeBeforeWaitCheck.cpp - streamlife ---------------------------===//

#include "FreeBeforeWaitCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void FreeBeforeWaitCheck::reportFindings(const TranslationUnitIR &Unit,
                                   const core::FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this, Unit);
  for (const auto &Finding : Findings.FreeBeforeWait)
    if (Finding.ExplainedByStaleWaits.empty() || !StaleEventsReportedElsewhere)
      Reporter.report(Finding);
  // A limit of the analysis is said once, by this check.
  for (const auto &Limit : Findings.Limits)
    Reporter.report(Limit);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
