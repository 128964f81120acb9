//===--- UseBeforeAllocCheck.cpp - streamlife
//--------------------------------------===//

#include "UseBeforeAllocCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void UseBeforeAllocCheck::reportFindings(const FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this);
  for (const auto &Finding : Findings.UseBeforeAlloc)
    Reporter.report(Finding);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
