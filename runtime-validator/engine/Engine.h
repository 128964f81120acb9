//===- Engine.h - happens-before engine for cross-stream lifetimes -*- C++ -*-===//
//
// The race engine of the runtime validator. It knows nothing about CUDA: the
// interceptors (intercept/) translate API calls into the events below, the way
// ThreadSanitizer's interceptors translate libc calls into its runtime's events.
//
// Model (vocabulary shared with the static checker):
//   * Every stream and every host thread carries a vector clock.
//   * Enqueueing work on a stream first joins the enqueuing host thread's clock
//     into the stream (work enqueued after a host sync is ordered after what the
//     host synchronized with), then ticks the stream.
//   * Event record = snapshot of the stream's clock; stream-wait-event = join of
//     the snapshot into the waiting stream; host synchronization on a stream, an
//     event or the device (and a *successful* stream/event query, which is how a
//     caching allocator learns that a block is free) = join into the host
//     thread that synchronized.
//   * Host threads are ordered with each other only by the synchronization the
//     program does, as in ThreadSanitizer: a mutex, a semaphore, thread
//     creation and join (hostReleases / hostAcquires). What one thread learned
//     from the GPU reaches another only along that order. Locks that guard an
//     allocator's or a library's own state (the CUDA driver's, PyTorch's
//     caching allocator's) and the Python interpreter's lock order nothing: the
//     interceptors do not report them (intercept/InterceptThreads.cpp).
//   * Legacy default stream semantics: the legacy default stream of a device
//     waits for, and is waited for by, every Blocking stream of that device
//     (including the per-thread default streams).
//   * Allocations are byte ranges; accesses are recorded per range since the
//     start of the range's current lifetime, as (stream, clock, op).
//
// Rules (FindingKind below). No finding depends on how the host threads
// interleave or how fast the GPU runs: every "ordered" below is the order of
// the model, and every "next allocation" is read in the threads'
// happens-before order, not in the order the calls arrived.
//   UnsafeFree    at a release on stream R, an access by another stream U is not
//                 ordered before R's point joined with the releasing thread's
//                 knowledge, and the release kind says that is a bug:
//                 - StreamOrdered (cudaFreeAsync, cuMemFreeAsync, PyTorch's
//                   cudaMallocAsync backend, STREAM_ORDERED pools): at the
//                   release. CUDA's contract: every access must be ordered
//                   before the free, whatever follows (the pool may hand the
//                   bytes out at the free's stream point);
//                 - SyncFree (cudaFree): at the release (an access of another
//                   device's stream can still run);
//                 - CachingAllocator (PyTorch's native allocator, CuPy's pool,
//                   SAME_STREAM pools): the block goes to the next allocation
//                   of the same pool on R, with no ordering at all. Reported
//                   when such an allocation is one U is not ordered before: an
//                   allocation on R by any thread that does not happen before
//                   the release, whether it arrived before or after it
//                   (DeferredFrees.cpp). A release no such allocation meets
//                   before U is ordered (R waited, or a thread synchronized and
//                   every later allocation on R happens after that) is a
//                   deferred release: not a finding, listed once per site in
//                   the summary, and a finding at the release with
//                   EngineOptions::WaitBeforeFree.
//   ReuseRace     an access in a new lifetime of a range is not ordered after
//                 every access of the previous lifetime (the corruption itself);
//                 attached to the unsafe free that caused it when there is one.
//   UseBeforeAlloc a stream-ordered allocation accessed on a stream not ordered
//                 after the allocation point.
//   UseAfterFree  an access to a range whose release was already enqueued.
//
// Where each decision is made and why (engine/*.h, engine/Engine.cpp): host
// knowledge and the thread order (HostClocks.h, SyncClocks.h), the legacy
// stream (StreamTable.h), what a new lifetime must be ordered after
// (LifetimeRules.cpp), why UseBeforeAlloc is limited to AllocKind::StreamOrdered,
// and the memory bound (RecordRetention.cpp). A synchronous free
// (ReleaseKind::SyncFree) first synchronizes the allocation's device, then
// releases.
//
// Threading: every method is thread-safe (one internal lock). The FindingSink is
// called with that lock held: it must not call back into the engine or CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_ENGINE_H
#define STREAMLIFE_RT_ENGINE_ENGINE_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace streamlife {
namespace rt {

using Addr = std::uint64_t;
/// Dense stream index, assigned by the engine in creation order (0, 1, ...).
using StreamId = std::uint32_t;
/// Dense host-thread index, assigned by the caller (intercept/) per OS thread.
using ThreadId = std::uint32_t;
/// Opaque id of "what did this": a kernel/copy name plus a call site, interned
/// by the caller (callsites/). The engine only stores and hands it back.
using OpId = std::uint32_t;
/// Opaque handle of a CUDA stream or event, as the program sees it.
using Handle = std::uint64_t;
/// Opaque id of a host synchronization object (a mutex's address, a token).
using SyncId = std::uint64_t;
/// Which allocator a caching block belongs to: a block is only handed to the
/// next allocation of the same allocator (0: the only one / not a pool).
using PoolId = std::uint32_t;

constexpr StreamId NoStream = ~StreamId(0);
constexpr OpId NoOp = 0;

struct Range {
  Addr Begin = 0;
  std::uint64_t Size = 0;
  Addr end() const { return Begin + Size; }
};

/// A Range size meaning "the whole allocation that contains Begin" (live or
/// released). For kernel arguments: a pointer tells which allocation a kernel can
/// touch, not which bytes. accessed() and launched() resolve it.
constexpr std::uint64_t WholeAllocation = ~std::uint64_t(0);

struct EngineOptions {
  /// At most this many access records per segment and lifetime side; beyond it
  /// the oldest is dropped and counted in Stats::DroppedRecords.
  std::size_t MaxRecordsPerSegment = 64;
  /// Findings remembered per lifetime to report each (access, lifetime) once.
  std::size_t MaxRememberedReports = 1024;
  /// At most this many unordered accesses at releases wait for a reuse
  /// opportunity (DeferredFrees.cpp); beyond it the oldest is dropped and
  /// counted in Stats::DroppedRecords.
  std::size_t MaxPendingHazards = 4096;
  /// "Wait before free, never after": a caching release that leaves another
  /// stream's access unordered is an UnsafeFree at the release, whether or not
  /// an allocation could be handed the block while the access runs.
  bool WaitBeforeFree = false;
  /// At most this many host synchronization objects keep a clock
  /// (SyncClocks.h); beyond it the oldest is forgotten.
  std::size_t MaxSyncObjects = 1 << 16;
  /// At most this many caching allocations per stream and thread are kept for
  /// releases by other threads (ConcurrentAllocations.h).
  std::size_t MaxConcurrentAllocations = 4096;
  /// Joins of a host thread's knowledge (into a lock, a stream, an
  /// allocation's record) read only the slots that changed since the two
  /// were last in step (LoggedClock.h). False: every join reads the whole
  /// clock; the verdicts and clocks are the same, only slower (the reference
  /// the engine's property tests and bench/runtime/cpu compare with).
  bool ChangedSlotJoins = true;
};

enum class StreamFlavor : std::uint8_t {
  LegacyDefault,    ///< stream 0 / cudaStreamLegacy of a device
  PerThreadDefault, ///< cudaStreamPerThread: blocking w.r.t. the legacy stream
  Blocking,         ///< created without cudaStreamNonBlocking
  NonBlocking,      ///< cudaStreamNonBlocking: no implicit ordering
};

struct StreamDesc {
  Handle StreamHandle = 0; ///< canonical handle (intercept/ resolves 0, 1, 2)
  int Device = 0;
  StreamFlavor Flavor = StreamFlavor::Blocking;
  int Priority = 0; ///< recorded for reports; no ordering effect
};

/// What kind of lifetime a range has; drives what a release means.
enum class AllocKind : std::uint8_t {
  Device,           ///< cudaMalloc / cuMemAlloc: no stream; cudaFree syncs the device
  StreamOrdered,    ///< cudaMallocAsync / pools: allocated on a stream
  Managed,          ///< cudaMallocManaged: tracked and reported as managed
  CachingAllocator, ///< a block of a caching allocator (e.g. PyTorch's), on a stream
};

enum class ReleaseKind : std::uint8_t {
  SyncFree,         ///< cudaFree / cuMemFree: an implicit device synchronization first
  StreamOrdered,    ///< cudaFreeAsync / cuMemFreeAsync on a stream
  CachingAllocator, ///< the block goes back to its allocation stream's pool
};

enum class FindingKind : std::uint8_t {
  UnsafeFree,
  ReuseRace,
  UseBeforeAlloc,
  UseAfterFree,
};

/// A candidate pointer of one launch (see launchedWithPointerWords).
struct PointerWord {
  Addr Word = 0;
  bool FromGenericScan = false;
};

/// One recorded access (or allocation/release point) of a range.
struct AccessPoint {
  StreamId Stream = NoStream;
  OpId Op = NoOp;
};

/// Everything a report needs; ids are resolved to names by report/.
struct Finding {
  FindingKind Kind;
  Range Bytes;                 ///< the affected bytes (part of an allocation)
  Range Allocation;            ///< the whole allocation the bytes belong to
  AllocKind Alloc;
  AccessPoint Allocated;       ///< allocation stream (NoStream for Device) and site
  AccessPoint Unordered;       ///< the access that is not ordered (old lifetime)
  AccessPoint Released;        ///< the release (stream, site); Stream may be NoStream
  AccessPoint NewAccess;       ///< ReuseRace / UseBeforeAlloc / UseAfterFree: the new access
  /// UnsafeFree only: the allocation that could be handed the released bytes
  /// while Unordered may still run (stream and site); NoStream/NoOp for a
  /// release that is judged at the release itself (synchronous and
  /// stream-ordered frees, WaitBeforeFree).
  AccessPoint ReusedBy;
  /// UnsafeFree only: ReusedBy is an allocation by another thread that arrived
  /// before the release but does not happen before it.
  bool ReusedConcurrently = false;
  // ReuseRace only: Allocation/Allocated/Released above describe the PREVIOUS
  // lifetime (the one whose access is unordered); these name the new one.
  /// The previous release was reported as UnsafeFree for this very access
  /// (Unordered): the reuse opportunity that made it one came before this
  /// access. False when the release's access was ordered before every reuse
  /// opportunity and only this new access is unordered with it.
  bool AfterUnsafeFree = false;
  Range NewAllocation;          ///< the allocation the new access belongs to
  AccessPoint Reallocated;      ///< its allocation stream and site
};

class FindingSink {
public:
  virtual ~FindingSink();
  /// Called with the engine lock held; must not re-enter the engine or CUDA.
  virtual void report(const Finding &F) = 0;
};

/// Read-only facts about a stream, for messages ("stream #3 (0x55d0...)").
struct StreamInfo {
  StreamDesc Desc;
  StreamId Id = NoStream;
  bool Destroyed = false;
};

class Engine {
public:
  explicit Engine(FindingSink &Sink);
  Engine(FindingSink &Sink, const EngineOptions &Options);
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  // --- streams -----------------------------------------------------------
  /// Returns the id of the stream with this canonical handle on this device,
  /// creating it on first sight (streams created before the validator loaded
  /// are learnt lazily this way).
  StreamId stream(ThreadId T, const StreamDesc &Desc);
  void streamDestroyed(ThreadId T, StreamId S);
  StreamInfo streamInfo(StreamId S) const;

