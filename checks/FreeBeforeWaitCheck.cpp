//===--- FreeBeforeWaitCheck.cpp - streamlife
//--------------------------------------===//

#include "FreeBeforeWaitCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void FreeBeforeWaitCheck::reportFindings(const FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this);
  for (const auto &Finding : Findings.FreeBeforeWait)
    Reporter.report(Finding);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
