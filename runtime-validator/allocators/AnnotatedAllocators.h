//===- AnnotatedAllocators.h - allocators that describe their blocks -*- C++ -*-===//
//
// The engine side of the public annotation interface
// (include/streamlife/annotations.h): allocators that sub-allocate device
// memory themselves register here with a reuse policy and report their block
// events. PyTorch's caching allocator is the first client (its trace tracker,
// see intercept/TorchFeed.cpp); users' pools are the next.
//
// Events arrive from any thread and often under the allocator's own lock (a
// trace tracker runs under it), where nothing may call CUDA. So push() only
// queues, and drain() replays the queue in order at the next intercepted CUDA
// call, where stream handles can be resolved. Work enqueued after a block
// event on the same thread is intercepted after it, so ordering is kept.
//
// The host threads' synchronization (intercept/InterceptThreads.cpp: a mutex
// unlocked, a semaphore posted, a thread started or joined) goes through the
// same queue, for the same reason and because its place among the block
// events matters: a worker that drops a block and then unlocks the queue the
// main thread reads must reach the engine in that order, or the main thread's
// next allocation would look unordered with the release.
//
// A release is reported where the owner let go of the block (its request),
// when it was requested with a site; its own call site is then never read, so
// the entry point asks pushReleaseNamedByRequest before capturing it. The
// answer follows the queue's order (QueuedLives.h): what replay will know of
// the block when it reaches that release.
//
// The same queue carries the CUDA operations that only order streams and
// touch memory (a launch's decoded words, an event record, a stream wait) when
// events are already queued ahead of them (pushLaunch and its kin, from
// InterceptContext): such a call need not replay the queue at once, because
// nothing it returns depends on the engine, so the engine's work is batched
// until a call that needs the engine's state (an allocation, a free, a host
// synchronization), a queue grown to the runtime's replay_batch, or exit.
// Replaying a few events at each CUDA call paid the engine's cold cache
// lines on every call: PyTorch's own work between two calls evicts them
// (bench/runtime/README.md, rtdefer). The engine sees the same events in the
// same order either way. With the replay thread (intercept/ReplayThread.h)
// the program's threads queue every deferrable call, and drain() runs there
// too: whoever calls it, batches are applied in the order they were taken.
//
// Block accounting (the summary's "blocks per allocation site"): per site,
// how many distinct blocks it was handed, the most blocks alive at once, and
// the most bytes whose release was requested but held back (record_stream:
// PyTorch waits for events on the recorded streams before it takes the block
// back). Both peaks are sampled when an allocation is made, because that is
// when what an allocator holds back costs memory: a release completed within
// the same free call is never counted.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ALLOCATORS_ANNOTATEDALLOCATORS_H
#define STREAMLIFE_RT_ALLOCATORS_ANNOTATEDALLOCATORS_H

#include "allocators/BlockEvents.h"
#include "allocators/KnownBlocks.h"
#include "allocators/QueuedLives.h"
#include "engine/FutexMutex.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

/// STREAMLIFE_REUSE_* of the public header.
enum class ReusePolicy : int { SameStream = 1, StreamOrdered = 2 };

/// One call of the public interface, as queued.
struct BlockEvent {
  enum class Kind : std::uint8_t {
    Allocated,
    ReleaseRequested,
    Released,
    Accessed,
    // CUDA operations deferred behind queued events (pushLaunch and its kin):
    // Stream is the engine stream, already resolved by the call.
    Launched,       ///< Ptr: first of the launch's words in the batch's arena; Allocator: their count; Size: the generic op
    Touched,        ///< a copy or set: Ptr: first of its ranges in the batch's arena; Allocator: their count
    EventRecorded,  ///< Ptr: the event handle
    StreamWaited,   ///< Ptr: the event handle
    EventDestroyed, ///< Ptr: the event handle (Stream unused)
    PoolAllocated,  ///< the driver's stream-ordered pool: Ptr, Size bytes; Allocator: the device (negative: the stream's)
    PoolFreed,      ///< Ptr
    // The host synchronization events, last: replay tells them apart by order.
    HostReleased,  ///< Ptr names the synchronization object (Engine::hostReleases)
    HostAcquired,  ///< Engine::hostAcquires
    SyncDestroyed, ///< Engine::syncDestroyed
    HostFinished,  ///< Engine::hostFinished
  };
  Kind What = Kind::Allocated;
  int Allocator = 0; ///< 0 for Accessed and the host kinds; Launched: the word count
  ThreadId Thread = 0;
  Addr Ptr = 0;
  std::uint64_t Size = 0;
  Handle Stream = 0; ///< the program's stream handle, resolved at drain time; deferred operations: the engine stream
  OpId Site = NoOp;
};

