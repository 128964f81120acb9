//===- InterceptContext.cpp - the verbs every interception mechanism uses --===//
#include "intercept/InterceptContext.h"
#include "intercept/HostSyncQueue.h"
#include "intercept/InterceptScopeInline.h"
#include "intercept/RedundantSyncFilter.h"

#include "intercept/Interposition.h"
#include "intercept/Runtime.h"

namespace streamlife {
namespace rt {

const Options &InterceptContext::options() const { return R.Opts; }
SelfProfile &InterceptContext::profile() const { return R.Profile; }

// --- call sites ---------------------------------------------------------------

NameId InterceptContext::name(std::string_view Text) const { return R.Ops.internName(Text); }

OpId InterceptContext::op(NameId Name) const {
  // Profiling apart: the timed phase's state gave every launch's capture a
  // frame of two saved registers, set up before the profile was asked.
  if (__builtin_expect(R.Profile.enabled(), 0))
    return opTimed(Name);
  return captureOp(R, Name);
}

OpId InterceptContext::opTimed(NameId Name) const {
  return timedPhase(R.Profile, ProfilePhase::CallSites, [&] { return captureOp(R, Name); });
}

OpId InterceptContext::op(NameId Name, const std::vector<void *> &Frames) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::CallSites);
  return R.Ops.intern(Name, Frames.data(), static_cast<int>(Frames.size()));
}

OpId InterceptContext::sameStack(OpId Op, NameId Name) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::CallSites);
  return R.Ops.sameStack(Op, Name);
}

std::vector<void *> InterceptContext::nativeStack() const {
  ProfileTimer Timer(R.Profile, ProfilePhase::CallSites);
  void *Frames[MaxStackFrames];
  int Depth = static_cast<int>(R.Opts.stack_depth);
  int N = captureStack(Frames, Depth > MaxStackFrames ? MaxStackFrames : Depth);
  return std::vector<void *>(Frames, Frames + N);
}

// --- streams and devices --------------------------------------------------------

StreamId InterceptContext::streamTimed(CUstream H) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::Streams);
  return R.Streams.resolve(T, H, PerThreadApi, Ctx);
}

StreamId InterceptContext::stream(CUstream H) const {
  // Profiling apart: its timer's state made the resolver's inline hit set up
  // a frame of six saved registers, more than the hit itself.
  if (__builtin_expect(R.Profile.enabled(), 0))
    return streamTimed(H);
  return R.Streams.resolve(T, H, PerThreadApi, Ctx);
}

StreamId InterceptContext::streamOf(ThreadId Owner, CUstream H) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::Streams);
  return R.Streams.resolve(Owner, H, false, Ctx);
}

int InterceptContext::device() const { return R.Streams.currentDevice(Ctx); }

void InterceptContext::streamCreated(CUstream H, unsigned Flags, int Priority) const {
  R.Streams.created(T, H, Flags, Priority, Ctx);
}

void InterceptContext::streamDestroyed(CUstream H) const { R.Streams.destroyed(T, H); }

void InterceptContext::captureBegan() const { detail::ActiveCaptures.fetch_add(1); }

void InterceptContext::captureEnded() const {
  int Active = detail::ActiveCaptures.load();
  while (Active > 0 && !detail::ActiveCaptures.compare_exchange_weak(Active, Active - 1)) {
  }
}

