//===--- FreeBeforeWaitCheck.h - streamlife ----------------------------*- C++
//-*-===//

#ifndef STREAMLIFE_CHECKS_FREE_BEFORE_WAIT_CHECK_H
#define STREAMLIFE_CHECKS_FREE_BEFORE_WAIT_CHECK_H

#include "LifetimeCheckBase.h"
#include "Rules.h"

namespace clang {
namespace tidy {
namespace streamlife {

/// Finds a buffer released on its allocation stream while a use on another
/// stream is not yet ordered before the release.
///
/// For the user-facing documentation see checks/README.md,
/// streamlife-free-before-wait.
class FreeBeforeWaitCheck : public LifetimeCheckBase {
public:
  FreeBeforeWaitCheck(StringRef Name, ClangTidyContext *Context)
      : LifetimeCheckBase(Name, Context),
        StaleEventsReportedElsewhere(
            Context->isCheckEnabled(
                core::ruleName(core::Rule::MissingConsumerEvent))) {}

private:
  /// One bug, one warning: a release that races only because of a stale
  /// consumer event is reported by streamlife-missing-consumer-event (at
  /// the wait, with this release as a note) when that check is enabled.
  const bool StaleEventsReportedElsewhere;

protected:
  void reportFindings(const FunctionDecl &Function,
                      const TranslationUnitIR &Unit,
                      const core::FunctionFindings &Findings) override;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_FREE_BEFORE_WAIT_CHECK_H
