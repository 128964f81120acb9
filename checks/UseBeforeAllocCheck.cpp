//===--- UseBeforeAllocCheck.cpp - streamlife ---------------------------===//

#include "UseBeforeAllocCheck.h"
#include "LifetimeReporter.h"

namespace clang {
namespace tidy {
namespace streamlife {

void UseBeforeAllocCheck::reportFindings(const FunctionDecl &Function,
                                   const TranslationUnitIR &Unit,
                                   const core::FunctionFindings &Findings) {
  LifetimeReporter Reporter(*this, Unit);
  for (const auto &Finding : Findings.UseBeforeAlloc)
    Reporter.report(Finding);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
