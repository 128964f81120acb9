//===--- MissingConsumerEventCheck.cpp - streamlife
//--------------------------------------===//

#include "MissingConsumerEventCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void MissingConsumerEventCheck::reportFindings(
    const FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this);
  for (const auto &Finding : Findings.MissingConsumerEvent)
    Reporter.report(Finding);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
