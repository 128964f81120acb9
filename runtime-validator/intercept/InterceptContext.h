//===- InterceptContext.h - what an interception mechanism may touch -*- C++ -*-===//
//
// Every mechanism that learns of a CUDA call -- CUPTI driver callbacks, the
// driver's entry points (launches, records, waits), NCCL and
// cuBLAS/cuBLASLt/cuDNN interposition, the annotation entry points, the
// PyTorch allocator feed -- translates it into engine events through this one
// context, as each of ThreadSanitizer's interceptors goes through one
// ScopedInterceptor: the calling thread, its call site as an op, stream handles
// resolved to engine streams, the device, "not analysed" notes, and the
// engine's verbs. No mechanism reaches into the runtime's state (Runtime.h),
// and none decides anything about ordering: that is the engine's business.
//
// An InterceptScope brackets one intercepted call that enters the engine:
// block events that allocators queued before the call are replayed first
// (PyTorch's ALLOC comes before the launch that fills the block), findings
// are printed after it, outside every lock. A context without a scope (the
// annotation entry points, which run under an allocator's lock) may only
// capture call sites and queue.
//
// With the self_profile option every scope and each phase inside it (stack
// capture, stream resolution, parameter decoding, a kernel's first sight, the engine, replaying block
// events, printing findings) is timed; the table is printed at exit
// (SelfProfile.h).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_INTERCEPTCONTEXT_H
#define STREAMLIFE_RT_INTERCEPT_INTERCEPTCONTEXT_H