bool InterceptContext::capturingNow(CUstream H) const {
  if (!R.Driver.StreamIsCapturing)
    return false;
  CUstreamCaptureStatus Status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (R.Driver.StreamIsCapturing(H, &Status) != CUDA_SUCCESS)
    return false;
  return Status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// --- notes ---------------------------------------------------------------------

void InterceptContext::notAnalysed(NotAnalysed Kind) const { R.Report.noteNotAnalysed(Kind); }
void InterceptContext::note(const std::string &Text) const { R.Report.note(Text); }

// --- kernels and counters ----------------------------------------------------------

const KernelInfo &InterceptContext::kernel(CUfunction F, const char *SymbolName) const {
  void *Handle = reinterpret_cast<void *>(F);
  if (const KernelInfo *Last = R.Kernels.lastOfThread(Handle))
    return *Last;
  return kernelNotLast(Handle, SymbolName);
}

const KernelInfo &InterceptContext::kernelNotLast(void *Handle, const char *SymbolName) const {
  if (const KernelInfo *Known = R.Kernels.find(Handle))
    return *Known;
  // Timed apart from the launches' decoding: the driver's answers, demangling
  // and choosing the plan happen once per kernel, in a program's first steps.
  ProfileTimer Timer(R.Profile, ProfilePhase::KernelFirstSight);
  return *R.Kernels.get(Handle, SymbolName, R.Ops);
}

void InterceptContext::recordDecoded(const char *Family) const { R.Launches.decoded(Family); }
void InterceptContext::recordCollective(const char *Api) const { R.Launches.collective(Api); }
void InterceptContext::recordLibraryCall(const char *Api) const { R.Launches.libraryCall(Api); }
void InterceptContext::recordIgnoredWords(std::size_t N) const { R.Launches.ignoredGenericWords(N); }

// --- the engine --------------------------------------------------------------------

void InterceptContext::allocated(Range Bytes, AllocKind Kind, StreamId S, OpId Site) const {
  settle();
  int Device = device();
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  R.Eng.allocated(T, Bytes, Kind, S, Site, Device);
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->allocated(T, Bytes, Kind == AllocKind::StreamOrdered || Kind == AllocKind::CachingAllocator,
                  S, Site);
}

void InterceptContext::released(Addr Base, ReleaseKind Kind, StreamId S, OpId Site) const {
  settle();
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  R.Eng.released(T, Base, Kind, S, Site);
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire)) {
    TL->releaseRequested(T, Base, S, Site);
    TL->released(T, Base, Site);
  }
}

void InterceptContext::launched(StreamId S, const std::vector<Range> &Touched, OpId Op) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  if (deferring()) {
    deferredOne(redundant_sync::Queued::Access,
                R.Annotated.pushTouched(T, S, Touched.data(), Touched.size(), Op));
  } else {
    settle();
    R.Eng.launched(T, S, Touched, Op);
  }
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->work(T, S, Op, Touched, workCorrelation(LibraryCallScope::current()));
}

void InterceptContext::libraryKernelLaunched(StreamId S) const {
  static const std::vector<Range> None;
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  // An enqueue with no accesses: a launch of no words, behind the queue when
  // deferring (before it, the engine would order S ahead of queued events).
  if (deferring())
    launchDeferred(S, nullptr, 0, NoOp, NoOp);
  else
    R.Eng.launched(T, S, None, NoOp);
  if (R.Recording.load(std::memory_order_relaxed))
    noteLibraryKernel(LibraryCallScope::current());
}

// The three verbs of a launch-bound step: unprofiled and with no timeline
// recording, the engine's call is the verb's last act, a tail call with no
// frame of the verb's own; the observed forms are apart so that their state
// gives the common path no frame either.
std::size_t InterceptContext::launchedWithPointerWords(StreamId S, const PointerWord *Words,
                                                       std::size_t Count, OpId Op,
                                                       OpId GenericOp) const {
  if (__builtin_expect(!R.Recording.load(std::memory_order_acquire) && !R.Profile.enabled(), 1)) {
    if (deferring())
      return launchDeferred(S, Words, Count, Op, GenericOp);
    return R.Eng.launchedWithPointerWords(T, S, Words, Count, Op, GenericOp);
  }
  return launchedObserved(S, Words, Count, Op, GenericOp);
}

void InterceptContext::recordDeferred(Handle Event, StreamId S) const {
  deferredOne(redundant_sync::Queued::Access, R.Annotated.pushEventRecorded(T, Event, S));
}

void InterceptContext::waitDeferred(StreamId S, Handle Event) const {
  deferredOne(redundant_sync::Queued::Access, R.Annotated.pushStreamWaited(T, S, Event));
}

void InterceptContext::deferredOne(redundant_sync::Queued What, std::size_t Unapplied) const {
  if (detail::CountingLaunches)
    R.Launches.deferred();
  // To the filter, an operation that enters the engine later, as the
  // allocators' block events do (a launch, record, wait, copy or set as a
  // declared access: only a thread's first one changes its clock).
  redundant_sync::thisThread().queued(What);
  R.Replayer.nudge(Unapplied);
}

