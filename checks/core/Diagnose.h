//===--- Diagnose.h - streamlife --------------------------------*- C++ -*-===//
//
// The diagnose pass: an Observer that the final replay over the fixpoint
// feeds, and that turns what the transfer saw into findings, one per bug.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_DIAGNOSE_H
#define STREAMLIFE_CHECKS_CORE_DIAGNOSE_H

#include "Findings.h"
#include "Transfer.h"
#include <map>
#include <set>

namespace streamlife {
namespace core {

class FindingCollector : public Observer {
public:
  FindingCollector(const ir::Module &M, FunctionFindings &Out)
      : M(M), Out(Out) {}

  void racingRelease(SiteId Release, NameId Buffer,
                     const StreamKey &ReleaseStream, bool ByLastOwner,
                     const ObjectState &Object, std::vector<Racing> Uses,
                     SiteId Reuse) override;
  void staleWait(SiteId Wait, const StreamKey &Waiter, NameId Event,
                 const StreamKey &Consumer, SiteId RecordSite, NameId Buffer,
                 const std::vector<SiteId> &StaleUses, SiteId LastUse,
                 bool OnAllocationStream) override;
  void lateWait(SiteId Wait, const StreamKey &Waiter,
                const StreamKey &Consumer, SiteId ReleaseSite) override;
  void useBeforeAlloc(SiteId Use, NameId Buffer, const StreamKey &UseStream,
                      const ObjectState &Object) override;

  void handOff(SiteId Return, NameId Buffer, const StreamKey &ReleaseStream,
               const ObjectState &Object) override;
  /// Adds the notes that need the whole function (stale and late waits) and
  /// links each stale-event finding to the releases it makes racy.
  void finish();

private:
  bool before(SiteId A, SiteId B) const {
    return M.site(A).Order < M.site(B).Order;
  }

  const ir::Module &M;
  FunctionFindings &Out;
  std::map<std::pair<SiteId, NameId>, size_t> FreeBeforeWaitIndex;
  std::set<std::pair<SiteId, NameId>> MissingEventSeen;
  std::set<std::pair<SiteId, NameId>> UseBeforeAllocSeen;
  std::set<std::pair<SiteId, NameId>> HandOffSeen;
  /// Late waits by release site.
  std::map<SiteId, std::vector<FreeBeforeWaitFinding::LateWait>> LateWaits;
  struct StaleWait {
    SiteId WaitSite;
    StreamKey Waiter;
    NameId Event;
  };
  /// Waits on events recorded before a use, by use site.
  std::map<SiteId, std::vector<StaleWait>> StaleWaits;
};

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_DIAGNOSE_H
