//===- HostSyncQueue.h - the thread interposers' verbs, inline -*- C++ -*-===//
//
// What the thread interposers (InterceptThreads.cpp) ask of the runtime for
// each lock event the program reports: whether the process used CUDA yet,
// the events queued and not applied, and the queueing of a kept event. They
// are inline here, where the runtime's state is known (Runtime.h), because
// each was a call of a few instructions on every reported lock event (FSDP2
// one rank: about 326,000 in 43 steps), whose frames and register saves in
// the interposer cost as much as their work. Also the switch of the
// interposers' observed path (lockEventsObserved) and its count of dropped
// events. Included by the thread interposers and by InterceptContext.cpp (the
// block events' queueing, which tells the filter through filterKind too).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_HOSTSYNCQUEUE_H
#define STREAMLIFE_RT_INTERCEPT_HOSTSYNCQUEUE_H

#include "intercept/FilterKinds.h"
#include "intercept/InterceptContext.h"
#include "intercept/LockEventGate.h"
#include "intercept/RedundantSyncFilter.h"
#include "intercept/Runtime.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace streamlife {
namespace rt {

/// The runtime once the process made a CUDA call it intercepted; null before,
/// and while passive: the thread interposers' first check. One load of the
/// gate's line (LockEventGate.h), which the observed flag shares, instead of
/// the runtime's pointer and then its UsedCuda flag on two other lines.
inline ValidatorRuntime *runtimeOnceCudaUsed() {
  return detail::TheLockEventGate.CudaUsingRuntime.load(std::memory_order_acquire);
}

/// Whether the thread interposers take their observed path: a self-profile
/// times each reported lock event, or intercept_stats counts the dropped
/// ones by caller. One relaxed load, the branch that left the hot path for
/// the profile's timed copy alone before: the unobserved path (every run
/// without either option) compiles to the same instructions as without the
/// count (bench/runtime/README.md, rtdropstats).
inline bool lockEventsObserved() {
  return detail::TheLockEventGate.ObservingLockEvents.load(std::memory_order_relaxed) != 0;
}
/// Set before the program's first reported lock event (the runtime's start).
inline void observeLockEvents(bool On) {
  detail::TheLockEventGate.ObservingLockEvents.store(On ? 1 : 0, std::memory_order_relaxed);
}

// filterKind, what the filter must know of an event it queued: FilterKinds.h.

/// Queues and counts (intercept_stats) host synchronization event What of
/// thread T on Sync, and tells T's RedundantSyncFilter; returns the block and
/// host events queued and not yet applied. Caller: the interposed lock call's
/// return address, counted by caller with intercept_stats (KeptLockCallers.h);
/// null for a thread's start and end. No InterceptContext: the thread
/// interposers' hot path (always inline: GCC leaves it out of line at the
/// interposers' size otherwise).
__attribute__((always_inline)) inline std::size_t queueHostSync(ValidatorRuntime &R, BlockEvent::Kind What,
                                                                ThreadId T, SyncId Sync, const void *Caller) {
  std::size_t Unapplied = R.Annotated.pushHostSync(What, T, Sync);
  redundant_sync::thisThread().queued(filterKind(What));
  // Counted only for the lines that print them: a locked add on a line that
  // every locking thread writes.
  if (__builtin_expect(R.Opts.intercept_stats, 0)) {
    R.HostSyncEvents.fetch_add(1, std::memory_order_relaxed);
    if (Caller)
      R.KeptLockers.count(Caller);
  }
  return Unapplied;
}

/// A lock event from Caller (the interposed call's return address) that the
/// filter dropped, on the observed path only (lockEventsObserved): counted by
/// caller with intercept_stats (KeptLockCallers.h), so that the summary names
/// whose locks pay the filter's question.
inline void droppedHostSync(ValidatorRuntime &R, const void *Caller) {
  if (R.Opts.intercept_stats)
    R.DroppedLockers.count(Caller);
}

/// Block and host events queued and not yet applied.
inline std::size_t unappliedEvents(ValidatorRuntime &R) { return R.Annotated.unapplied(); }

} // namespace rt
} // namespace streamlife

#endif