void InterceptContext::settle() const {
  if (__builtin_expect(R.Annotated.hasPending(), 0))
    replayBlockEvents();
}

bool InterceptContext::deferring() const {
  // Not while a timeline records (InterceptScope::mayDefer says why). With
  // the replay thread, also with nothing queued ahead: the program's threads
  // then leave the engine to it, whose memory stays on its core (a call that
  // met the engine directly whenever the thread had just emptied the queue
  // took its lines back and waited for its lock: more time on the calling
  // thread than the replay it saved, bench/runtime/README.md).
  return R.Opts.defer_cuda_ops && (R.Annotated.hasPending() || R.Replayer.running()) &&
         !R.Recording.load(std::memory_order_relaxed);
}

std::size_t InterceptContext::launchDeferred(StreamId S, const PointerWord *Words, std::size_t Count,
                                             OpId Op, OpId GenericOp) const {
  deferredOne(redundant_sync::Queued::Access, R.Annotated.pushLaunch(T, S, Words, Count, Op, GenericOp));
  return 0;
}

std::size_t InterceptContext::launchedObserved(StreamId S, const PointerWord *Words, std::size_t Count,
                                               OpId Op, OpId GenericOp) const {
  return timedPhase(R.Profile, ProfilePhase::Engine, [&] {
    std::size_t Ignored = deferring() ? launchDeferred(S, Words, Count, Op, GenericOp)
                                      : R.Eng.launchedWithPointerWords(T, S, Words, Count, Op, GenericOp);
    if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
      TL->work(T, S, Op, Words, Count, currentCorrelation());
    return Ignored;
  });
}

void InterceptContext::eventRecorded(Handle Event, StreamId S) const {
  if (__builtin_expect(!R.Recording.load(std::memory_order_acquire) && !R.Profile.enabled(), 1)) {
    if (deferring())
      return recordDeferred(Event, S);
    return R.Eng.eventRecorded(T, Event, S);
  }
  eventRecordedObserved(Event, S);
}

void InterceptContext::eventRecordedObserved(Handle Event, StreamId S) const {
  timedPhase(R.Profile, ProfilePhase::Engine, [&] {
    if (deferring())
      recordDeferred(Event, S);
    else
      R.Eng.eventRecorded(T, Event, S);
    if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
      TL->eventRecorded(T, Event, S);
  });
}

void InterceptContext::streamWaitsEvent(StreamId S, Handle Event) const {
  if (__builtin_expect(!R.Recording.load(std::memory_order_acquire) && !R.Profile.enabled(), 1)) {
    if (deferring())
      return waitDeferred(S, Event);
    return R.Eng.streamWaitsEvent(T, S, Event);
  }
  streamWaitsEventObserved(S, Event);
}

void InterceptContext::streamWaitsEventObserved(StreamId S, Handle Event) const {
  timedPhase(R.Profile, ProfilePhase::Engine, [&] {
    if (deferring())
      waitDeferred(S, Event);
    else
      R.Eng.streamWaitsEvent(T, S, Event);
    if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
      TL->streamWaitsEvent(T, S, Event);
  });
}

void InterceptContext::hostSyncsEvent(Handle Event) const {
  settle();
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  R.Eng.hostSyncsEvent(T, Event);
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->hostSynced(T, HostSyncKind::Event, NoStream, Event);
}

void InterceptContext::hostSyncsStream(StreamId S) const {
  settle();
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  R.Eng.hostSyncsStream(T, S);
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->hostSynced(T, HostSyncKind::Stream, S, 0);
}

void InterceptContext::hostSyncsDevice() const {
  settle();
  int Device = device();
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  R.Eng.hostSyncsDevice(T, Device);
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->hostSynced(T, HostSyncKind::Device, NoStream, 0);
}

void InterceptContext::eventDestroyed(Handle Event) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  // Deferrable: the engine only forgets the event's clock, and whatever
  // names the handle next (a record of an event created again with it, a
  // wait) is queued behind the destruction, or replays it first.
  if (deferring()) {
    deferredOne(redundant_sync::Queued::Access, R.Annotated.pushEventDestroyed(T, Event));
  } else {
    settle();
    R.Eng.eventDestroyed(T, Event);
  }
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->eventDestroyed(Event);
}

