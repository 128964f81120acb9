//===- Runtime.cpp - attach, detach, exit handling -------------------------===//
//
// Mechanism: CUPTI callbacks on the DRIVER API domain, for the cbids the
// interceptor families own (CuptiSubscription.cpp). Why, from measurements on
// the H200 machine (runtime-notes section 8, and the numbers in the closing
// report of issue 3):
//   * CUPTI sees every driver call whoever makes it: the runtime (which reaches
//     the driver through dlsym + cuGetProcAddress, so symbol interposition of
//     cu* misses it unless dlsym and cuGetProcAddress are wrapped too), cuBLAS,
//     Triton's launchers (dlsym of cuLaunchKernelEx), PyTorch's
//     cudaGetDriverEntryPointByVersion, NCCL. Interposition would have to
//     chase every one of those lookup paths; CUPTI needs none.
//   * A runtime call raises its runtime callback AND the driver callback of the
//     driver call behind it (65 = 65 launches in the seed demo). Subscribing to
//     the driver domain only counts each launch once and still covers programs
//     that call the driver directly.
//   * Only cbids we handle are enabled, so the rest of the driver API runs at
//     full speed. Measured (H200, 100k launches of a small kernel on two
//     streams with events): median host time per launch 3.05 us without the
//     validator, 3.39-3.46 us with it (+0.35-0.4 us; one noisy run +1.9 us);
//     compute-sanitizer memcheck with stream-ordered race tracking: 39 us.
// Later measured (bench/runtime/README.md, "Where the launch cost goes"):
// CUPTI's dispatch of the enter and exit callbacks of a launch, an event
// record and a stream wait alone costs 0.82 us per step on the H200, more
// than the whole launch budget. So those rows, and the stream-ordered
// allocations and frees that PyTorch's cudaMallocAsync backend makes hundreds
// of a step, are carried at the driver's entry points instead where that is
// possible (DriverEntryPoints.h: the direct, cuGetProcAddress and dlsym paths
// all chased there), and CUPTI keeps every other row, whose calls are not hot.
// Cost: CUPTI allows one subscriber per process; when another tool holds it
// (Nsight, a PyTorch profiler session started first), we print one line and
// stay passive rather than break the program.
//
//===----------------------------------------------------------------------===//
#include "intercept/Runtime.h"
#include "intercept/CallerLibraries.h"
#include "intercept/DriverCallTable.h"
#include "intercept/DriverEntryPoints.h"
#include "intercept/HostSyncQueue.h"
#include "intercept/PrivateLockImports.h"
#include "intercept/RedundantSyncFilter.h"

#include "callsites/PythonCallSites.h"