  // --- events and synchronization ----------------------------------------
  void eventRecorded(ThreadId T, Handle Event, StreamId S);
  void streamWaitsEvent(ThreadId T, StreamId S, Handle Event);
  /// cudaEventSynchronize, or a cudaEventQuery that returned success.
  void hostSyncsEvent(ThreadId T, Handle Event);
  /// cudaStreamSynchronize, or a cudaStreamQuery that returned success.
  void hostSyncsStream(ThreadId T, StreamId S);
  /// cudaDeviceSynchronize / cuCtxSynchronize; also implied by SyncFree.
  void hostSyncsDevice(ThreadId T, int Device);
  void eventDestroyed(ThreadId T, Handle Event);

  // --- host threads (SyncClocks.h) -------------------------------------------
  /// T releases a synchronization object: unlocks a mutex, posts a semaphore,
  /// is about to create a thread, ends. Whoever acquires it next is ordered
  /// after everything T did and knew so far.
  void hostReleases(ThreadId T, SyncId Sync);
  /// T acquires it: locks the mutex, waited on the semaphore, starts as the
  /// created thread, joined the ended one.
  void hostAcquires(ThreadId T, SyncId Sync);
  /// The object is gone (its id may name another one from now on).
  void syncDestroyed(SyncId Sync);
  /// T ended: its knowledge no longer holds the common knowledge back.
  void hostFinished(ThreadId T);
  /// One of the four calls above, for hostSyncs.
  struct HostSync {
    enum class Kind : std::uint8_t { Releases, Acquires, Destroyed, Finished };
    Kind What = Kind::Releases;
    ThreadId Thread = 0;
    SyncId Sync = 0; ///< unused for Finished
  };
  /// The calls in order, under one lock: a replay of queued host events
  /// (most of them come in runs) takes it once per run, not per event.
  void hostSyncs(const HostSync *Events, std::size_t Count);
  /// What thread T's clock is now, read without the engine lock: the
  /// intercept's RedundantSyncFilter asks it around each CUDA call, to learn
  /// whether the call changed the thread's clock (a change always ticks the
  /// thread's own time: VectorClock.h) and what the engine will do with the
  /// thread's next queued events. Exact once every event T queued before has
  /// been applied (a replay returns only then); T's own reads are ordered
  /// with its own engine calls.
  struct HostState {
    std::uint64_t Time = 0;        ///< T's own time; 0: no clock yet
    bool ReleasedSinceTick = false; ///< T's next stamp ticks (HostClocks::stamp)
    bool UsesCuda = false;         ///< T's next CUDA operation does not join the common knowledge
    bool Known = true;             ///< false: T is beyond the published threads, assume anything
  };
  HostState hostState(ThreadId T) const;
  /// Where T's state is published, to read it with one load and
  /// hostState(Word): null while no thread of T's chunk has a clock, and
  /// beyond the published threads (ask hostState(T) then). Never moves.
  const std::atomic<std::uint64_t> *hostStateWord(ThreadId T) const;
  /// A HostState as the published word: Time << 2 | ReleasedSinceTick << 1
  /// | UsesCuda, UnknownHostWord when not Known (what the filter compares).
  static constexpr std::uint64_t UnknownHostWord = ~std::uint64_t(0);
  static std::uint64_t hostWord(const HostState &S) {
    return S.Known ? S.Time << 2 | std::uint64_t(S.ReleasedSinceTick) << 1 | std::uint64_t(S.UsesCuda)
                   : UnknownHostWord;
  }
  static HostState hostState(std::uint64_t Word) {
    HostState S;
    S.Time = Word >> 2;
    S.ReleasedSinceTick = Word & 2;
    S.UsesCuda = Word & 1;
    S.Known = Word != UnknownHostWord;
    return S;
  }

