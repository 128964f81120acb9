//===--- MissingConsumerEventCheck.h - streamlife ----------------------------*-
// C++ -*-===//

#ifndef STREAMLIFE_CHECKS_MISSING_CONSUMER_EVENT_CHECK_H
#define STREAMLIFE_CHECKS_MISSING_CONSUMER_EVENT_CHECK_H

#include "LifetimeCheckBase.h"

namespace clang {
namespace tidy {
namespace streamlife {

/// Finds the allocation stream waiting on a consumer event recorded before the
/// consumer's last use of a buffer.
///
/// For the user-facing documentation see checks/README.md,
/// streamlife-missing-consumer-event.
class MissingConsumerEventCheck : public LifetimeCheckBase {
public:
  MissingConsumerEventCheck(StringRef Name, ClangTidyContext *Context)
      : LifetimeCheckBase(Name, Context) {}

protected:
  void reportFindings(const FunctionDecl &Function,
                      const TranslationUnitIR &Unit,
                      const core::FunctionFindings &Findings) override;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_MISSING_CONSUMER_EVENT_CHECK_H
