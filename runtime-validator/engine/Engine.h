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
//     caching allocator learns that a block is free) = join into the host.
//   * Legacy default stream semantics: the legacy default stream of a device
//     waits for, and is waited for by, every Blocking stream of that device
//     (including the per-thread default streams).
//   * Allocations are byte ranges; accesses are recorded per range since the
//     start of the range's current lifetime, as (stream, clock, op).
//
// Rules (FindingKind below):
//   UnsafeFree    at a release on stream R, an access by another stream U is not
//                 ordered before R's point joined with the host's knowledge, AND
//                 an allocation that could be handed the bytes comes while U is
//                 still not ordered before it (the verdict is deferred from the
//                 release to that reuse opportunity, LifetimeRules.cpp and
//                 DeferredFrees.cpp): for a caching allocator the next
//                 allocation on R; for a driver pool the next stream-ordered
//                 allocation on any stream of the device; for cudaFree (it
//                 synchronizes the device) the release itself. A hazard that
//                 no reuse opportunity meets before it is ordered, or before
//                 exit, is counted (Stats), not reported.
//   ReuseRace     an access in a new lifetime of a range is not ordered after
//                 every access of the previous lifetime (the corruption itself);
//                 attached to the unsafe free that caused it when there is one.
//   UseBeforeAlloc a stream-ordered allocation accessed on a stream not ordered
//                 after the allocation point.
//   UseAfterFree  an access to a range whose release was already enqueued.
//
// Where each decision is made and why (engine/*.h, engine/Engine.cpp): host
// knowledge across threads (HostClocks.h, EngineOptions::Hosts), the legacy
// stream (StreamTable.h), what a new lifetime must be ordered after, why
// UseBeforeAlloc is limited to AllocKind::StreamOrdered, and the memory bound
// (Engine.cpp). A synchronous free (ReleaseKind::SyncFree) first synchronizes
// the allocation's device, then releases.
//
// Threading: every method is thread-safe (one internal lock). The FindingSink is
// called with that lock held: it must not call back into the engine or CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_ENGINE_H
#define STREAMLIFE_RT_ENGINE_ENGINE_H

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

/// How a host synchronization seen on one thread reaches the other threads
/// (their mutexes and queues are not intercepted). See engine/HostClocks.h.
enum class HostKnowledge : std::uint8_t {
  SharedAcrossThreads, ///< default: a sync seen by any thread is known to all later calls
  PerThread,           ///< each thread knows only its own syncs
};

struct EngineOptions {
  HostKnowledge Hosts = HostKnowledge::SharedAcrossThreads;
  /// At most this many access records per segment and lifetime side; beyond it
  /// the oldest is dropped and counted in Stats::DroppedRecords.
  std::size_t MaxRecordsPerSegment = 64;
  /// Findings remembered per lifetime to report each (access, lifetime) once.
  std::size_t MaxRememberedReports = 1024;
  /// At most this many unordered accesses at releases wait for a reuse
  /// opportunity (DeferredFrees.cpp); beyond it the oldest is dropped and
  /// counted in Stats::DroppedRecords.
  std::size_t MaxPendingHazards = 4096;
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
  /// synchronous free, which is reported at the release itself.
  AccessPoint ReusedBy;
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

  // --- memory --------------------------------------------------------------
  /// S is the allocation stream (NoStream for AllocKind::Device / Managed).
  /// Also a reuse opportunity: decides the pending UnsafeFree hazards whose
  /// bytes this allocation could have been handed.
  void allocated(ThreadId T, Range R, AllocKind Kind, StreamId S, OpId Site, int Device);
  /// Releases the allocation that starts at Base (caching-allocator blocks may
  /// be released by range: pass the exact block). S is the release stream, or
  /// NoStream for SyncFree. Ends the lifetime; an access not ordered before
  /// the release becomes a pending UnsafeFree, decided at the next allocation
  /// that could reuse the bytes (allocated()), or at once for SyncFree.
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
    std::size_t HostClocks = 0;     ///< 1 unless HostKnowledge::PerThread
    std::size_t ClockSlots = 0;     ///< vector clock width (streams' slots are reused)
    std::size_t Events = 0;         ///< recorded events currently known
    /// Unordered accesses at a release that were not reported because no
    /// allocation that could reuse the block came while they were unordered:
    /// ordered (a wait, a sync) before any, or still pending now.
    std::size_t DeferredNotReported = 0;
    /// Of those, the ones still unordered now (at exit: the program ended
    /// before any allocation could reuse the block).
    std::size_t DeferredPending = 0;
  };
  Stats stats() const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

const char *findingKindName(FindingKind K); ///< "unsafe-free", "reuse-race", ...

} // namespace rt
} // namespace streamlife

#endif