/// What the summary says about one allocation site.
struct BlockAccount {
  std::uint64_t SiteKey = 0;
  OpId Site = NoOp; ///< one op of the site, to name it
  int Allocator = 0;
  std::size_t Allocations = 0;
  std::size_t DistinctBlocks = 0;         ///< distinct block addresses handed out
  std::size_t PeakLiveBlocks = 0;         ///< allocated and not yet back in the pool
  std::uint64_t PeakHeldBackBytes = 0;    ///< release requested, block not yet back
};

class AnnotatedAllocators {
public:
  /// Maps the program's stream handle (as used by thread T) to an engine stream.
  using ResolveStreamFn = std::function<StreamId(ThreadId, Handle)>;
  /// Groups ops into allocation sites (report/CallSiteNames.h: the innermost user frame).
  /// Must give one op the same key every time (the key is cached per op).
  using SiteKeyFn = std::function<std::uint64_t(OpId)>;

  /// Allocators beyond this many are refused (registerAllocator returns 0):
  /// their ids index a fixed table that replay reads without a lock.
  static constexpr std::size_t MaxAllocators = 1024;

  AnnotatedAllocators(Engine &E, SiteKeyFn SiteKey);
  ~AnnotatedAllocators();

  /// Returns the allocator's id (> 0), or 0 for an unknown policy.
  int registerAllocator(const std::string &Name, int Policy);
  std::string allocatorName(int Id) const;
  bool known(int Id) const { return registered(Id) != nullptr; }

  /// Any thread, any lock held: queues only (no CUDA, no engine call).
  void push(const BlockEvent &Event);
  /// push() of a block event (Allocated with a size, ReleaseRequested,
  /// Released) of an allocator the caller found known(), as the annotation
  /// entry points do first: a registration is never undone, so the queue's
  /// bookkeeping need not ask the registry again (each asking is an acquire
  /// load of the allocator table, about six instructions, once in push and
  /// once in its bookkeeping).
  void pushOfKnownAllocator(const BlockEvent &Event);
  /// push() of a host synchronization event (What >= HostReleased) of thread
  /// T on Sync, built in place: the thread interposers' counted path. Returns
  /// the events unapplied after it. Inline: a kept lock event's push is a
  /// few stores under the queue's lock, and its call's frame cost as much.
  std::size_t pushHostSync(BlockEvent::Kind What, ThreadId T, Addr Sync) {
    std::lock_guard<FutexMutex> Guard(Head.Lock);
    BlockEvent &Event = Head.Queue.emplace_back();
    Event.What = What;
    Event.Thread = T;
    Event.Ptr = Sync;
    claimNextLines(Head.Queue);
    return countPushed() - Head.Applied.load(std::memory_order_relaxed);
  }
  /// A launch, an event record or a stream wait of thread T on engine stream
  /// S, queued behind the events already queued (the caller saw
  /// hasPending()): replay makes the engine call the runtime would have
  /// made (Engine::launchedWithPointerWords, eventRecorded, streamWaitsEvent).
  /// The launch's words are copied. Returns the events unapplied after it.
  std::size_t pushLaunch(ThreadId T, StreamId S, const PointerWord *Words, std::size_t Count, OpId Op,
                         OpId GenericOp);
  /// A copy or set touching Ranges on S (Engine::launched).
  std::size_t pushTouched(ThreadId T, StreamId S, const Range *Ranges, std::size_t Count, OpId Op);
  /// The driver's stream-ordered allocations and frees (StreamOrderedPool),
  /// replayed into Pool (setStreamOrderedPool). A negative Device stands for
  /// S's device, named at the replay.
  std::size_t pushPoolAllocated(ThreadId T, Addr Ptr, std::uint64_t Size, StreamId S, OpId Site, int Device);
  std::size_t pushPoolFreed(ThreadId T, Addr Ptr, StreamId S, OpId Site);
  /// Where replay sends PoolAllocated and PoolFreed (set once, before the
  /// first call).
  void setStreamOrderedPool(BlockEvents *Pool) { StreamOrdered = Pool; }
  std::size_t pushEventRecorded(ThreadId T, Handle Event, StreamId S) {
    return pushStreamOp(BlockEvent::Kind::EventRecorded, T, Event, S);
  }
  std::size_t pushStreamWaited(ThreadId T, StreamId S, Handle Event) {
    return pushStreamOp(BlockEvent::Kind::StreamWaited, T, Event, S);
  }
  /// An event's destruction (Engine::eventDestroyed): its handle may be
  /// created again, and the new event's records queue behind it.
  std::size_t pushEventDestroyed(ThreadId T, Handle Event) {
    return pushStreamOp(BlockEvent::Kind::EventDestroyed, T, Event, 0);
  }
  /// Generic-scan words that replayed launches ignored for pointing into
  /// released memory (Engine::launchedWithPointerWords' answer, which a
  /// deferred launch's caller could not wait for).
  std::size_t ignoredGenericWords() const { return IgnoredGenericWords.load(std::memory_order_relaxed); }
  /// Drains that found another thread applying its batch, and the time they
  /// waited for it (intercept_stats): a thread that needs the engine's state
  /// waits for the replay thread's batch, and for as long as that thread is
  /// off its core.
  struct DrainWaits {
    std::uint64_t Count = 0;
    std::uint64_t Nanoseconds = 0;
  };
  DrainWaits drainWaits() const {
    return {WaitedDrains.load(std::memory_order_relaxed), WaitedDrainNs.load(std::memory_order_relaxed)};
  }
  /// True on a thread inside drain(): the stream resolution that drain
  /// calls must not drain again (StreamResolver's new streams drain first).
  static bool drainingOnThisThread() { return Draining; }

