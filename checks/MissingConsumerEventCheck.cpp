//===--- MissingConsumerEventCheck.cpp - streamlife ---------------------------===//

#include "MissingConsumerEventCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void MissingConsumerEventCheck::reportFindings(const TranslationUnitIR &Unit,
                                   const core::FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this, Unit);
  for (const auto &Finding : Findings.MissingConsumerEvent)
    Reporter.report(Finding);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