#include "allocators/AnnotatedAllocators.h"
#include "callsites/CallSites.h"
#include "engine/Engine.h"
#include "intercept/RedundantSyncFilter.h"
#include "intercept/SelfProfile.h"
#include "intercept/ThreadState.h"
#include "report/Reporter.h"

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamlife {
namespace rt {

class ValidatorRuntime;
struct KernelInfo;
struct Options;

namespace detail {
extern std::atomic<ValidatorRuntime *> TheRuntime;
/// Numbers the calling thread (ThreadState.h: ThisThreadState.Number).
ThreadId numberThisThread();
/// Whether launches are counted by plan family, and collectives, library
/// calls and ignored words by name (LaunchStats.h): only with intercept_stats,
/// the one option that prints them. A count searches the family table and
/// makes a locked add on a line every launching thread writes, once per
/// launch. Set before the runtime is published, read-only after.
inline bool CountingLaunches = false;
/// Streams currently capturing into a graph, all runtimes of the process (one
/// outside tests: a count too high only asks the driver). While 0, no launch,
/// record or wait asks the driver whether its stream captures; defined here
/// so that the question is inline, three times per launch-bound step.
inline std::atomic<int> ActiveCaptures{0};
} // namespace detail

/// The process's runtime, or null while passive (no driver, no CUPTI, another
/// CUPTI subscriber, or a forked child). Inline: every intercepted call asks.
inline ValidatorRuntime *runtime() { return detail::TheRuntime.load(std::memory_order_acquire); }

/// A small dense id for the calling OS thread.
inline ThreadId currentThread() {
  ThreadId T = detail::ThisThreadState.Number;
  return __builtin_expect(T != ~ThreadId(0), 1) ? T : detail::numberThisThread();
}

/// True once the process made a CUDA call the validator intercepted.
bool processUsedCuda();

// runtimeOnceCudaUsed, queueHostSync and unappliedEvents, the thread
// interposers' verbs, are inline in HostSyncQueue.h.

/// Marks the calling thread as running validator code: an intercepted call's
/// scope, or an interposer's own bookkeeping. The locks the validator takes
/// meanwhile are its own, so the thread interposers (InterceptThreads.cpp)
/// pass them straight through without classifying their caller.
class ValidatorCode {
public:
  ValidatorCode() { ++detail::ThisThreadState.ValidatorDepth; }
  ~ValidatorCode() { --detail::ThisThreadState.ValidatorDepth; }
  ValidatorCode(const ValidatorCode &) = delete;
  ValidatorCode &operator=(const ValidatorCode &) = delete;
  /// Every interposed lock reads it: on the thread state's first line
  /// (ThreadState.h), with the filter's counters.
  static bool running() { return detail::ThisThreadState.ValidatorDepth > 0; }
};

class InterceptContext {
public:
  /// Ctx is the CUDA context the call runs in (null: the thread's current
  /// one); PerThreadApi: a _ptsz/_ptds variant, whose NULL stream is the
  /// calling thread's per-thread default stream.
  InterceptContext(ValidatorRuntime &R, CUcontext Ctx = nullptr, bool PerThreadApi = false)
      : R(R), T(currentThread()), Ctx(Ctx), PerThreadApi(PerThreadApi) {}
  /// The same on a thread known to be numbered already (ThisThreadState.Number
  /// set: InterceptScopeInline.h says when).
  struct NumberedThread {};
  InterceptContext(ValidatorRuntime &R, NumberedThread, CUcontext Ctx, bool PerThreadApi)
      : R(R), T(detail::ThisThreadState.Number), Ctx(Ctx), PerThreadApi(PerThreadApi) {}

  ThreadId thread() const { return T; }
  const Options &options() const;

  // --- call sites ----------------------------------------------------------
  /// Interns a name ("cuMemcpyAsync", a kernel's); the same text, the same id.
  NameId name(std::string_view Text) const;
  /// "What did this" with the caller's call site: its Python stack when it
  /// runs Python code, else its native stack, sampled per (name, thread) as
  /// the stacks_per_op option says. No CUDA call and no lock but the op
  /// table's: safe under an allocator's lock.
  OpId op(NameId Name) const;
  /// An op of a stack captured earlier (a grouped collective recorded at the
  /// group's end).
  OpId op(NameId Name, const std::vector<void *> &Frames) const;
  /// Op's stack under another name (one launch's accesses of two provenances).
  OpId sameStack(OpId Op, NameId Name) const;
  /// The caller's native stack, as deep as stack_depth says.
  std::vector<void *> nativeStack() const;

  // --- streams and devices -------------------------------------------------
  /// The engine stream of handle H as this call means it.
  StreamId stream(CUstream H) const;
  /// The engine stream of H as used by another thread (a queued block event).
  StreamId streamOf(ThreadId Owner, CUstream H) const;
  /// The device of the call's context.
  int device() const;
  void streamCreated(CUstream H, unsigned Flags, int Priority) const;
  void streamDestroyed(CUstream H) const;
  /// A stream began or ended capturing into a graph.
  void captureBegan() const;
  void captureEnded() const;
  /// True (and noted once) when H is capturing into a graph right now: its
  /// work goes into a graph, not onto the GPU.
  bool capturing(CUstream H) const {
    return detail::ActiveCaptures.load(std::memory_order_relaxed) != 0 && capturingNow(H);
  }

  // --- what the validator cannot see into -----------------------------------
  void notAnalysed(NotAnalysed Kind) const;
  /// "streamlife: note: ..." once per distinct text.
  void note(const std::string &Text) const;

  // --- kernels ---------------------------------------------------------------
  /// The kernel's parameter layout and plan, asking the driver on first sight.
  const KernelInfo &kernel(CUfunction F, const char *SymbolName) const;
  /// Counters for intercept_stats (LaunchStats.h); names are literals.
  void countDecoded(const char *Family) const {
    if (detail::CountingLaunches)
      recordDecoded(Family);
  }
  void countCollective(const char *Api) const {
    if (detail::CountingLaunches)
      recordCollective(Api);
  }
  void countLibraryCall(const char *Api) const {
    if (detail::CountingLaunches)
      recordLibraryCall(Api);
  }
  void countIgnoredWords(std::size_t N) const {
    if (detail::CountingLaunches && N)
      recordIgnoredWords(N);
  }

  // --- the engine's verbs (Engine.h) -----------------------------------------
  void allocated(Range R, AllocKind Kind, StreamId S, OpId Site) const;
  void released(Addr Base, ReleaseKind Kind, StreamId S, OpId Site) const;
  void launched(StreamId S, const std::vector<Range> &Touched, OpId Op) const;
  /// A kernel an interposed library call launched on S: an enqueue with no
  /// accesses of its own (the call's decoded arguments, recorded after it,
  /// are its accesses); the timeline draws the call at this kernel's GPU time.
  void libraryKernelLaunched(StreamId S) const;
  std::size_t launchedWithPointerWords(StreamId S, const PointerWord *Words, std::size_t Count,
                                       OpId Op, OpId GenericOp) const;
  void eventRecorded(Handle Event, StreamId S) const;
  void streamWaitsEvent(StreamId S, Handle Event) const;
  void hostSyncsEvent(Handle Event) const;
  void hostSyncsStream(StreamId S) const;
  void hostSyncsDevice() const;
  void eventDestroyed(Handle Event) const;
  bool isTracked(Addr A) const;

  // --- allocators --------------------------------------------------------------
  /// The driver's stream-ordered pool (cuMemAllocAsync / cuMemFreeAsync).
  /// Device is the pool's; StreamsDevice for the allocation stream's device.
  static constexpr int StreamsDevice = -1;
  void allocatedAsync(Addr Ptr, std::uint64_t Size, StreamId S, OpId Site, int Device) const;
  void freedAsync(Addr Ptr, StreamId S, OpId Site) const;
  /// Allocators that describe their own blocks (annotations.h): queued only.
  int registerAllocator(const std::string &Name, int Policy) const;
  bool allocatorKnown(int Allocator) const;
  std::string allocatorName(int Allocator) const;
  void queueBlockEvent(const BlockEvent &Event) const;
  /// Queues a block release without a site when replay names it by its
  /// request (AnnotatedAllocators::pushReleaseNamedByRequest); false: nothing
  /// queued, capture the site and queueBlockEvent.
  bool queueReleaseNamedByRequest(const BlockEvent &Event) const;
  /// Both of an allocator found allocatorKnown() (the annotation entry
  /// points: AnnotatedAllocators::pushOfKnownAllocator).
  void queueKnownAllocatorBlockEvent(const BlockEvent &Event) const;
  bool queueKnownAllocatorReleaseNamedByRequest(const BlockEvent &Event) const;
  /// Replays the queued block events (InterceptScope does it before a call).
  void replayBlockEvents() const;

  /// Where self-profiling phases are counted (SelfProfile.h).
  SelfProfile &profile() const;

private:
  friend class InterceptScope;
  /// capturing() while some stream captures: the driver is asked.
  bool capturingNow(CUstream H) const;
  /// The launch, record and wait verbs while profiling or recording a
  /// timeline (out of line: their state gave the common path a frame).
  __attribute__((noinline)) std::size_t launchedObserved(StreamId S, const PointerWord *Words,
                                                         std::size_t Count, OpId Op, OpId GenericOp) const;
  __attribute__((noinline)) void eventRecordedObserved(Handle Event, StreamId S) const;
  /// Whether a launch, record, wait or stream-ordered allocation or free goes
  /// behind the queued events instead of to the engine now
  /// (AnnotatedAllocators.h): when some are queued, so that the engine sees
  /// the calls in the order they were made, and with the replay thread always,
  /// which then does the engine's work (never while a timeline records).
  bool deferring() const;
  /// Before an engine call that is never deferred: the queue replayed, so
  /// that the engine meets the call after everything queued before it (a
  /// call's scope replays at its entry, but a deferrable call's scope may
  /// not have, and an interposed library call queues its kernels' launches
  /// before its decoded accesses).
  void settle() const;
  /// The launch queued (deferring()); 0 ignored words known yet.
  __attribute__((noinline)) std::size_t launchDeferred(StreamId S, const PointerWord *Words, std::size_t Count,
                                                       OpId Op, OpId GenericOp) const;
  __attribute__((noinline)) void recordDeferred(Handle Event, StreamId S) const;
  /// A call's engine work queued: counted (intercept_stats), told to the
  /// thread's filter as What, and the replay thread nudged with the events
  /// its push left unapplied (the push's answer, not read again).
  void deferredOne(redundant_sync::Queued What, std::size_t Unapplied) const;
  __attribute__((noinline)) void waitDeferred(StreamId S, Handle Event) const;
  __attribute__((noinline)) void streamWaitsEventObserved(StreamId S, Handle Event) const;
  /// stream() while self-profiling (out of line: the timer's state).
  __attribute__((noinline)) StreamId streamTimed(CUstream H) const;
  /// op() while self-profiling (out of line, as streamTimed).
  __attribute__((noinline)) OpId opTimed(NameId Name) const;
  /// kernel() when F is not the thread's last kernel: the shared cache, or
  /// the driver on first sight (out of line: its state gave every hit a frame).
  __attribute__((noinline)) const KernelInfo &kernelNotLast(void *Handle, const char *SymbolName) const;
  // The counts of count*(), kept only while detail::CountingLaunches.
  void recordDecoded(const char *Family) const;
  void recordCollective(const char *Api) const;
  void recordLibraryCall(const char *Api) const;
  void recordIgnoredWords(std::size_t N) const;

  ValidatorRuntime &R;
  ThreadId T;
  CUcontext Ctx;
  bool PerThreadApi;
};

/// One intercepted call that enters the engine (see the file comment). Empty
/// (false) while the validator is passive; the call is then not recorded.
class InterceptScope {
public:
  /// Slot names the call for the self-profile (SelfProfile::slot).
  explicit InterceptScope(ProfileSlot Slot, CUcontext Ctx = nullptr, bool PerThreadApi = false,
                          bool Deferrable = false);
  /// For a mechanism that holds the runtime already (the CUPTI callback).
  /// Deferrable: a call whose engine work may wait behind the queued events
  /// (a launch, a record, a wait: AnnotatedAllocators.h), so the queue is
  /// replayed at its entry only once replay_batch events wait.
  InterceptScope(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx, bool PerThreadApi,
                 bool Deferrable = false);
  /// The driver calls of the call table (DriverCallTable.h), three per
  /// launch-bound step, run their common case (see InterceptScopeInline.h)
  /// with no scope object: Body(context) between the filter's marks, inline.
  /// False when the call is not the common case and nothing was done: run it
  /// in a scope then. Defined in InterceptScopeInline.h, for the runtime's
  /// core only.
  template <typename Fn>
  static inline bool runCommonCase(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx, bool PerThreadApi,
                                   bool Deferrable, Fn &&Body);
  /// Whether a deferrable call may leave the queue as it is: deferring is on
  /// and fewer than replay_batch events wait.
  static bool mayDefer(const ValidatorRuntime &R);
  ~InterceptScope() {
    if (Context)
      leaveFully();
  }
  InterceptScope(const InterceptScope &) = delete;
  InterceptScope &operator=(const InterceptScope &) = delete;

  explicit operator bool() const { return Context.has_value(); }
  const InterceptContext &context() const { return *Context; }

private:
  void enter(ProfileSlot Slot, bool Deferrable);
  /// The scope's entry and exit when something is to be done besides the
  /// filter's reads (a thread's first call, profiling, the first CUDA call,
  /// queued block events to replay, findings to print): out of line, so
  /// that the common path needs no frame. Noexcept, so that the common path
  /// keeps no state to unwind either: nothing may leave an intercepted call
  /// by an exception anyway (the driver's caller is C).
  __attribute__((noinline)) void enterFully(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx,
                                            bool PerThreadApi, bool Deferrable) noexcept;
  __attribute__((noinline)) void leaveFully() noexcept;
  /// The entry without its out-of-line part: false when it must take it
  /// (enterFully).
  inline bool enterQuickly(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx, bool PerThreadApi);
  /// Whether a call is the common case (InterceptScopeInline.h); Word is the
  /// thread's published word, Slot a call-table row's (none unless profiling).
  static inline bool isCommonCase(ValidatorRuntime &R, ProfileSlot Slot, const std::atomic<std::uint64_t> *Word);
  /// The findings to print at the end of a call, outside every lock.
  __attribute__((noinline)) static void printFindings(ValidatorRuntime &R) noexcept;

  ValidatorCode Running; ///< first: the scope's own locks are the validator's
  std::optional<InterceptContext> Context;
  ProfileTimer Timer;
  // Both set by enter() and read only when Context is: no stores for them
  // before it (three per intercepted call).
  redundant_sync::ThreadFilter *Filter; ///< the calling thread's
  redundant_sync::ThreadFilter::CallMark FilterMark;
  /// Events were queued and not replayed when the call began (a deferrable
  /// call left them): the engine's flags read after it are not the ones
  /// the thread's next event meets (ThreadFilter::cudaCallLeftUnsettled).
  bool Unsettled;
};

/// The self-profile slot of an interposed call named Name (a lookup under a
/// lock while profiling, so keep it where it can be kept); NoProfileSlot when
/// the validator is passive or not profiling.
ProfileSlot profileSlot(const char *Name);

} // namespace rt
} // namespace streamlife

#endif
