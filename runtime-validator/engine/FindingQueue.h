//===- FindingQueue.h - findings of one engine call, reported once -*- C++ -*-===//
//
// Rules produce findings per shadow segment; one allocation may span several
// segments (splits). The queue merges the pieces of one finding into one Bytes
// span (never across lifetimes: one allocation may decide the deferred unsafe
// frees of several released blocks at once, DeferredFrees.cpp), and asks the lifetime (Allocation::Reported) whether the same finding
// was reported before, so that a loop repeating the same unordered access is
// reported once per lifetime. The engine flushes the queue to the sink at the
// end of each call, still under its lock (the sink only queues).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_FINDINGQUEUE_H
#define STREAMLIFE_RT_ENGINE_FINDINGQUEUE_H

#include "engine/Engine.h"
#include "engine/Shadow.h"

#include <vector>

namespace streamlife {
namespace rt {

/// A finding about bytes of allocation A, with A's facts filled in.
Finding describeFinding(FindingKind K, Range Bytes, const Allocation &A);

class FindingQueue {
public:
  explicit FindingQueue(std::size_t RememberCap) : RememberCap(RememberCap) {}

  /// Queues F unless the lifetime Remember reported it already. OldLifetime is
  /// the previous lifetime of a ReuseRace (part of its identity), else 0.
  void offer(Allocation &Remember, const Finding &F, AllocId OldLifetime = 0);
  /// Reports the queued findings to Sink; returns how many. The queue keeps its
  /// storage, so a warm launch path does not allocate. Inline: every engine
  /// call flushes, and almost every time there is nothing to report.
  std::size_t flush(FindingSink &Sink) { return Pending.empty() ? 0 : report(Sink); }

private:
  std::size_t report(FindingSink &Sink);

  struct Queued {
    Finding F;
    ReportKey Key;
    const Allocation *Lifetime; ///< pieces merge only within one lifetime
  };
  std::size_t RememberCap;
  std::vector<Queued> Pending;
};

} // namespace rt
} // namespace streamlife

#endif
