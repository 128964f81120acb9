//===- ReplayThread.h - the validator's own thread that replays the queue -*- C++ -*-===//
//
// The program's threads queue what the engine must learn (allocator and lock
// events, and with defer_cuda_ops the launches, records, waits, copies and
// stream-ordered allocations behind them: allocators/AnnotatedAllocators.h),
// and until this thread the queue was replayed by whichever of them next
// needed the engine's state: a host synchronization, a synchronous
// allocation, a queue grown to replay_batch. That replay is most of the
// validator's time in a launch-heavy PyTorch step (bench/runtime/README.md,
// "the replay thread"), spent on the thread that runs the step.
//
// This thread replays the queue beside the program: woken once
// replay_thread_wake events wait, it replays what is queued in batches (once
// that many wait, or once the queue has stopped growing between two looks,
// napping between them), looks again close together, then every 20 µs, and
// sleeps on a futex after about 50 ms of an empty queue. The engine meets the same events in
// the same order whoever replays them (drain() applies batches in the order
// they were queued, under one lock), so the findings do not change; a call
// that needs the engine's state still replays what is left itself, after the
// batch this thread is applying (AnnotatedAllocators::drain waits for it).
//
// Waking is the queueing thread's: nudge() after a push, one compare and,
// when the queue is long, one load of the sleep flag; while the thread naps
// between looks, nobody wakes it. A nudge lost to the
// moment this thread falls asleep costs nothing but time: the next nudge, or
// the next call that needs the engine, replays the queue.
//
// The thread runs as validator code for its whole life (its own locks are
// not the program's, its driver calls are not intercepted) and replays in
// the CUDA context of the thread that last woke it, as a replay on that
// thread would have: a block event on a default stream resolves to that
// context's device. It takes no program lock, never calls into Python and
// never blocks the program: a call that needs the engine waits at most for
// the batch this thread is applying.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_REPLAYTHREAD_H
#define STREAMLIFE_RT_INTERCEPT_REPLAYTHREAD_H

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace streamlife {
namespace rt {

class ValidatorRuntime;

/// What the replay thread does after a look at the queue.
enum class ReplayLook {
  Replay,   ///< replay what is queued now
  LookSoon, ///< the queue is growing: let it, and look again after a short nap
  Idle,     ///< nothing queued: look again later, nap, or sleep
};

/// The thread's batching rule: a queue of Pending unapplied events is
/// replayed once WakeAt of them wait, or once it has stopped growing
/// (SeenLastLook: what the previous look found, 0 after a replay). Taking
/// each event as it came moved every event's lines between the queueing
/// core and the thread's (ReplayThread.cpp).
constexpr ReplayLook afterLook(std::size_t Pending, std::size_t SeenLastLook, std::size_t WakeAt) {
  if (!Pending)
    return ReplayLook::Idle;
  if (Pending < WakeAt && Pending != SeenLastLook)
    return ReplayLook::LookSoon;
  return ReplayLook::Replay;
}

class ReplayThread {
public:
  explicit ReplayThread(ValidatorRuntime &R) : R(R) {}
  ReplayThread(const ReplayThread &) = delete;
  ReplayThread &operator=(const ReplayThread &) = delete;

  /// Starts the thread, to be woken once WakeAt events wait and to nap
  /// GrowingNapNs between looks at a growing queue (0: pause): at the
  /// process's first intercepted CUDA call (a shell or compiler that the
  /// preload reaches and that never calls CUDA gets no thread); a second call
  /// does nothing. False when the thread could not be created (the program's
  /// threads then replay, as without it).
  bool start(std::size_t WakeAt, long GrowingNapNs);
  bool running() const { return Started.load(std::memory_order_acquire); }

  /// After a push that left Unapplied events unapplied, on any thread,
  /// outside the program's locks where it can be: wakes the thread when the
  /// queue is long and it sleeps. Inline: most calls compare and return.
  void nudge(std::size_t Unapplied) {
    if (Unapplied >= WakeAt && Asleep.load(std::memory_order_relaxed))
      wake();
  }

  /// At exit, before the final replay: the thread takes no batch after the
  /// one it is applying (the final replay waits for that one).
  void stop();

  /// Times it was woken, the replays it made and the events they applied
  /// (intercept_stats).
  std::uint64_t wakes() const { return Wakes.load(std::memory_order_relaxed); }
  std::uint64_t replays() const { return Replays.load(std::memory_order_relaxed); }
  std::uint64_t eventsReplayed() const { return EventsReplayed.load(std::memory_order_relaxed); }

private:
  __attribute__((noinline)) void wake();
  static void *threadMain(void *Self);
  void loop();
  /// Sleeps on the futex until a nudge (or stop) wakes it.
  void sleepUntilNudged();
  /// One replay of what is queued, in the waker's context.
  void replayQueued();

  ValidatorRuntime &R;
  /// Never, until started.
  std::size_t WakeAt = ~std::size_t(0);
  long GrowingNap = 0;
  std::atomic<bool> Claimed{false};
  std::atomic<bool> Started{false};
  std::atomic<bool> Stopping{false};
  /// The futex word: 1 while the thread sleeps or is about to. On a line of
  /// its own: every nudge of a long queue reads it.
  alignas(64) std::atomic<int> Asleep{0};
  /// The waking thread's current context (null: not known), and the
  /// thread's own (its replays only).
  std::atomic<CUcontext> WakerContext{nullptr};
  CUcontext Current = nullptr;
  alignas(64) std::atomic<std::uint64_t> Wakes{0};
  std::atomic<std::uint64_t> Replays{0};
  std::atomic<std::uint64_t> EventsReplayed{0};
};

} // namespace rt
} // namespace streamlife

#endif