  // --- memory --------------------------------------------------------------
  /// S is the allocation stream (NoStream for AllocKind::Device / Managed).
  /// Also a reuse opportunity: decides the pending UnsafeFree hazards whose
  /// bytes this allocation could have been handed.
  /// Pool names the allocator of a CachingAllocator block.
  void allocated(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device,
                 PoolId Pool = 0);
  /// Releases the allocation that starts at Base (caching-allocator blocks may
  /// be released by range: pass the exact block). S is the release stream, or
  /// NoStream for SyncFree. Ends the lifetime; an access not ordered before
  /// the release becomes a pending UnsafeFree, decided at the next allocation
  /// that could reuse the bytes (allocated()), or at once (StreamOrdered,
  /// SyncFree, WaitBeforeFree).
  void released(ThreadId T, Addr Base, ReleaseKind Kind, StreamId S, OpId Site);
  /// Work enqueued on S touches R (a kernel argument, a copy or set range).
  /// Checks ReuseRace, UseBeforeAlloc, UseAfterFree. Ranges outside every
  /// tracked allocation are ignored.
  void accessed(ThreadId T, StreamId S, Range R, OpId Op);
  /// Convenience for launches: one enqueue (one tick of S) touching many ranges.
  void launched(ThreadId T, StreamId S, const std::vector<Range> &Touched, OpId Op);
  /// A launch whose candidate pointers are raw 8-byte argument words: every word
  /// that points into a tracked allocation touches that whole allocation. One
  /// lock for the whole launch, so intercept/ need not call isTracked() per word.
  void launchedWithPointers(ThreadId T, StreamId S, const Addr *Words, std::size_t Count,
                            OpId Op);
  /// Like launchedWithPointers, for words whose provenance is known
  /// (intercept/kernels/KernelPlans.h): a word found by a generic scan of bytes
  /// whose meaning is unknown counts only when it points into a LIVE allocation
  /// (stale or uninitialized bytes must not become use-after-free reports), and
  /// is recorded with GenericOp so that reports can say where it came from.
  /// Returns how many generic-scan words were ignored for pointing into
  /// released memory.
  std::size_t launchedWithPointerWords(ThreadId T, StreamId S, const PointerWord *Words,
                                       std::size_t Count, OpId Op, OpId GenericOp);