  /// Queues a Released event whose site will not be reported, and returns
  /// true, when replay will name the release by its request's site instead
  /// (ReleaseRequested with a site came since the block's allocation: the
  /// release reported is where the owner let go). Otherwise queues nothing
  /// and returns false: the caller captures the release's own site and
  /// pushes it. Decided and queued under one lock, so that no other event
  /// can come between (the decision reads the queue's order).
  bool pushReleaseNamedByRequest(const BlockEvent &Event);
  /// pushReleaseNamedByRequest of a Released event whose allocator the
  /// caller found known() (see pushOfKnownAllocator).
  bool pushReleaseOfKnownAllocatorNamedByRequest(const BlockEvent &Event);
  /// Blocks the queue keeps what it knows of (live ones, and released ones
  /// not forgotten yet): the memory bound's tests read it.
  std::size_t queuedBlocksKnown() {
    std::lock_guard<FutexMutex> Guard(Head.Lock);
    return Lives.size();
  }
  /// Events pushed and not yet applied. Applied is read first: it never
  /// passes the pushes counted before it was read, so the difference never
  /// wraps.
  std::size_t unapplied() const {
    std::size_t Applied = Head.Applied.load(std::memory_order_acquire);
    return Head.Pushed.load(std::memory_order_relaxed) - Applied;
  }
  /// Events applied so far, by whichever thread (intercept_stats: the
  /// program's threads applied these less the replay thread's).
  std::size_t applied() const { return Head.Applied.load(std::memory_order_relaxed); }
  /// Batches applied so far, by whichever thread (intercept_stats).
  std::uint64_t batchesApplied() const { return BatchesApplied.load(std::memory_order_relaxed); }
  /// True while some pushed event has not been applied yet (queued, or in a
  /// batch another thread is applying). The caller's own pushes are counted
  /// in the Pushed it reads; when Applied equals it, the queue's first Pushed
  /// events, the caller's among them, are applied (and, by Applied's
  /// release, visible).
  bool hasPending() const {
    std::size_t Applied = Head.Applied.load(std::memory_order_acquire);
    return Head.Pushed.load(std::memory_order_acquire) != Applied;
  }
  /// Replays the queued events in order; call outside the engine lock. Returns
  /// only when every event pushed before the call has been applied, also those
  /// in a batch another thread took first: the caller's next engine call (a
  /// launch on a block it just allocated) must come after its allocation.
  /// Returns the events this call applied itself (not another's batch).
  std::size_t drain(const ResolveStreamFn &Resolve);

