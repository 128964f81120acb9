//===- Runtime.h - process-wide state of the preloaded validator -*- C++ -*-===//
//
// One ValidatorRuntime per process, created by the library's constructor and
// never destroyed (CUDA calls back during exit, after static destructors).
// Only the runtime's core includes this header: Runtime.cpp (attach, exit),
// InterceptContext.cpp (the verbs every mechanism uses),
// CuptiSubscription.cpp (the CUPTI mechanism's subscription),
// RuntimeTimeline.cpp (the timeline's names), HostSyncQueue.h (the thread
// interposers' verbs, inline in InterceptThreads.cpp) and InterceptScopeInline.h (an
// intercepted driver call's scope, inline in the call table's path:
// DriverCallTable.h, DriverEntryPoints.cpp). Interception
// mechanisms see InterceptContext.h, never these members.
//
// Locking rules, because the driver calls back into us and a lock held across
// a driver call deadlocked in the measurements (runtime-notes section 8):
//   * a thread-local guard drops callbacks raised by our own driver calls;
//   * no validator lock (engine, resolver, tables, reporter) is ever held while
//     calling the driver, and the engine's FindingSink only queues.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_RUNTIME_H
#define STREAMLIFE_RT_INTERCEPT_RUNTIME_H

#include "allocators/AnnotatedAllocators.h"
#include "allocators/StreamOrderedPool.h"
#include "callsites/CallSites.h"
#include "config/Options.h"
#include "engine/Engine.h"
#include "intercept/CudaLibraries.h"
#include "intercept/InterceptContext.h"
#include "intercept/KernelArguments.h"
#include "intercept/KeptLockCallers.h"
#include "intercept/LaunchStats.h"
#include "intercept/ReplayThread.h"
#include "intercept/RuntimeTimeline.h"
#include "intercept/SelfProfile.h"
#include "intercept/StreamResolver.h"
#include "report/Reporter.h"

#include <atomic>
#include <unistd.h>
#include <mutex>
#include <unordered_map>

namespace streamlife {
namespace rt {

class ValidatorRuntime : public StreamNamer {
public:
  ValidatorRuntime(const Options &Opts, const DriverApi &Driver);

  std::string streamName(StreamId S) override { return Streams.name(S); }

  Options Opts;
  DriverApi Driver;
  OpTable Ops;
  Reporter Report;
  Engine Eng;
  StreamResolver Streams;
  KernelInfoCache Kernels;
  LaunchStats Launches;
  SelfProfile Profile;
  StreamOrderedPool Pool;
  /// Allocators that describe their own blocks (include/streamlife/annotations.h).
  AnnotatedAllocators Annotated;
  /// Replays Annotated's queue beside the program (replay_thread), once
  /// started by the attach.
  ReplayThread Replayer{*this};
  /// The timeline of `--timeline FILE` (null without the option), and its
  /// recorder, which the interception context feeds once the process made
  /// its first CUDA call (null before, and without a timeline).
  std::unique_ptr<RuntimeTimeline> Timeline;
  std::atomic<TimelineRecorder *> Recording{nullptr};
  /// Op -> allocation-site key for the block accounting (sites are few).
  std::uint64_t siteKey(OpId Op);
  /// Set by the first intercepted call: only processes that used CUDA print a
  /// summary (LD_PRELOAD also reaches shells and helper processes).
  std::atomic<bool> UsedCuda{false};
  /// The process the runtime attached to: a vfork()'d child shares the
  /// runtime but not the pid (InterceptProcessEnd.cpp).
  const pid_t AttachedPid = getpid();
  /// Host synchronization events queued (InterceptThreads.cpp), counted
  /// only for intercept_stats.
  std::atomic<std::uint64_t> HostSyncEvents{0};
  /// Queues a releasing thread drained itself, outside any CUDA call, for
  /// having grown long (InterceptThreads.cpp); rare, so always counted.
  std::atomic<std::uint64_t> LongQueueDrains{0};
  /// The kept lock events by caller, counted only for intercept_stats.
  KeptLockCallers KeptLockers;
  /// The lock events ignored as a library function's private state
  /// (PrivateLockFunctions.h), by caller, counted only for intercept_stats.
  KeptLockCallers PrivateFunctionLockers;
  /// The lock events the redundant-sync filter dropped (RedundantSyncFilter.h),
  /// by caller, counted only for intercept_stats (on the interposers' observed
  /// path, HostSyncQueue.h).
  KeptLockCallers DroppedLockers;

private:
  std::mutex SiteKeyLock;
  std::unordered_map<OpId, std::uint64_t> SiteKeys;
};

/// Replays the event queue and prints its findings from a host thread outside
/// any CUDA call (a long queue of lock events, a process ending without exit
/// handlers); false, and nothing done, from inside our own driver calls,
/// which must not come back (CuptiSubscription.cpp).
bool drainQueuedEventsOutsideCuda(ValidatorRuntime &R);

/// The replay thread (ReplayThread.h) when the options ask for it: at the
/// process's first intercepted CUDA call.
void startReplayThread(ValidatorRuntime &R);

/// Interns "what did this" with the calling thread's call site (see
/// InterceptContext::op).
OpId captureOp(ValidatorRuntime &R, NameId Name);

} // namespace rt
} // namespace streamlife

#endif
