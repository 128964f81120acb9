//===- LockEventGate.h - what every reported lock event asks first, on one line -*- C++ -*-===//
//
// The process-wide words that every lock event the thread interposers report
// reads before its filter's question (InterceptThreads.cpp, HostSyncQueue.h):
// the runtime once the process used CUDA, whether the events are observed
// (a self-profile or intercept_stats) and whether the filter counts the ones it
// drops. They were three variables on three lines (the runtime's pointer, the
// runtime's UsedCuda flag deep in the runtime object, the observed flag), and
// between two of the program's calls its own work evicts them: every
// reported event paid a cache miss per line (bench/runtime/README.md,
// rtcapture3). Written at start-up and once at the process's first CUDA
// call, read-only after: no line here is written per event.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_LOCKEVENTGATE_H
#define STREAMLIFE_RT_INTERCEPT_LOCKEVENTGATE_H

#include <atomic>
#include <cstdint>

namespace streamlife {
namespace rt {

class ValidatorRuntime;

namespace detail {
struct alignas(64) LockEventGate {
  /// The published runtime (runtime()) once it marked the process as one
  /// that used CUDA (ValidatorRuntime::UsedCuda, never cleared); null before,
  /// and in a forked child (passive). Stored with release after the runtime
  /// was acquired from its publication, so an acquiring load sees it built.
  std::atomic<ValidatorRuntime *> CudaUsingRuntime{nullptr};
  /// lockEventsObserved's flag (0 or 1), set at start-up (observeLockEvents).
  /// A word, not a bool: tested as a word, the interposers compile to the same
  /// instructions as before the flag (a byte's test cost a dropped lock one
  /// instruction).
  std::atomic<std::uintptr_t> ObservingLockEvents{0};
  /// RedundantSyncFilter's countDropped: the filter counts what it drops.
  bool CountingDropped = false;
};
/// Constant-initialized and defined here: read inline by every interposer.
inline LockEventGate TheLockEventGate;
} // namespace detail

} // namespace rt
} // namespace streamlife

#endif