  /// Per allocation site, in order of first allocation.
  std::vector<BlockAccount> accounts() const;

  /// Also tells Observer about every block event applied from now on (set
  /// once, before the program's first allocation; null: nobody).
  void setObserver(BlockObserver *O) { Observer.store(O, std::memory_order_release); }

private:
  struct Registered {
    std::string Name;
    std::unique_ptr<EngineBlockEvents> Blocks;
  };
  struct SiteState {
    BlockAccount Account;
    std::size_t LiveBlocks = 0;
    std::uint64_t HeldBackBytes = 0;
    /// Position in HoldingBack while HeldBackBytes is not 0.
    std::size_t HoldingAt = NotHolding;
  };
  static constexpr std::size_t MaxDistinctBlocks = 1 << 16;
  static constexpr std::size_t NotHolding = ~std::size_t(0);
  std::atomic<BlockObserver *> Observer{nullptr};

  Registered *registered(int Id) const {
    return Id > 0 && static_cast<std::size_t>(Id) <= MaxAllocators
               ? ById[Id - 1].load(std::memory_order_acquire)
               : nullptr;
  }
  /// The engine call of a host synchronization event (What >= HostReleased).
  /// Inline and by the kinds' order, not a switch: replay asks it per host
  /// event, most of a batch.
  static Engine::HostSync asHostSync(const BlockEvent &Event) {
    using Kind = Engine::HostSync::Kind;
    static_assert(int(BlockEvent::Kind::HostAcquired) - int(BlockEvent::Kind::HostReleased) ==
                          int(Kind::Acquires) - int(Kind::Releases) &&
                      int(BlockEvent::Kind::SyncDestroyed) - int(BlockEvent::Kind::HostReleased) ==
                          int(Kind::Destroyed) - int(Kind::Releases) &&
                      int(BlockEvent::Kind::HostFinished) - int(BlockEvent::Kind::HostReleased) ==
                          int(Kind::Finished) - int(Kind::Releases),
                  "the host kinds are in the engine's order");
    const auto What = static_cast<Kind>(int(Kind::Releases) + int(Event.What) -
                                        int(BlockEvent::Kind::HostReleased));
    return Engine::HostSync{What, Event.Thread, What == Kind::Finished ? 0 : Event.Ptr};
  }
  /// A block event, a declared access or a deferred CUDA operation (host
  /// events go to Engine::hostSyncs).
  void apply(const BlockEvent &Event, const ResolveStreamFn &Resolve);
  /// A deferred record, wait or event destruction (pushEventRecorded and kin).
  std::size_t pushStreamOp(BlockEvent::Kind What, ThreadId T, Handle Event, StreamId S);
  /// Queues a deferred CUDA operation; returns the events unapplied after it.
  std::size_t pushDeferred(const BlockEvent &Event);
  /// pushDeferred of an operation with Count items (a launch's words, a
  /// copy's ranges), copied to Arena under the queue's lock: Event's Ptr and
  /// Allocator are set to where they start and how many.
  template <typename Item>
  std::size_t pushDeferredWithItems(BlockEvent Event, std::vector<Item> &Arena, const Item *Items,
                                    std::size_t Count);
  /// Follows the queue's order in Lives (Head.Lock held). Inline in
  /// push: its call's frame cost a quarter of it.
  __attribute__((always_inline)) inline void noteQueued(const BlockEvent &Event);
  /// noteQueued of an event whose allocator is registered.
  __attribute__((always_inline)) inline void noteQueuedOfKnownAllocator(const BlockEvent &Event);
  /// Request and Release, one after the other in a batch, name the same
  /// block of the same allocator: PyTorch's free of a block that no other
  /// stream used (no record_stream), the common case.
  static bool releasedAtOnce(const BlockEvent &Request, const BlockEvent &Release) {
    return Request.What == BlockEvent::Kind::ReleaseRequested &&
           Release.What == BlockEvent::Kind::Released && Release.Ptr == Request.Ptr &&
           Release.Allocator == Request.Allocator;
  }
  /// apply(Request) then apply(Release), for releasedAtOnce events: the
  /// same engine calls, observer calls and accounts, with the accounting's
  /// lock, lookup and held-back bytes once instead of twice (the request
  /// reaches only the accounting and the observer).
  void applyRequestedRelease(const BlockEvent &Request, const BlockEvent &Release,
                             const ResolveStreamFn &Resolve);
  void accountAllocation(const BlockEvent &Event, std::size_t Site);
  void accountRequest(Addr Ptr, OpId Site);
  /// Forgets the block; returns the op its release was requested at, if any.
  OpId accountRelease(Addr Ptr);
  /// accountRequest(Ptr, RequestSite), then accountRelease(Ptr), in one.
  OpId accountRequestAndRelease(Addr Ptr, OpId RequestSite);
  /// accountRelease of a live block found (StateLock held).
  OpId forgetLive(KnownBlock &Block);
  void holdBack(std::size_t Site, std::int64_t Bytes);
  /// The index in Sites of the op's allocation site (DrainLock held).
  /// Inline, by a table: replay asks it per allocation, and an op is
  /// OpTable's dense index (a hashed lookup was about 45 instructions).
  std::size_t siteOf(OpId Op, int Allocator) {
    if (Op < SiteByOp.size() && SiteByOp[Op] != NoSite)
      return SiteByOp[Op];
    return learnSite(Op, Allocator);
  }
  /// siteOf of an op not asked yet (or beyond the table).
  std::size_t learnSite(OpId Op, int Allocator);
  /// The device of engine stream S (DrainLock held).
  int deviceOf(StreamId S) {
    return S < DeviceOfStream.size() && DeviceOfStream[S] >= 0 ? DeviceOfStream[S]
                                                              : learnDevice(S);
  }
  int learnDevice(StreamId S);

