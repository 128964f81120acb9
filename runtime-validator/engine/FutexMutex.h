//===- FutexMutex.h - a lock the thread interposers never see ---*- C++ -*-===//
//
// The block-event queue's lock (AnnotatedAllocators.h) is taken once per
// queued event, and most queued events are the program's own lock handovers
// (intercept/InterceptThreads.cpp): a std::mutex there went through the
// library's pthread_mutex_lock and pthread_mutex_unlock interposers (which
// only pass the validator's own locks on) and glibc's generic mutex, about
// 100 instructions per event of the 400 a kept handover costs. The engine's
// lock (Engine::Impl::Mu), taken per engine call (every allocation, release
// and run of host events a replay applies), and the replay's own locks are
// FutexMutexes for the same reason. Here an uncontended lock and unlock are
// one atomic operation each; a contended lock sleeps on the futex (Drepper,
// "Futexes Are Tricky", mutex 2), so a holder preempted inside never makes
// the others spin.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_FUTEXMUTEX_H
#define STREAMLIFE_RT_ENGINE_FUTEXMUTEX_H

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace streamlife {
namespace rt {

/// BasicLockable (std::lock_guard), not recursive, process-private.
class FutexMutex {
public:
  void lock() {
    int Seen = Free;
    if (__builtin_expect(State.compare_exchange_strong(Seen, Locked, std::memory_order_acquire), 1))
      return;
    lockContended(Seen);
  }
  /// Takes it only when it is free (Lockable).
  bool try_lock() {
    int Seen = Free;
    return State.compare_exchange_strong(Seen, Locked, std::memory_order_acquire);
  }
  void unlock() {
    if (__builtin_expect(State.exchange(Free, std::memory_order_release) == Waited, 0))
      wakeOne();
  }

private:
  enum : int { Free = 0, Locked = 1, Waited = 2 };

  __attribute__((noinline)) void lockContended(int Seen) {
    // A holder keeps it for a few dozen instructions: a short spin usually
    // finds it free without a system call.
    for (int Spin = 0; Spin < 64 && Seen != Waited; ++Spin) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      Seen = State.load(std::memory_order_relaxed);
      if (Seen == Free && State.compare_exchange_weak(Seen, Locked, std::memory_order_acquire))
        return;
    }
    // Waited from here on: the unlock that frees it wakes a sleeper.
    if (Seen != Waited)
      Seen = State.exchange(Waited, std::memory_order_acquire);
    while (Seen != Free) {
      syscall(SYS_futex, reinterpret_cast<int *>(&State), FUTEX_WAIT_PRIVATE, Waited, nullptr, nullptr, 0);
      Seen = State.exchange(Waited, std::memory_order_acquire);
    }
  }
  __attribute__((noinline)) void wakeOne() {
    syscall(SYS_futex, reinterpret_cast<int *>(&State), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }

  static_assert(sizeof(std::atomic<int>) == sizeof(int), "the futex word is the atomic itself");
  std::atomic<int> State{Free};
};

} // namespace rt
} // namespace streamlife

#endif
