//===- HostClocks.h - what each host thread knows ---------------*- C++ -*-===//
//
// The host side of the happens-before model. A host clock grows when the host
// synchronizes (stream/event/device sync, a successful query); every later
// enqueue inherits it.
//
// How knowledge moves between host threads is a choice, because the threads of a
// real program synchronize with mutexes, condition variables and queues that we
// do not intercept (PyTorch's autograd engine frees tensors on its own thread
// after the main thread synchronized; a data loader hands buffers over a queue):
//
//   SharedAcrossThreads (default): one host clock for the whole process. A sync
//     observed on any thread is known to every API call observed after it. The
//     engine sees calls in a single order (under its lock), and an interceptor
//     reports a sync only after the real call returned, so by the time another
//     thread's later call is observed the synchronized work really had finished.
//     Reporting such a call as unordered would be a false positive in this run;
//     the price is that a race which depends on how the threads interleave is
//     only reported in interleavings that expose it.
//   PerThread: each thread knows only its own syncs (no false negatives from
//     thread interleaving, false positives whenever threads hand buffers over).
//     A thread first seen starts from what every existing thread knows (thread
//     creation orders the child after its parent, and we do not know the parent).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_HOSTCLOCKS_H
#define STREAMLIFE_RT_ENGINE_HOSTCLOCKS_H

#include "engine/Engine.h"
#include "engine/VectorClock.h"

#include <memory>
#include <vector>

namespace streamlife {
namespace rt {

struct HostClock {
  ClockSlot Slot = NoSlot;
  VectorClock Clock;
};

class HostClocks {
public:
  HostClocks(HostKnowledge Mode, SlotAllocator &Slots);

  /// The clock that thread T's API calls act with (created on first sight).
  HostClock &of(ThreadId T);
  /// Call after H.Clock was joined with new knowledge: ticks H's own slot so
  /// that streams notice with one compare (VectorClock.h invariant).
  void learned(HostClock &H);

  /// What every host thread knows. An access record this clock covers can never
  /// race again: every future enqueue starts from some host thread's clock.
  const VectorClock &commonKnowledge();
  /// Bumped on every learned(); lets the shadow sweep skip when nothing changed.
  std::uint64_t version() const { return Version; }
  std::size_t threads() const;

private:
  HostClock &create();

  HostKnowledge Mode;
  SlotAllocator &Slots;
  std::vector<std::unique_ptr<HostClock>> Clocks; ///< owned clocks
  std::vector<HostClock *> ByThread;              ///< ThreadId -> clock
  VectorClock Common;
  std::uint64_t Version = 1;
  std::uint64_t CommonVersion = 0;
};

} // namespace rt
} // namespace streamlife

#endif
