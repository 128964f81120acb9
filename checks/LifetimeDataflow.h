//===--- LifetimeDataflow.h - streamlife ------------------------*- C++ -*-===//
//
// The per-function lifetime analysis shared by the three dataflow checks: a
// forward dataflow over clang::CFG (loops iterated to a fixpoint) whose
// transfer function is driven by the ApiModel, with calls to functions
// defined in the same translation unit applied through summaries.
//
// The analysis produces structured findings; LifetimeReporter turns them into
// sentences. Each function is analysed once per translation unit and model,
// whichever of the checks asks first.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_LIFETIMEDATAFLOW_H
#define STREAMLIFE_CHECKS_LIFETIMEDATAFLOW_H

#include "ApiModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include <string>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

/// A stream as the user wrote it.
struct NamedStream {
  std::string Name;
  bool IsLegacyDefault = false;
};

/// A buffer released on a stream while work on another stream may still use
/// it. One per release site.
struct FreeBeforeWaitFinding {
  const Stmt *ReleaseSite = nullptr;
  std::string Buffer;
  NamedStream ReleaseStream;
  const Stmt *AllocSite = nullptr; ///< Null when allocated elsewhere.
  std::string AllocName;           ///< The buffer's name at the allocation.
  NamedStream AllocStream;
  struct RacingUse {
    const Stmt *Site = nullptr;
    NamedStream Stream;
    bool FromEarlierIteration = false;
    /// Waits that ordered the use before some stream other than the release
    /// stream: (wait site, the stream that waited).
    std::vector<std::pair<const Stmt *, NamedStream>> WrongStreamWaits;
    /// Waits of the release stream on an event recorded on the consumer
    /// before this use: (wait site, event name).
    std::vector<std::pair<const Stmt *, std::string>> StaleWaits;
  };
  std::vector<RacingUse> Uses;
  /// Waits of the release stream for the consumer issued after the release.
  std::vector<std::pair<const Stmt *, NamedStream>> LateWaits;
};

/// The allocation stream waits on a consumer event recorded before the
/// consumer's last use of a buffer.
struct MissingConsumerEventFinding {
  const Stmt *WaitSite = nullptr;
  NamedStream WaitingStream;
  std::string Event;
  NamedStream EventStream;
  std::string Buffer;
  const Stmt *RecordSite = nullptr;
  const Stmt *LastUseSite = nullptr;
};

/// A buffer used on a stream not yet ordered after its stream-ordered
/// allocation on another stream.
struct UseBeforeAllocFinding {
  const Stmt *UseSite = nullptr;
  std::string Buffer;
  NamedStream UseStream;
  const Stmt *AllocSite = nullptr;
  std::string AllocName;
  NamedStream AllocStream;
};

struct FunctionFindings {
  std::vector<FreeBeforeWaitFinding> FreeBeforeWait;
  std::vector<MissingConsumerEventFinding> MissingConsumerEvent;
  std::vector<UseBeforeAllocFinding> UseBeforeAlloc;
};

/// Runs (or returns the cached result of) the analysis of \p Function, whose
/// body must be present. Templated bodies and translation units with errors
/// yield no findings.
const FunctionFindings &analyzeFunction(const FunctionDecl *Function,
                                        ASTContext &Context,
                                        const ApiModel &Model);

/// Drops every cached result and summary; called at the end of each
/// translation unit, whose declarations die with it.
void clearLifetimeAnalysisCache();

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_LIFETIMEDATAFLOW_H
