//===--- Transfer.h - streamlife --------------------------------*- C++ -*-===//
//
// The transfer functions: how each IR operation changes the lifetime state.
// They know stream order only through the IR:
//
//   Allocate(b, A)       b holds a new object on A; the allocation itself is
//                        work on A that other streams must be ordered after.
//   Use(b, S)            adds a pending consumer use (S, site) to b's object.
//   RecordEvent(e, S)    e now covers every piece of work ordered before S.
//   WaitEvent(R, e)      work covered by e is ordered before R's later work.
//   Sync*                the host waited: covered work is complete.
//   Release(b, R)        every pending use on another stream must be ordered
//                        before R, else free-before-wait.
//   Kill(b)              the last name of an owned object: Release on its
//                        release stream.
//
// Caching allocators (ir::Inst::Caching): a released block goes back to the
// pool of its release stream R and only a later allocation on R can be
// handed it, with no ordering at all. So a release that leaves a use on
// another stream unordered is deferred (LifetimeState::Deferred), and is a
// finding only if, at the next reuse opportunity, that use is still neither
// complete (a host wait) nor ordered before R's later work (R waited for
// it). The reuse opportunities, in the function: an allocation on R, a call
// to a function of the module that allocates on R (its summary says so;
// counted before the callee's own waits), a loop back edge that reaches one
// of those (the dataflow carries the deferral around the loop), and the
// function's return (the caller may allocate on R next), unless R is a
// stream the function made and handed to no one (NameInfo::PrivateStream):
// then no allocation can ever be handed the block. A call the module
// cannot see is not one: its allocations are unknown, and taking every
// opaque call as an allocation would judge nearly every release at once.
// This is the runtime validator's rule for caching releases; with the
// WaitBeforeFree option every release is judged at once ("wait before
// free, never after"), as for stream-ordered pools, whose free may hand the
// bytes out from the free's point on.
//   Call(f, args)        f's summary (its own exit state) applied to the
//                        caller's names, streams and events.
//
// Legacy default stream semantics: an operation on the legacy stream waits
// for earlier work on every blocking stream, and later work on blocking
// streams waits for it.
//
// The transfer never makes findings: it tells an Observer what it saw (a
// racing release, a stale wait, ...) and the diagnose pass (Diagnose.cpp)
// turns that into findings. During the fixpoint there is no observer.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_TRANSFER_H
#define STREAMLIFE_CHECKS_CORE_TRANSFER_H

#include "Findings.h"
#include "LifetimeLattice.h"
#include "StreamIR.h"
#include "llvm/ADT/ArrayRef.h"
#include <functional>
#include <optional>
#include <vector>

namespace streamlife {
namespace core {

/// What the transfer saw, reported during the diagnose pass only.
class Observer {
public:
  virtual ~Observer();
  struct Racing {
    SiteId Site;
    StreamKey Stream;
    bool FromEarlierIteration;
    std::vector<std::pair<SiteId, StreamKey>> WrongStreamWaits;
  };
  /// A release on \p ReleaseStream while \p Uses may still run. \p Reuse:
  /// for a deferred caching release judged at an allocation (or a call that
  /// allocates) on the release stream, that site; NoId when judged at the
  /// release or at the function's return.
  virtual void racingRelease(SiteId Release, NameId Buffer,
                             const StreamKey &ReleaseStream, bool ByLastOwner,
                             const ObjectState &Object,
                             std::vector<Racing> Uses, SiteId Reuse) = 0;
  /// \p Waiter waits on \p Event recorded on \p Consumer before the uses
  /// \p StaleUses of an object; \p OnAllocationStream when the waiter is the
  /// object's allocation stream.
  virtual void staleWait(SiteId Wait, const StreamKey &Waiter, NameId Event,
                         const StreamKey &Consumer, SiteId RecordSite,
                         NameId Buffer, const std::vector<SiteId> &StaleUses,
                         SiteId LastUse, bool OnAllocationStream) = 0;
  /// \p Waiter waits for \p Consumer only after the racing release.
  virtual void lateWait(SiteId Wait, const StreamKey &Waiter,
                        const StreamKey &Consumer, SiteId ReleaseSite) = 0;
  virtual void useBeforeAlloc(SiteId Use, NameId Buffer,
                              const StreamKey &UseStream,
                              const ObjectState &Object) = 0;
  /// \p Buffer (owned) is returned to the caller at \p Return while its
  /// release stream \p ReleaseStream is one the caller cannot name.
  virtual void handOff(SiteId Return, NameId Buffer,
                       const StreamKey &ReleaseStream,
                       const ObjectState &Object) {}
};

/// A summary: the callee's own exit state (with its entry work and the
/// initial objects of its parameters), or nothing while it is being
/// computed (a recursive call then does nothing).
using SummaryLookup =
    std::function<const LifetimeState *(ir::FunctionId Callee)>;

class Transfer {
public:
  Transfer(const ir::Module &M, const ir::Function &F, SummaryLookup Summaries,
           Observer *Watcher = nullptr)
      : M(M), F(F), Summaries(std::move(Summaries)), Watcher(Watcher) {}