#include "report/CallSiteNames.h"
#include "report/LogFile.h"
#include "report/SharedReport.h"
#include "report/SourceLocations.h"
#include "support/ProcessTally.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace streamlife {
namespace rt {

// Defined in CuptiSubscription.cpp.
bool subscribeCupti(ValidatorRuntime &R, std::string &Why);
void enableRuntimeCorrelation();
void printApiStats(std::FILE *Out);

namespace {
/// Callers named on intercept_stats' lines of lock events by caller (kept,
/// dropped, ignored as private state).
constexpr std::size_t MostKeptLockCallers = 6;

EngineOptions engineOptions(const Options &Opts) {
  EngineOptions E;
  E.WaitBeforeFree = Opts.wait_before_free;
  return E;
}

using detail::TheRuntime;
std::atomic<ThreadId> NextThread{0};

/// Replays what annotated allocators queued since the last CUDA call, then
/// prints the summary (with their block accounting) once.
/// The summary's block-accounting lines: per allocation site of annotated
/// allocators, the blocks it was handed and what was held back.
std::vector<std::string> blockSummaryLines(ValidatorRuntime &R) {
  std::vector<std::string> Lines;
  std::size_t Shown = 0;
  for (const BlockAccount &A : R.Annotated.accounts()) {
    if (Shown++ >= static_cast<std::size_t>(R.Opts.summary_sites))
      break;
    BlockSiteSummary S;
    S.Allocator = R.Annotated.allocatorName(A.Allocator);
    std::string Symbolizer =
        R.Opts.symbolize ? findSymbolizer(R.Opts.symbolizer_path) : std::string();
    std::vector<std::string> Frames = reportFrames(R.Ops.op(A.Site), 1, Symbolizer);
    S.Site = Frames.empty() ? std::string() : Frames.front();
    S.Allocations = A.Allocations;
    S.DistinctBlocks = A.DistinctBlocks;
    S.PeakLiveBlocks = A.PeakLiveBlocks;
    S.PeakHeldBackBytes = A.PeakHeldBackBytes;
    Lines.push_back(blockSummaryLine(S));
  }
  return Lines;
}

void finishReport(ValidatorRuntime &R) {
  if (R.Report.finished())
    return;
  // The replay thread's current batch is applied before the last replay
  // returns (drain waits for it); it takes none after.
  R.Replayer.stop();
  InterceptContext(R).replayBlockEvents();
  std::vector<std::string> Details = blockSummaryLines(R);
  // Releases whose unordered access no reuse met (engine/DeferredFrees.cpp):
  // said, each site once, so that a silent run shows what it did not report
  // and where a team enforcing "wait before free" must look.
  Engine::Stats St = R.Eng.stats();
  if (St.DeferredNotReported) {
    Details.push_back(deferredSummaryLine(St.DeferredNotReported, St.DeferredPending));
    for (std::string &Line : R.Report.deferredReleaseLines(
             R.Eng.deferredReleases(), R, static_cast<std::size_t>(R.Opts.summary_sites)))
      Details.push_back(std::move(Line));
  }
  R.Report.setSummaryDetails(std::move(Details));
  bool Used = R.UsedCuda.load();
  R.Report.finish(R, Used && R.Opts.print_summary, Used);
  if (R.Timeline)
    R.Timeline->finish();
}

void finishProcess() {
  ValidatorRuntime *R = TheRuntime.load();
  if (!R)
    return;
  finishReport(*R);
  if (R->Opts.api_stats)
    printApiStats(validatorLog());
  if (R->Opts.intercept_stats && R->UsedCuda.load()) {
    printInterceptStats(validatorLog());
    R->Launches.print(validatorLog(), R->Annotated.ignoredGenericWords());
    Engine::Stats St = R->Eng.stats();
    std::fprintf(validatorLog(),
                 "streamlife: intercept-stats: host synchronization: %llu events (mutex, "
                 "semaphore, thread start/join), %llu more that changed no clock dropped, %zu host "
                 "threads, %zu synchronization objects\n",
                 static_cast<unsigned long long>(R->HostSyncEvents.load()),
                 static_cast<unsigned long long>(redundant_sync::dropped()), St.HostClocks,
                 St.SyncObjects);
    std::vector<KeptLockCallers::Named> Kept = R->KeptLockers.mostKept(MostKeptLockCallers);
    if (!Kept.empty())
      std::fprintf(validatorLog(), "streamlife: intercept-stats: kept lock events by caller: %s\n",
                   keptLockCallersText(Kept).c_str());
    std::vector<KeptLockCallers::Named> Dropped = R->DroppedLockers.mostKept(MostKeptLockCallers);
    if (!Dropped.empty())
      std::fprintf(validatorLog(), "streamlife: intercept-stats: dropped lock events by caller: %s\n",
                   keptLockCallersText(Dropped).c_str());
    std::vector<KeptLockCallers::Named> Ignored = R->PrivateFunctionLockers.mostKept(MostKeptLockCallers);
    if (!Ignored.empty())
      std::fprintf(validatorLog(),
                   "streamlife: intercept-stats: lock events ignored as private state by function: %s\n",
                   keptLockCallersText(Ignored).c_str());
    std::fprintf(validatorLog(),
                 "streamlife: intercept-stats: long queues of lock events drained outside CUDA calls: %llu\n",
                 static_cast<unsigned long long>(R->LongQueueDrains.load()));
    if (R->Replayer.running()) {
      // Read before the totals: the thread may still be replaying.
      const std::uint64_t Replays = R->Replayer.replays(), Events = R->Replayer.eventsReplayed();
      std::fprintf(validatorLog(),
                   "streamlife: intercept-stats: replay thread: woken %llu times, %llu replays of %llu events; "
                   "the program's threads: %llu replays of %llu events\n",
                   static_cast<unsigned long long>(R->Replayer.wakes()), static_cast<unsigned long long>(Replays),
                   static_cast<unsigned long long>(Events),
                   static_cast<unsigned long long>(R->Annotated.batchesApplied() - Replays),
                   static_cast<unsigned long long>(R->Annotated.applied() - Events));
    }
    AnnotatedAllocators::DrainWaits Waits = R->Annotated.drainWaits();
    std::fprintf(validatorLog(),
                 "streamlife: intercept-stats: replays that waited for another thread's batch: %llu, %.3f ms in "
                 "all\n",
                 static_cast<unsigned long long>(Waits.Count), static_cast<double>(Waits.Nanoseconds) / 1e6);
    if (R->Opts.bind_private_locks) {
      PrivateLockImportsBound Bound = privateLockImportsBound();
      std::fprintf(validatorLog(),
                   "streamlife: intercept-stats: lock calls of private libraries bound past the interposers: %zu "
                   "slots in %zu %s%s%s%s\n",
                   Bound.Slots, Bound.Libraries, Bound.Libraries == 1 ? "library" : "libraries",
                   Bound.Names.empty() ? "" : " (", Bound.Names.c_str(), Bound.Names.empty() ? "" : ")");
    }
  }
  if (R->Opts.self_profile && R->UsedCuda.load())
    R->Profile.print(stderr);
  if (R->Opts.error_exitcode != 0 && R->Report.findingCount() > 0) {
    // Like the sanitizers: replace the exit status. Everything of ours is
    // flushed above; flush stdio for the program, then end without running
    // the remaining exit handlers a second time.
    std::fflush(nullptr);
    _exit(static_cast<int>(R->Opts.error_exitcode));
  }
}

void atExit() { finishProcess(); }

/// `--timeline FILE`: the recorder beside the engine, told about the
/// allocators' blocks and the reported findings, with the runtime calls'
/// correlation ids when the GPU times come from CUPTI. CUPTI's activity
/// records are enabled now, before any CUDA call; the file is created at the
/// process's first CUDA call (InterceptScope), so that the processes of a run
/// that use no CUDA (a shell, a compiler a framework spawns) write nothing.
void openTimeline(ValidatorRuntime &R) {
  R.Timeline = RuntimeTimeline::prepare(R);
  R.Annotated.setObserver(R.Timeline.get());
  R.Report.setObserver(R.Timeline.get());
  if (R.Timeline->gpuTime())
    enableRuntimeCorrelation();
}

// A forked child runs no CUDA (the driver does not survive fork) and must not
// print a second summary or rewrite the parent's report: it goes passive.
void inForkedChild() {
  setDriverEntryPointRuntime(nullptr);
  TheRuntime.store(nullptr);
  detail::TheLockEventGate.CudaUsingRuntime.store(nullptr); // runtimeOnceCudaUsed: passive too
}

} // namespace

ValidatorRuntime::ValidatorRuntime(const Options &Opts, const DriverApi &Driver)
    : Opts(Opts), Driver(Driver), Report(this->Opts, Ops, nullptr),
      Eng(Report, engineOptions(this->Opts)),
      Streams(Eng, this->Driver), Kernels(this->Driver), Pool(Eng),
      Annotated(Eng, [this](OpId Op) { return siteKey(Op); }) {
  if (this->Opts.self_profile)
    Profile.enable();
  Annotated.setStreamOrderedPool(&Pool.events());
  // A stream new to the engine starts from the common knowledge of the events
  // applied so far: those queued before the call that names it come first
  // (not inside a replay, whose own resolution must not replay again).
  Streams.beforeNewStream(
      [](void *Self) {
        auto &R = *static_cast<ValidatorRuntime *>(Self);
        if (!AnnotatedAllocators::drainingOnThisThread() && R.Annotated.hasPending())
          InterceptContext(R).replayBlockEvents();
      },
      this);
}

std::uint64_t ValidatorRuntime::siteKey(OpId Op) {
  {
    std::lock_guard<std::mutex> Guard(SiteKeyLock);
    if (auto It = SiteKeys.find(Op); It != SiteKeys.end())
      return It->second;
  }
  std::uint64_t Key = callSiteKey(Ops.op(Op)); // symbolizes: outside the lock
  std::lock_guard<std::mutex> Guard(SiteKeyLock);
  SiteKeys.emplace(Op, Key);
  return Key;
}

namespace detail {
std::atomic<ValidatorRuntime *> TheRuntime{nullptr};

ThreadId numberThisThread() {
  ThisThreadState.Number = NextThread.fetch_add(1);
  return ThisThreadState.Number;
}
} // namespace detail

namespace {

/// One (name, thread)'s sampling of its call sites (captureOp).
struct SampledSite {
  NameId Name = 0;
  std::uint32_t Count = 0;
  std::uint32_t SinceCheck = 0;
  OpId Last = NoOp;
};
constexpr std::uint32_t RecheckEvery = 64;
// Names are interned densely (0, 1, 2...), so a direct-mapped table is a
// lookup without hashing or allocation; two names that share a slot evict
// each other, which only restarts their sampling. 1024 covers the distinct
// kernels of a training step.
constexpr std::size_t SampledSlots = 1024;
thread_local SampledSite SampledSites[SampledSlots];

/// The unwind and the interning, out of line: the sampled path that reuses
/// the last op keeps no frame for the stack's 64 frames.
__attribute__((noinline)) OpId captureAndSample(ValidatorRuntime &R, NameId Name, SampledSite *S) {
  void *Frames[MaxStackFrames];
  int Depth = static_cast<int>(R.Opts.stack_depth);
  int N = captureStack(Frames, Depth > MaxStackFrames ? MaxStackFrames : Depth);
  OpId Op = R.Ops.intern(Name, Frames, N);
  if (S) {
    if (S->SinceCheck >= RecheckEvery && Op != S->Last)
      S->Count = 0; // the site moved: sample afresh
    S->SinceCheck = 0;
    ++S->Count;
    S->Last = Op;
  }
  return Op;
}

} // namespace

namespace {
/// captureOp for a native call site, sampled. Inline in both callers below.
__attribute__((always_inline)) inline OpId captureNativeOp(ValidatorRuntime &R, NameId Name) {
  // Unwinding through CUPTI, the driver and the runtime costs 2-6 us per call
  // (measured on the H200: 100k launches, 32 frames), several times the launch
  // itself. A launch-bound loop launches the same kernel from the same place
  // again and again, so after stacks_per_op full stacks per (name, thread) the
  // last op is reused. Every RecheckEvery-th reuse unwinds again: when the call
  // site has moved, sampling starts over, so a kernel launched from a new place
  // gets its own site within RecheckEvery calls.
  long Limit = R.Opts.stacks_per_op;
  SampledSite *S = nullptr;
  if (Limit > 0) {
    S = &SampledSites[Name % SampledSlots];
    if (S->Name != Name)
      *S = SampledSite{Name};
    if (S->Count >= static_cast<std::uint64_t>(Limit) && S->Last != NoOp && ++S->SinceCheck < RecheckEvery)
      return S->Last;
  }
  return captureAndSample(R, Name, S);
}

/// captureOp in a Python program: its call site is its Python stack, copied
/// from the thread's shadow stack (cheap, exact): no native unwinding, no
/// sampling. Out of line, so that a native program's sampled hit in
/// captureOp needs no frame (it is all tail calls and returns: -5
/// instructions per launch).
__attribute__((noinline)) OpId capturePythonOp(ValidatorRuntime &R, NameId Name) {
  if (OpId Op = internPythonCallSite(R.Ops, Name); Op != NoOp)
    return Op;
  return captureNativeOp(R, Name);
}
} // namespace

void startReplayThread(ValidatorRuntime &R) {
  // Not while a timeline records: its lanes follow the replay order, which
  // only the calls' own replays keep (InterceptScope::mayDefer).
  if (!R.Opts.replay_thread || !R.Opts.defer_cuda_ops || !R.Opts.timeline.empty())
    return;
  if (!R.Replayer.start(static_cast<std::size_t>(R.Opts.replay_thread_wake), R.Opts.replay_thread_nap_ns) &&
      R.Opts.verbosity > 0)
    std::fprintf(validatorLog(), "streamlife: note: no replay thread (pid %d): the program's threads replay\n",
                 getpid());
}

OpId captureOp(ValidatorRuntime &R, NameId Name) {
  if (R.Opts.stack_depth > 0 && pythonStacksAttached())
    return capturePythonOp(R, Name);
  return captureNativeOp(R, Name);
}

/// Attaches to the process; runs before main (and before Python imports torch).
__attribute__((constructor)) static void attachToProcess() {
  Options Opts;
  if (const char *Text = std::getenv("STREAMLIFE_OPTIONS")) {
    std::vector<std::string> Errors;
    parseOptionString(Opts, Text, Errors);
    for (const std::string &E : Errors)
      std::fprintf(stderr, "streamlife: error: STREAMLIFE_OPTIONS: %s\n", E.c_str());
  }
  // From here on everything the validator prints goes to log_path's file
  // (opened at its first line) or stderr.
  setValidatorLog(Opts.log_path);
  if (Opts.help && claimWarning("help=1: the option list"))
    std::fputs(renderOptionList(Opts).c_str(), validatorLog());
  // Several processes of one command (a launcher and its workers) would
  // overwrite one report; '%p' gives each its own.
  for (std::size_t At = Opts.report.find("%p"); At != std::string::npos; At = Opts.report.find("%p"))
    Opts.report.replace(At, 2, std::to_string(getpid()));
  // The processes of one run merge into one report (report/SharedReport.h):
  // fix the run id now, before this process starts any other.
  if (!Opts.report.empty())
    (void)currentRunId();
  DriverApi Driver;
  std::string Why;
  if (!loadDriver(Driver, Why)) {
    // Shells and helpers of a CPU-only machine land here: stay silent.
    if (Opts.verbosity > 0)
      std::fprintf(validatorLog(), "streamlife: note: not attached (pid %d): %s\n", getpid(), Why.c_str());
    return;
  }
  auto *R = new ValidatorRuntime(Opts, Driver); // never deleted: CUDA calls back during exit
  // Launches, records, waits and stream-ordered allocations and frees at the
  // driver's entry points where they can be (DriverEntryPoints.h), decided
  // once for the whole process. A timeline
  // keeps them with CUPTI: it matches each enqueue with its activity record
  // by CUPTI's correlation id of the call, which only a callback carries.
  std::string NoEntryPoints;
  bool AtEntryPoints = false;
  if (!Opts.driver_entry_points)
    NoEntryPoints = "driver_entry_points=0";
  else if (!Opts.timeline.empty())
    NoEntryPoints = "a timeline is recorded";
  else
    AtEntryPoints = prepareDriverEntryPoints(NoEntryPoints);
  setUpDriverCalls(*R, AtEntryPoints);
  detail::CountingLaunches = R->Opts.intercept_stats;
  redundant_sync::countDropped(R->Opts.intercept_stats);
  // The thread interposers' observed path: the profile times their events,
  // intercept_stats counts the dropped ones by caller.
  observeLockEvents(R->Opts.self_profile || R->Opts.intercept_stats);
  if (R->Opts.intercept_stats)
    countPrivateFunctionLocks(&R->PrivateFunctionLockers);
  if (R->Opts.bind_private_locks)
    onPrivateCallerFirstSeen(&bindPrivateLockImports);
  if (!subscribeCupti(*R, Why)) {
    // Every process of `run -- sh -c '...'` fails alike: say it once per run.
    if (claimWarning(Why))
      std::fprintf(validatorLog(), "streamlife: warning: the runtime validator is not active in this process: %s\n",
                   Why.c_str());
    return;
  }
  if (!Opts.timeline.empty())
    openTimeline(*R);
  if (AtEntryPoints)
    activateDriverEntryPoints();
  TheRuntime.store(R, std::memory_order_release);
  if (AtEntryPoints)
    setDriverEntryPointRuntime(R);
  std::atexit(atExit);
  pthread_atfork(nullptr, nullptr, inForkedChild);
  if (Opts.verbosity > 0) {
    if (AtEntryPoints)
      std::fprintf(validatorLog(),
                   "streamlife: note: attached to pid %d through CUPTI driver-API callbacks, with "
                   "launches, event records, stream waits and stream-ordered allocations and frees at the "
                   "driver's entry points\n",
                   getpid());
    else
      std::fprintf(validatorLog(),
                   "streamlife: note: attached to pid %d through CUPTI driver-API callbacks (launches, "
                   "event records, stream waits and stream-ordered allocations and frees too: %s)\n",
                   getpid(), NoEntryPoints.c_str());
  }
}

/// Also finishes when the library is unloaded without exit() (dlclose).
__attribute__((destructor)) static void detachFromProcess() {
  if (ValidatorRuntime *R = TheRuntime.load())
    finishReport(*R);
}

/// CUDA teardown (a context being destroyed): print what is queued now, in case
/// the process does not reach exit handlers after the runtime shut down.
void flushAtCudaTeardown(ValidatorRuntime &R) { R.Report.drain(R); }

} // namespace rt
} // namespace streamlife
