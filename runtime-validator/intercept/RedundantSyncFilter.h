//===- RedundantSyncFilter.h - host sync events the engine would ignore -*- C++ -*-===//
//
// The thread interposers (InterceptThreads.cpp) see every lock the program
// takes, and most of a framework's lock traffic is one thread taking the same
// lock again and again with nothing learned in between (measured on FSDP2,
// one rank, an H200: 209,338 host synchronization events in 22 steps, about
// half the validator's time, each one a vector-clock join as wide as the
// process's streams and threads when the engine replays it). In the engine's
// model (engine/SyncClocks.h) two kinds of those events change nothing:
//   * a release by a thread whose clock has not changed since it last released
//     the same object: the object's clock already holds that clock (a release
//     only joins into it);
//   * an acquire by a thread that already knows the object's whole clock: no
//     other release of it has been queued since the thread last acquired it,
//     or released it while knowing all of it.
// The filter drops exactly those before they are queued, so the engine's
// clocks are the same with and without it (RedundantSyncFilterTest checks
// that against a model of the engine on random event sequences).
//
// What it keeps, per thread, is a small direct-mapped cache of the objects it
// synchronized on last; across threads, a counter per bucket of objects of the
// releases and destructions queued (a bucket shared by two objects only makes
// the filter drop less). A thread's clock may change whenever it queues an
// event or makes an intercepted CUDA call; both call clockMayChange().
//
// Ordering: a release is queued before it is counted, and an acquire reads the
// count before it is queued, so a counted release is always in the queue ahead
// of an acquire that saw its count.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_REDUNDANTSYNCFILTER_H
#define STREAMLIFE_RT_INTERCEPT_REDUNDANTSYNCFILTER_H

#include <cstdint>

namespace streamlife {
namespace rt {
namespace redundant_sync {

using SyncObject = std::uint64_t;

/// The calling thread's clock may have changed (it queued an event, or a CUDA
/// call of it entered the engine).
void clockMayChange();

/// True when a release of Sync by the calling thread would change nothing:
/// do not queue it. Otherwise queue it, then call releaseQueued(Sync).
bool releaseIsRedundant(SyncObject Sync);
void releaseQueued(SyncObject Sync);

/// Before an acquire of Sync by the calling thread: the release count that
/// acquireQueued needs, and whether the acquire would change nothing (then do
/// not queue it). Otherwise queue it, then call acquireQueued(Sync, Seen).
struct AcquireCheck {
  bool Redundant;
  std::uint64_t Seen;
};
AcquireCheck checkAcquire(SyncObject Sync);
void acquireQueued(SyncObject Sync, std::uint64_t Seen);

/// Sync's clock is forgotten (destroyed): queue that, then call this.
void destroyQueued(SyncObject Sync);

/// Events dropped so far, all threads (intercept_stats).
std::uint64_t dropped();

} // namespace redundant_sync
} // namespace rt
} // namespace streamlife

#endif