  /// The same transfer, reporting to \p W (the diagnose pass).
  Transfer withObserver(Observer *W) const {
    Transfer Copy = *this;
    Copy.Watcher = W;
    return Copy;
  }
  /// Every release is judged at the release, caching ones too ("wait before
  /// free, never after": the runtime's --wait-before-free).
  void setWaitBeforeFree(bool On) { WaitBeforeFree = On; }

  /// The function returns: the caller may allocate on any stream it can
  /// name next, so every deferred release still racing is judged, except
  /// those on a private stream (isPrivateAtReturn).
  void judgeAtReturn(LifetimeState &State) const;

  /// The state at function entry: reachable, with the caller's earlier work
  /// on every stream the function can name (see EntryWork).
  LifetimeState entryState() const;
  void apply(const ir::Inst &I, LifetimeState &State) const;

  /// Stream-order queries (also used by the summary application).
  std::optional<StreamKey> resolve(const ir::StreamRef &Ref,
                                   const LifetimeState &State) const;
  bool isBlocking(const StreamKey &S, const LifetimeState &State) const;
  bool orderedBefore(const StreamKey &WorkStream, const WorkFacts &Facts,
                     const StreamKey &Later, const LifetimeState &State) const;

private:
  ObjectSet &objectsOf(NameId Name, LifetimeState &State) const;
  NameId objectName(ObjectId Id, const ObjectState &Object) const;
  bool namedElsewhere(ObjectId Id, NameId Except,
                      const LifetimeState &State) const;
  void legacyStreamOperation(LifetimeState &State) const;
  void allocate(const ir::Inst &I, const StreamKey &S,
                LifetimeState &State) const;
  void bindObject(NameId Name, ObjectId Id, ObjectState Fresh, SiteId Site,
                  LifetimeState &State) const;
  void use(const ir::Inst &I, const StreamKey &S, LifetimeState &State) const;
  /// A use of object \p Id on \p S. \p AfterStreams: streams whose work
  /// enqueued so far is ordered before the use although \p S is not known
  /// to be (a callee's use, after waits on the path it took).
  /// \p CheckAlloc false: the use is not checked against the allocation
  /// (another entry of the container it may be is ready, see use()).
  void useObject(ObjectId Id, NameId Name, const StreamKey &S, SiteId Site,
                 WorkFacts Facts, LifetimeState &State,
                 const std::set<StreamKey> &AfterStreams = {},
                 bool CheckAlloc = true) const;
  /// The current stream at entry or a device's current stream (named by
  /// the front end, NameInfo::DeviceCurrent).
  bool isDeviceCurrent(const StreamKey &S) const;
  /// Where an operation on its operands' device (Inst::OnOperandDevice)
  /// that resolved to \p S runs for object \p Id.
  StreamKey operandDeviceStream(ObjectId Id, const StreamKey &S,
                                const LifetimeState &State) const;
  /// Where a use on \p S (the current stream of a tensor's device,
  /// NameInfo::DeviceOf) of object \p Id runs: for the tensor's own objects
  /// allocated on a device's current stream, on that stream.
  StreamKey ownDeviceStream(ObjectId Id, const StreamKey &S,
                            const LifetimeState &State) const;
  /// A use through one entry of a container (NameInfo::OneEntry) whose
  /// entries were allocated on different streams, every entry of one of
  /// which is ordered before the use (\p On: the use's stream for each
  /// object of \p Set).
  bool anotherEntryReady(NameId Name, const ObjectSet &Set,
                         llvm::ArrayRef<StreamKey> On,
                         const LifetimeState &State) const;
  void releaseObject(ObjectId Id, NameId Name,
                     const std::optional<StreamKey> &R, SiteId Site,
                     bool ByLastOwner, LifetimeState &State) const;
  /// Reports the racing groups \p Uses of a release (at the release, or at
  /// \p Reuse for a deferred one) and remembers the release for late-wait
  /// notes.
  void judgeRelease(SiteId Site, NameId Name, const StreamKey &R,
                    bool ByLastOwner, const ObjectState &Object,
                    const llvm::SmallVectorImpl<UseGroup> &Uses, SiteId Reuse,
                    LifetimeState &State) const;
  /// An allocation on \p S (or a call that allocates there) at \p Site may
  /// be handed the blocks of deferred releases on \p S: judged now.
  void reuseOpportunity(const StreamKey &S, SiteId Site,
                        LifetimeState &State) const;
  /// Drops the deferred uses that are complete or ordered before their
  /// release stream, and the deferred releases with none left.
  void settleDeferred(LifetimeState &State) const;
  void wait(const ir::Inst &I, const StreamKey &R, LifetimeState &State) const;
  void recordEvent(NameId Event, const StreamKey &S, SiteId Site,
                   LifetimeState &State) const;
  void syncWhere(LifetimeState &State,
                 const std::function<bool(const StreamKey &,
                                          const WorkFacts &)> &Done) const;
  void bind(const ir::Inst &I, bool IsMove, LifetimeState &State) const;
  void store(const ir::Inst &I, LifetimeState &State) const;
  void takeEntry(const ir::Inst &I, LifetimeState &State) const;
  bool handedOffOnHiddenStream(const ObjectState &Object) const;
  /// \p R is a stream the function made and handed to no one
  /// (NameInfo::PrivateStream), and not the current stream it leaves to its
  /// caller: nothing allocates on it after the return.
  bool isPrivateAtReturn(const StreamKey &R, const LifetimeState &State) const;
  /// A name that holds an object from outside this function before it is
  /// first written (a parameter, a member or global, `*out`).
  bool holdsCallerObject(NameId Name) const;
  /// A stream local to this function (not a parameter, member or the
  /// caller's current stream): the caller cannot name it.
  bool isHiddenStream(const StreamKey &S) const;
  /// Removes \p Name; returns the objects it held.
  ObjectSet unname(NameId Name, LifetimeState &State) const;
  /// The name holds nothing on this path (OpKind::Forget).
  void forget(NameId Name, LifetimeState &State) const;
  void kill(NameId Name, ir::ValueKind Value, SiteId Site,
            LifetimeState &State) const;
  void call(const ir::Inst &I, LifetimeState &State) const;
  /// A block may go back to \p S's caching pool here (any pool's when \p S
  /// is unknown): the pool's last release point moves to this point, with
  /// nothing yet ordered after it (see LifetimeState::PoolSince).
  void poolReleasePoint(const std::optional<StreamKey> &S,
                        LifetimeState &State) const;

  const ir::Module &M;
  const ir::Function &F;
  SummaryLookup Summaries;
  Observer *Watcher;
  bool WaitBeforeFree = false;
};

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_TRANSFER_H
