//===--- Findings.h - streamlife --------------------------------*- C++ -*-===//
//
// What the diagnose pass hands to the checks: structured findings in ids
// (sites, names, streams of the IR), one list per check. The checks map sites
// back to source locations and word the sentences.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_FINDINGS_H
#define STREAMLIFE_CHECKS_CORE_FINDINGS_H

#include "LifetimeLattice.h"
#include <string>
#include <utility>
#include <vector>

namespace streamlife {
namespace core {

/// A buffer released on a stream while work on another stream may still use
/// it. One per (release site, buffer).
struct FreeBeforeWaitFinding {
  SiteId ReleaseSite = NoId;
  NameId Buffer = NoId;
  StreamKey ReleaseStream;
  /// The release is the last owner going away (scope exit, reassignment),
  /// not an explicit release call.
  bool ByLastOwner = false;
  SiteId AllocSite = NoId; ///< NoId when allocated elsewhere.
  NameId AllocName = NoId;
  StreamKey AllocStream;
  struct RacingUse {
    SiteId Site = NoId;
    StreamKey Stream;
    bool FromEarlierIteration = false;
    /// Waits that ordered the use before some stream other than the release
    /// stream: (wait site, the stream that waited).
    std::vector<std::pair<SiteId, StreamKey>> WrongStreamWaits;
    /// Waits of the release stream on an event recorded on the consumer
    /// before this use: (wait site, event name).
    std::vector<std::pair<SiteId, NameId>> StaleWaits;
  };
  std::vector<RacingUse> Uses; ///< Sorted by site order.
  /// A wait of the release stream for a consumer issued after the release.
  struct LateWait {
    SiteId WaitSite = NoId;
    StreamKey Waiter;
    /// The stream the waited event was recorded on: with two consumers each
    /// waited for late, each note names its own.
    StreamKey Consumer;
    bool operator==(const LateWait &O) const {
      return WaitSite == O.WaitSite && Waiter == O.Waiter &&
             Consumer == O.Consumer;
    }
  };
  std::vector<LateWait> LateWaits;
  /// A caching release judged where the block could be reused (see
  /// ir::Inst::Caching): the allocation on the release stream, or a call
  /// that allocates there, that may be handed the block while a use runs.
  /// NoId when judged at the release or at the function's return.
  SiteId ReuseSite = NoId;
  /// Every racing use is explained by a stale wait that the
  /// missing-consumer-event check reports (see MissingConsumerEventFinding):
  /// one bug, one warning. Wait sites of those findings.
  std::vector<SiteId> ExplainedByStaleWaits;
};

/// The allocation stream waits on a consumer event recorded before the
/// consumer's last use of a buffer.
struct MissingConsumerEventFinding {
  SiteId WaitSite = NoId;
  StreamKey WaitingStream;
  NameId Event = NoId;
  StreamKey EventStream;
  NameId Buffer = NoId;
  SiteId RecordSite = NoId;
  SiteId LastUseSite = NoId;
  /// Releases on the waiting stream that race because of this stale wait
  /// (the free-before-wait findings this one explains), in site order.
  std::vector<std::pair<SiteId, NameId>> RacingReleases;
};

/// A buffer used on a stream not yet ordered after its stream-ordered
/// allocation on another stream.
struct UseBeforeAllocFinding {
  SiteId UseSite = NoId;
  NameId Buffer = NoId;
  StreamKey UseStream;
  SiteId AllocSite = NoId;
  NameId AllocName = NoId;
  StreamKey AllocStream;
};

/// An owned buffer handed to the caller (returned) whose release stream is
/// a stream the caller cannot name (local to the callee): reported by
/// free-before-wait at the return.
struct HandOffFinding {
  SiteId ReturnSite = NoId;
  NameId Buffer = NoId;
  StreamKey ReleaseStream;
  SiteId AllocSite = NoId;
  NameId AllocName = NoId;
  StreamKey AllocStream;
};
/// An analysis limit was hit: findings of this function may be missing.
struct LimitNote {
  SiteId Site = NoId;
  std::string Message;
};

struct FunctionFindings {
  std::vector<FreeBeforeWaitFinding> FreeBeforeWait;
  std::vector<MissingConsumerEventFinding> MissingConsumerEvent;
  std::vector<UseBeforeAllocFinding> UseBeforeAlloc;
  std::vector<HandOffFinding> HandOff;
  std::vector<LimitNote> Limits;
};

/// The spelling a front end gives a function's entry current stream while
/// the function has not named it (Python: until `s = torch.cuda.current_stream()`):
/// sentences call that stream "the current stream".
inline constexpr llvm::StringLiteral UnnamedCurrentStream = "<current stream>";

/// How a stream reads in a sentence.
struct StreamName {
  enum KindTy { Named, LegacyDefault, Current } Kind = Named;
  std::string Name;
};
StreamName streamName(const ir::Module &M, const StreamKey &S);
/// A name's spelling, or "<buffer>" for NoId.
std::string nameSpelling(const ir::Module &M, NameId N);

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_FINDINGS_H
