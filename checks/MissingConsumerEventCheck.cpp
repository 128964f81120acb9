//===--- MissingConsumerEventCheck.cpp - streamlife ---------------------------===//

#include "MissingConsumerEventCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void MissingConsumerEventCheck::reportFindings(const FunctionDecl &Function,
                                   const TranslationUnitIR &Unit,
                                   const core::FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this, Unit, &Function);
  for (const auto &Finding : Findings.MissingConsumerEvent)
    Reporter.report(Finding, Findings.MissingConsumerEvent);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
