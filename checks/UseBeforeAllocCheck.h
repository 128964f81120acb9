//===--- UseBeforeAllocCheck.h - streamlife ----------------------------*- C++
//-*-===//

#ifndef STREAMLIFE_CHECKS_USE_BEFORE_ALLOC_CHECK_H
#define STREAMLIFE_CHECKS_USE_BEFORE_ALLOC_CHECK_H

#include "LifetimeCheckBase.h"

namespace clang {
namespace tidy {
namespace streamlife {

/// Finds a stream-ordered allocation used on another stream before that stream
/// is ordered after the allocation.
///
/// For the user-facing documentation see checks/README.md,
/// streamlife-use-before-alloc.
class UseBeforeAllocCheck : public LifetimeCheckBase {
public:
  UseBeforeAllocCheck(StringRef Name, ClangTidyContext *Context)
      : LifetimeCheckBase(Name, Context) {}

protected:
  void reportFindings(const FunctionDecl &Function,
                      const TranslationUnitIR &Unit,
                      const core::FunctionFindings &Findings) override;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_USE_BEFORE_ALLOC_CHECK_H