  /// True when Addr lies in a tracked allocation, live or released (released
  /// ranges stay tracked until a new allocation covers them, so that a kernel
  /// argument pointing into freed memory reaches launched() and is reported as
  /// UseAfterFree). Lets intercept/ test candidate pointers cheaply: a lock-free
  /// bounds check rejects most words.
  bool isTracked(Addr A) const;

  // --- introspection for tests and the memory benchmark ---------------------
  struct Stats {
    std::size_t Streams = 0;
    std::size_t LiveAllocations = 0;
    std::size_t ShadowSegments = 0;   ///< interval-map entries
    std::size_t RecordedAccesses = 0; ///< access records kept in shadow state
    std::size_t Findings = 0;
    std::size_t DroppedRecords = 0; ///< records dropped by MaxRecordsPerSegment
    std::size_t HostClocks = 0;     ///< host threads seen
    std::size_t ClockSlots = 0;     ///< vector clock width (streams' slots are reused)
    std::size_t Events = 0;         ///< recorded events currently known
    /// Unordered accesses at a release that were not reported because no
    /// allocation that could reuse the block came while they were unordered:
    /// ordered (a wait, a sync) before any, or still pending now.
    std::size_t DeferredNotReported = 0;
    /// Of those, the ones still unordered now (at exit: the program ended
    /// before any allocation could reuse the block).
    std::size_t DeferredPending = 0;
    std::size_t SyncObjects = 0;           ///< host synchronization objects with a clock
    std::size_t ConcurrentAllocations = 0; ///< kept for other threads' releases
  };
  Stats stats() const;

  /// One deferred release site: releases at Release (on Release.Stream) that
  /// left Access (on Access.Stream) unordered and that no allocation could
  /// reuse before it was ordered.
  struct DeferredRelease {
    AccessPoint Release;
    AccessPoint Access;
    std::size_t Count = 0;
    std::size_t StillUnordered = 0; ///< of Count, unordered now (at exit: never ordered)
  };
  /// Per distinct (release, access) pair, in order of first occurrence.
  std::vector<DeferredRelease> deferredReleases() const;

  /// The engine's state, for the engine's own unit tests and benchmarks
  /// (engine/EngineImpl.h); call with no other thread in the engine.
  struct Impl;
  Impl &state() { return *P; }

private:
  std::unique_ptr<Impl> P;
};

const char *findingKindName(FindingKind K); ///< "unsafe-free", "reuse-race", ...

} // namespace rt
} // namespace streamlife

#endif
