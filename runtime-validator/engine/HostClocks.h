//===- HostClocks.h - what each host thread knows ---------------*- C++ -*-===//
//
// The host side of the happens-before model, one clock per host thread, as in
// ThreadSanitizer. A thread's clock grows when the thread synchronizes with
// the GPU (stream/event/device sync, a successful query) and when it acquires
// a synchronization object that another thread released (a mutex, a
// semaphore, thread creation and join: SyncClocks.h, intercepted in
// intercept/InterceptThreads.cpp). Every enqueue inherits the enqueuing
// thread's clock. Nothing else moves knowledge between threads: a sync seen by
// one thread is not known to another until the program orders them, so a
// finding never depends on which thread's call happened to arrive first.
//
// Each clock owns a slot whose time is the thread's epoch. The epoch ticks
// whenever the clock learns something (VectorClock.h invariant) and, lazily,
// at the first stamped operation (stamp(): a caching allocation, a release)
// after the thread released a synchronization object, so that "thread T2's
// allocation A happens before thread T1's release F" is one compare:
// F's clock covers A's stamp.
//
// Common knowledge is what every thread that uses CUDA knows: an access record
// it covers can never race again. Threads that only take locks are left out
// (an idle lock user would hold it back forever), and so are finished ones; a
// thread that starts using CUDA first joins the common knowledge (that work
// has completed, every CUDA thread saw it), so the rule stays true. It is
// asked slot by slot (CommonKnowledge.h): every change of a clock here tells
// it, so that no answer is stale.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_HOSTCLOCKS_H
#define STREAMLIFE_RT_ENGINE_HOSTCLOCKS_H

#include "engine/CommonKnowledge.h"
#include "engine/Engine.h"
#include "engine/LoggedClock.h"
#include "engine/VectorClock.h"

#include <atomic>
#include <memory>
#include <vector>

namespace streamlife {
namespace rt {

struct HostClock {
  ThreadId Thread = 0;
  ClockSlot Slot = NoSlot; ///< never reused: names the thread in SyncClocks
  /// Logged, so that a lock's clock catches up with a thread's by reading
  /// only the slots the thread learned since it last released it (SyncClocks.h).
  LoggedClock Clock;
  bool UsesCuda = false;         ///< counted in the common knowledge
  bool Finished = false;         ///< the thread ended: no longer counted
  bool ReleasedSinceTick = false; ///< stamp() must tick before it stamps
  /// Where the thread's time and flags are published (HostClocks::published);
  /// null beyond the published threads.
  std::atomic<std::uint64_t> *Published = nullptr;
  /// The epoch of the thread's latest operation.
  Epoch now() const { return Epoch{Slot, Clock.get(Slot)}; }
};

class HostClocks {
public:
  /// ChangedSlotJoins false: every question of the common knowledge reads the
  /// meet of every CUDA thread's whole clock (the reference the engine's tests
  /// compare with).
  explicit HostClocks(SlotAllocator &Slots, bool ChangedSlotJoins = true);

  /// The clock of thread T for a CUDA operation (created on first sight; joins
  /// the threads whose knowledge is common knowledge).
  /// Inline for a thread already counted (every CUDA call of the engine asks).
  HostClock &of(ThreadId T) {
    HostClock *H = find(T);
    return H && H->UsesCuda ? *H : firstCudaUse(T);
  }
  /// The clock of thread T for a synchronization operation only.
  HostClock &forSync(ThreadId T) {
    // Inline: a replay of queued lock events asks it per event.
    if (HostClock *H = find(T))
      return *H;
    return firstSight(T);
  }
  /// Null when T was never seen.
  HostClock *find(ThreadId T) { return T < ByThread.size() ? ByThread[T] : nullptr; }

  /// Call after H.Clock was joined with new knowledge: ticks H's own slot so
  /// that streams notice with one compare (VectorClock.h invariant). Inline
  /// (always: the compiler kept it out of line) into a replay's acquires.
  [[gnu::always_inline]] void learned(HostClock &H) {
    H.Clock.tick(H.Slot);
    H.ReleasedSinceTick = false;
    publish(H);
    Common.changed();
  }
  /// H released a synchronization object (its clock was copied there).
  void released(HostClock &H) {
    if (!H.ReleasedSinceTick) {
      H.ReleasedSinceTick = true;
      publish(H);
    }
  }
  /// The epoch of an operation of H that other threads' clocks are compared
  /// with: ticks first if H released something since its last tick.
  Epoch stamp(HostClock &H);
  /// The thread ended: its knowledge no longer holds the common knowledge back.
  void finished(ThreadId T);

  /// Thread T's own time and flags as last published; any thread, no lock
  /// (Engine::hostState).
  Engine::HostState published(ThreadId T) const;
  /// Where published() reads T's state (Engine::hostStateWord).
  const std::atomic<std::uint64_t> *publishedWordIfAny(ThreadId T) const;

  /// What every CUDA-using thread knows. An access record it covers can never
  /// race again: every future enqueue starts from one of their clocks.
  const CommonKnowledge &common() const { return Common; }
  /// The same as a whole clock (a new CUDA thread joins it; tests compare it).
  const VectorClock &commonKnowledge() const { return Common.whole(); }
  /// Bumped whenever some clock changed; lets the shadow sweep skip.
  std::uint64_t version() const { return Common.version(); }
  std::size_t threads() const { return Clocks.size(); }
  /// Threads that used CUDA and have not finished.
  std::size_t cudaThreads() const { return CudaThreads; }

private:
  /// of() for a thread not counted yet: created or joining the CUDA threads.
  HostClock &firstCudaUse(ThreadId T);
  HostClock &create(ThreadId T);
  /// forSync() of a thread never seen: creates its clock.
  HostClock &firstSight(ThreadId T);
  /// Stores H's own time and flags where published() reads them: one store
  /// per change of them (release: the reader is another thread).
  static void publish(const HostClock &H) {
    if (H.Published)
      H.Published->store(H.Clock.get(H.Slot) << 2 | std::uint64_t(H.ReleasedSinceTick) << 1 |
                             std::uint64_t(H.UsesCuda),
                         std::memory_order_release);
  }
  /// The word of thread T, its chunk created if need be (null beyond them).
  std::atomic<std::uint64_t> *publishedWord(ThreadId T);

  SlotAllocator &Slots;
  std::vector<std::unique_ptr<HostClock>> Clocks; ///< owned clocks
  std::vector<HostClock *> ByThread;              ///< ThreadId -> clock
  std::size_t CudaThreads = 0;
  CommonKnowledge Common;

  /// Each thread's state as one word, (time << 2) | ReleasedSinceTick << 1 |
  /// UsesCuda, read by other threads without the lock: chunks of threads by
  /// id, allocated (under the lock) when a thread of theirs gets a clock and
  /// never moved, so a reader needs no lock. Threads beyond them are not
  /// published (HostState::Known false).
  static constexpr std::size_t PublishedPerChunk = 1024, PublishedChunks = 64;
  using PublishedWord = std::atomic<std::uint64_t>;
  std::atomic<PublishedWord *> Published[PublishedChunks] = {};
  std::vector<std::unique_ptr<PublishedWord[]>> PublishedOwned;
};

} // namespace rt
} // namespace streamlife

#endif
