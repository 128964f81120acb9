//===- KeptLockCallers.h - whose lock events the validator kept -*- C++ -*-===//
//
// The program's lock events that change a clock are queued and replayed into
// the engine (InterceptThreads.cpp, RedundantSyncFilter.h); on a framework they
// are most of the replay's work (FSDP2 one rank: about two per allocator block
// event). Which code takes those locks decides what could make them fewer, so
// with intercept_stats each kept event is counted by its caller (the return
// address of the interposed call), and the summary names the functions and
// libraries that kept the most.
//
// The same table counts, for intercept_stats' line of lock events ignored as
// a library function's private state, those events by caller
// (CallerLibraries.h, PrivateLockFunctions.h), and for the line of lock events
// the redundant-sync filter dropped, those by caller (counted on the thread
// interposers' observed path, HostSyncQueue.h): the callers whose locks would
// be worth ignoring as private state at the caller cache instead.
//
// Counting is lock-free (an interposer may run inside any lock of the
// program): a fixed open-addressed table of return addresses; callers beyond
// its capacity are counted together as "other callers". Names are looked up
// only when printing, as a report names its frames (report/CallSiteNames.h).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_KEPTLOCKCALLERS_H
#define STREAMLIFE_RT_INTERCEPT_KEPTLOCKCALLERS_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streamlife {
namespace rt {

class KeptLockCallers {
public:
  /// One kept lock event whose interposed call returns to Caller.
  void count(const void *Caller);
  /// count(Caller) when the table holds Caller already; whether it did. The
  /// counts of ignored private-function lock events (CallerLibraries.h) use
  /// it as their set of such callers.
  bool countIfHeld(const void *Caller);

  struct Named {
    std::string Where; ///< "function (library)", or the address where neither is known
    std::uint64_t Events = 0;
  };
  /// The callers with the most events, merged by name (one function may call
  /// a lock from several places), most first, at most Most of them; callers
  /// the table had no room for come last as "other callers".
  std::vector<Named> mostKept(std::size_t Most) const;

  static constexpr std::size_t Capacity = 512;

private:
  struct Slot {
    std::atomic<const void *> Caller{nullptr};
    std::atomic<std::uint64_t> Events{0};
  };
  Slot Slots[Capacity];
  std::atomic<std::uint64_t> Unplaced{0};
};

/// The summary line's text: "N function (library), N ..." of mostKept(Most).
std::string keptLockCallersText(const std::vector<KeptLockCallers::Named> &Callers);

} // namespace rt
} // namespace streamlife

#endif