  Engine &E;
  SiteKeyFn SiteKey;

  mutable std::mutex RegistryLock; ///< guards registration
  std::vector<std::unique_ptr<Registered>> Allocators;
  /// Registered allocators by id - 1, published after they are complete.
  std::unique_ptr<std::atomic<Registered *>[]> ById;

  /// Everything a push writes, and what every CUDA call and every dropped
  /// release reads (hasPending, unapplied), on one cache line of its own: a
  /// queued lock event writes this line and its event's, nothing else of the
  /// queue's. Unapplied events are Pushed - Applied, two counts with one
  /// writer each (Pushed under Lock, Applied under DrainLock), so that a push
  /// stores its count instead of a locked add. A flag cleared when a batch
  /// is taken, instead of Applied, let a second thread return from drain()
  /// while the first was still applying an allocation the second had queued,
  /// and its launch on that block then reached the engine before the
  /// allocation (a false use-after-free, seen on DDP with the autograd and
  /// NCCL threads draining too).
  struct alignas(64) QueueHead {
    /// Guards Queue, Pushed and Lives; taken under allocators' locks
    /// and for every queued lock handover, so not a pthread mutex
    /// (FutexMutex.h).
    FutexMutex Lock;
    std::vector<BlockEvent> Queue;
    std::atomic<std::size_t> Pushed{0};
    std::atomic<std::size_t> Applied{0};
  };
  static_assert(sizeof(QueueHead) == 64, "the queue's head is one cache line");
  QueueHead Head;
  /// After a push: asks for the cache lines the next pushes will write, for
  /// writing, so that the program's thread does not wait for them then. The
  /// queue's buffers are swapped with the batch a drainer (the replay
  /// thread) has just read, so their lines sit in that thread's core: a
  /// store to one had to take it back first, and the push's unlock (a locked
  /// instruction) waited for that store. Asked a push ahead, the line moves
  /// while the program runs (bench/runtime/README.md, "the replay thread's
  /// batches": the fake-driver launch loop's thread cost 533 -> 222 ns a
  /// step). PREFETCHW, not __builtin_prefetch(P, 1): without -mprfchw GCC
  /// emits a read prefetch, which leaves the line shared and the store still
  /// waiting. A prefetch never faults, so the buffer's capacity needs no test.
  template <typename T> static void claimNextLines(const std::vector<T> &Buffer) {
#if defined(__x86_64__)
    if (!CanPrefetchForWrite)
      return;
    const char *End = reinterpret_cast<const char *>(Buffer.data() + Buffer.size());
    __asm__ __volatile__("prefetchw %0" ::"m"(*End));
    __asm__ __volatile__("prefetchw %0" ::"m"(*(End + 64)));
#else
    (void)Buffer;
#endif
  }
  /// The CPU has PREFETCHW (CPUID 0x80000001 ECX bit 8): asked once, at load.
  static const bool CanPrefetchForWrite;
  /// Counts one more event pushed (Head.Lock held); returns the count.
  std::size_t countPushed() {
    std::size_t Count = Head.Pushed.load(std::memory_order_relaxed) + 1;
    Head.Pushed.store(Count, std::memory_order_release);
    return Count;
  }
  /// Blocks as the queue leaves them (the events pushed so far applied):
  /// what replay will know of a block when it applies the events queued so
  /// far (pushReleaseNamedByRequest). Kept after the release, so that a
  /// block handed out again allocates nothing under the allocator's lock;
  /// the released ones are forgotten once they are most of the table.
  QueuedLives Lives;
  std::size_t QueuedReleased = 0; ///< entries of Lives not Live
  void queuedRelease(QueuedLife &Life);

