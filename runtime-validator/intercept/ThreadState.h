//===- ThreadState.h - what an interposed call reads of its thread, in one block -*- C++ -*-===//
//
// The thread-local state that every interposed lock event, block event and
// CUDA call reads: the validator's depth on the thread (ValidatorCode), the
// thread's number (currentThread), its word in the engine
// (Engine::hostStateWord) and its RedundantSyncFilter. Between two of the
// program's calls a framework's own work (the interpreter, the dispatcher, tens
// of MB of working set) evicts them from the caches, so each callback pays a
// miss per cache line it reads (bench/runtime/README.md, rtcapture3). As
// separate thread_locals they were four variables, each reached through its
// own GOT entry (its TLS offset, initial-exec) on a line of its own: the depth,
// the filter's counters and the entry of its cache lay on three lines and the
// offsets on two more. In one block there is one offset to load, and the
// scalars every event reads (the depth, the number, the word, the filter's
// change and queue counts and flags) share the block's first line.
//
// Constant-initialized and defined here, so that reading it is one %fs access
// without a thread_local wrapper call.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_THREADSTATE_H
#define STREAMLIFE_RT_INTERCEPT_THREADSTATE_H

#include "engine/Engine.h"
#include "intercept/RedundantSyncFilter.h"

#include <atomic>
#include <cstdint>

namespace streamlife {
namespace rt {
namespace detail {

/// Dropped releases of a thread between two looks at the queue's length
/// (InterceptThreads.cpp: a release drains a queue grown long). The queue's
/// head is a line every queueing thread writes; a dropped release, most of a
/// program's releases, read it each time.
constexpr std::uint32_t DroppedReleasesPerQueueCheck = 64;

struct alignas(64) ThreadState {
  /// ValidatorCode's depth: > 0 while the thread runs the validator's code.
  int ValidatorDepth = 0;
  /// The thread's id; ~0 until its first call of currentThread().
  ThreadId Number = ~ThreadId(0);
  /// The thread's state in the engine as its word (Engine::hostWord), read
  /// with one load once the engine has given the word's address: twice per
  /// CUDA call (InterceptScope).
  const std::atomic<std::uint64_t> *PublishedHostWord = nullptr;
  /// Dropped releases left until the next one looks at the queue's length.
  std::uint32_t DroppedReleasesUntilQueueCheck = DroppedReleasesPerQueueCheck;
  /// Its scalars first (RedundantSyncFilter.h), so on this line too.
  redundant_sync::ThreadFilter Filter;
};

inline thread_local ThreadState ThisThreadState;

/// Whether this dropped release of the thread looks at the event queue's
/// length (a release drains a queue grown long, InterceptThreads.cpp): one in
/// DroppedReleasesPerQueueCheck. A dropped release queues nothing, so the
/// queue grows only by kept events, and a kept release looks every time;
/// read at every dropped release, the queue's head (a line that every
/// queueing thread writes, and that the program's own work evicts between
/// its calls) cost each one a cache miss. A long queue is drained at most
/// that many of the thread's dropped releases later.
__attribute__((always_inline)) inline bool droppedReleaseChecksQueue(ThreadState &T) {
  if (__builtin_expect(--T.DroppedReleasesUntilQueueCheck != 0, 1))
    return false;
  T.DroppedReleasesUntilQueueCheck = DroppedReleasesPerQueueCheck;
  return true;
}

} // namespace detail

namespace redundant_sync {
/// The calling thread's filter.
inline ThreadFilter &thisThread() { return rt::detail::ThisThreadState.Filter; }
} // namespace redundant_sync

} // namespace rt
} // namespace streamlife

#endif