bool InterceptContext::isTracked(Addr A) const {
  settle(); // the allocations queued before the call count
  return R.Eng.isTracked(A);
}

// --- allocators --------------------------------------------------------------------

// A stream-ordered allocation or free takes a launch's way (deferring()):
// with the replay thread it is queued even when nothing is queued ahead, and
// the engine judges the free at the release when replay reaches it, after
// everything the program did before it. Met on the calling thread, the
// engine's allocate, release and live-block lookup (and the engine's lines,
// taken from the replay thread's core) cost FSDP2's threads 0.36 ms of a
// step under cudaMallocAsync (bench/runtime/README.md, session 18). A
// program that ends without exit handlers (_exit, exec*, abort) replays the
// queue first (InterceptProcessEnd.cpp; run-fake-cuda.test's abort after an
// unsafe cuMemFreeAsync), so its findings are printed; one killed by a
// signal within microseconds of the free may lose that finding, as it may
// lose a queued launch's.
void InterceptContext::allocatedAsync(Addr Ptr, std::uint64_t Size, StreamId S, OpId Site, int Device) const {
  if (Device == StreamsDevice && S == NoStream)
    Device = device();
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  if (!deferring()) {
    settle();
    if (Device == StreamsDevice)
      Device = R.Eng.streamInfo(S).Desc.Device;
    R.Pool.allocatedAsync(T, Ptr, Size, S, Site, Device);
  } else if (Ptr && Size) { // what the pool would ignore is not queued
    deferredOne(redundant_sync::Queued::Allocation,
                R.Annotated.pushPoolAllocated(T, Ptr, Size, S, Site, Device));
  }
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire))
    TL->allocated(T, Range{Ptr, Size}, /*Pool=*/true, S, Site);
}

void InterceptContext::freedAsync(Addr Ptr, StreamId S, OpId Site) const {
  ProfileTimer Timer(R.Profile, ProfilePhase::Engine);
  if (!deferring()) {
    settle();
    R.Pool.freedAsync(T, Ptr, S, Site);
  } else if (Ptr) {
    deferredOne(redundant_sync::Queued::BlockRelease, R.Annotated.pushPoolFreed(T, Ptr, S, Site));
  }
  if (TimelineRecorder *TL = R.Recording.load(std::memory_order_acquire)) {
    TL->releaseRequested(T, Ptr, S, Site);
    TL->released(T, Ptr, Site);
  }
}

int InterceptContext::registerAllocator(const std::string &Name, int Policy) const {
  return R.Annotated.registerAllocator(Name, Policy);
}

bool InterceptContext::allocatorKnown(int Allocator) const { return R.Annotated.known(Allocator); }

std::string InterceptContext::allocatorName(int Allocator) const {
  return R.Annotated.allocatorName(Allocator);
}


void InterceptContext::queueBlockEvent(const BlockEvent &Event) const {
  R.Annotated.push(Event);
  redundant_sync::thisThread().queued(filterKind(Event.What));
}

bool InterceptContext::queueReleaseNamedByRequest(const BlockEvent &Event) const {
  if (!R.Annotated.pushReleaseNamedByRequest(Event))
    return false;
  redundant_sync::thisThread().queued(filterKind(Event.What));
  return true;
}

void InterceptContext::queueKnownAllocatorBlockEvent(const BlockEvent &Event) const {
  R.Annotated.pushOfKnownAllocator(Event);
  queuedBlockEventOfEntryPoint(redundant_sync::thisThread(), Event.What); // no .rodata table (FilterKinds.h)
}

bool InterceptContext::queueKnownAllocatorReleaseNamedByRequest(const BlockEvent &Event) const {
  if (!R.Annotated.pushReleaseOfKnownAllocatorNamedByRequest(Event))
    return false;
  redundant_sync::thisThread().queued(redundant_sync::Queued::BlockRelease);
  return true;
}


void InterceptContext::replayBlockEvents() const {
  if (!R.Annotated.hasPending())
    return;
  ProfileTimer Timer(R.Profile, ProfilePhase::BlockEvents);
  R.Annotated.drain([this](ThreadId Owner, Handle H) {
    return R.Streams.resolve(Owner, reinterpret_cast<CUstream>(H), false, Ctx);
  });
}