  /// Held for a whole drain, so that batches taken by two threads are applied
  /// in the order they were queued. Stream resolution inside may query the
  /// driver; that is safe because waiters here are inside our CUPTI callbacks,
  /// which hold no lock the driver needs. Taken at every CUDA call that finds
  /// events queued, so a FutexMutex too (a waiter for a long batch sleeps on
  /// the futex). Also guards what only replay reads. On a line of its own
  /// (alignas): next to Lives, each drain's two writes of it took from the
  /// pushing threads the line their next block event looks its block up in.
  alignas(64) FutexMutex DrainLock;
  /// The batch being applied; swapped with Queue, so that both keep their
  /// capacity and a push allocates nothing once the queue has grown.
  std::vector<BlockEvent> Batch;
  /// The deferred launches' words: QueuedWords under Head.Lock, swapped
  /// into BatchWords with the queue (a Launched event's Ptr indexes them).
  std::vector<PointerWord> QueuedWords;
  std::vector<PointerWord> BatchWords;
  /// The same for the deferred copies' and sets' ranges, and the vector
  /// Engine::launched takes them in.
  std::vector<Range> QueuedRanges;
  std::vector<Range> BatchRanges;
  std::vector<Range> TouchedNow;
  BlockEvents *StreamOrdered = nullptr;
  std::atomic<std::size_t> IgnoredGenericWords{0};
  /// batchesApplied(); written only by a drainer (DrainLock held).
  std::atomic<std::uint64_t> BatchesApplied{0};
  /// drainWaits(); written only by a drain that waited.
  std::atomic<std::uint64_t> WaitedDrains{0};
  std::atomic<std::uint64_t> WaitedDrainNs{0};
  /// Takes DrainLock from another drainer, timing the wait.
  void waitForDrainer();
  static inline thread_local bool Draining = false;
  /// The host events of a run, waiting for the engine; as long as the longest
  /// batch since the last shrink (drain writes them in place).
  std::vector<Engine::HostSync> HostRun;
  /// Op -> index into Sites, NoSite while not asked; ops from MaxTabledOp
  /// on (no OpTable hands them out before a million ops) in SiteOfFarOp.
  static constexpr std::uint32_t NoSite = ~std::uint32_t(0);
  static constexpr OpId MaxTabledOp = 1 << 20;
  std::vector<std::uint32_t> SiteByOp;
  std::unordered_map<OpId, std::size_t> SiteOfFarOp;
  std::vector<int> DeviceOfStream;                ///< by StreamId; -1: not asked yet

  /// Guards the accounting below: taken by replay once per block event (the
  /// summary reads it from another thread), so not a pthread mutex either.
  mutable FutexMutex StateLock;
  KnownBlocks Blocks;
  std::vector<SiteState> Sites;
  std::unordered_map<std::uint64_t, std::size_t> SiteIndex;
  std::vector<std::size_t> HoldingBack; ///< sites with held-back bytes now
};

} // namespace rt
} // namespace streamlife

#endif