// --- InterceptScope ------------------------------------------------------------------

namespace {
__attribute__((noinline)) std::uint64_t askPublishedState(const Engine &E, ThreadId T) {
  detail::ThisThreadState.PublishedHostWord = E.hostStateWord(T);
  return Engine::hostWord(E.hostState(T));
}

inline std::uint64_t publishedState(const Engine &E, ThreadId T) {
  if (const std::atomic<std::uint64_t> *Word = detail::ThisThreadState.PublishedHostWord)
    return Word->load(std::memory_order_acquire);
  return askPublishedState(E, T);
}
} // namespace

bool processUsedCuda() { return runtimeOnceCudaUsed() != nullptr; }


__attribute__((always_inline)) inline void InterceptScope::enter(ProfileSlot Slot, bool Deferrable) {
  Timer.start(Context->profile(), Slot);
  // Whether the call changes the thread's clock is read from its time before
  // and after (RedundantSyncFilter.h); before the replay, which may apply
  // the thread's own queued events.
  Filter = &redundant_sync::thisThread();
  FilterMark = Filter->cudaCallEntered(publishedState(Context->R.Eng, Context->thread()));
  // Read before written: a store on every call would bounce the flag's cache
  // line between the threads that launch.
  if (!Context->R.UsedCuda.load(std::memory_order_relaxed)) {
    Context->R.UsedCuda.store(true, std::memory_order_relaxed);
    // The thread interposers' gate: the published runtime only (a test's
    // unpublished runtime never reported lock events before either).
    if (&Context->R == runtime())
      detail::TheLockEventGate.CudaUsingRuntime.store(&Context->R, std::memory_order_release);
    // A timeline's file is created by the process's first CUDA call.
    if (Context->R.Timeline)
      Context->R.Timeline->start();
    if (&Context->R == runtime())
      startReplayThread(Context->R);
  }
  // Block events that annotated allocators queued before this call (PyTorch's
  // ALLOC before the launch that fills the block) come first: replayed now,
  // or, for a deferrable call while the queue is short, by whichever call
  // replays it next (the call's own work goes behind them).
  Unsettled = false;
  if (Context->R.Annotated.hasPending()) {
    if (Deferrable && mayDefer(Context->R))
      Unsettled = true;
    else
      Context->replayBlockEvents();
  }
}

InterceptScope::InterceptScope(ProfileSlot Slot, CUcontext Ctx, bool PerThreadApi, bool Deferrable) {
  if (ValidatorRuntime *R = runtime()) {
    Context.emplace(*R, Ctx, PerThreadApi);
    enter(Slot, Deferrable);
  }
}

// The CUPTI path's scope; the driver calls' own is InterceptScopeInline.h's.
InterceptScope::InterceptScope(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx, bool PerThreadApi,
                               bool Deferrable) {
  if (!enterQuickly(R, Slot, Ctx, PerThreadApi))
    enterFully(R, Slot, Ctx, PerThreadApi, Deferrable);
}

void InterceptScope::enterFully(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx, bool PerThreadApi,
                                bool Deferrable) noexcept {
  Context.emplace(R, Ctx, PerThreadApi);
  enter(Slot, Deferrable);
}

void InterceptScope::leaveFully() noexcept {
  ValidatorRuntime &R = Context->R;
  if (Unsettled)
    Filter->cudaCallLeftUnsettled(FilterMark, publishedState(R.Eng, Context->thread()));
  else
    Filter->cudaCallLeft(FilterMark, publishedState(R.Eng, Context->thread()));
  if (R.Report.hasPending())
    printFindings(R);
}

void InterceptScope::printFindings(ValidatorRuntime &R) noexcept {
  ProfileTimer Printing(R.Profile, ProfilePhase::Findings);
  R.Report.drain(R);
}

ProfileSlot profileSlot(const char *Name) {
  ValidatorRuntime *R = runtime();
  return R && R->Profile.enabled() ? R->Profile.slot(Name) : NoProfileSlot;
}

} // namespace rt
} // namespace streamlife
