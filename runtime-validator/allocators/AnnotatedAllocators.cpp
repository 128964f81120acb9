//===- AnnotatedAllocators.cpp - queue, replay and block accounting --------===//
#include "allocators/AnnotatedAllocators.h"

#include <algorithm>
#include <ctime>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace streamlife {
namespace rt {

AnnotatedAllocators::AnnotatedAllocators(Engine &E, SiteKeyFn SiteKey)
    : E(E), SiteKey(std::move(SiteKey)), ById(new std::atomic<Registered *>[MaxAllocators]) {
  for (std::size_t I = 0; I < MaxAllocators; ++I)
    ById[I].store(nullptr, std::memory_order_relaxed);
}

AnnotatedAllocators::~AnnotatedAllocators() = default;

int AnnotatedAllocators::registerAllocator(const std::string &Name, int Policy) {
  AllocKind Alloc;
  ReleaseKind Release;
  // The policy picks the lifetime kinds, and with them when an unordered use
  // at a release is judged (engine/DeferredFrees.cpp): a SAME_STREAM pool
  // hands a block only to later allocations on its stream, exactly what the
  // engine assumes of a caching allocator; a STREAM_ORDERED pool behaves like
  // the driver's: every use must be ordered before the release, which is
  // judged at once.
  switch (static_cast<ReusePolicy>(Policy)) {
  case ReusePolicy::SameStream:
    Alloc = AllocKind::CachingAllocator;
    Release = ReleaseKind::CachingAllocator;
    break;
  case ReusePolicy::StreamOrdered:
    Alloc = AllocKind::StreamOrdered;
    Release = ReleaseKind::StreamOrdered;
    break;
  default:
    return 0;
  }
  std::lock_guard<std::mutex> Guard(RegistryLock);
  if (Allocators.size() >= MaxAllocators)
    return 0;
  // The id names the pool: a caching block goes only to the same allocator.
  PoolId Pool = static_cast<PoolId>(Allocators.size() + 1);
  Allocators.push_back(std::make_unique<Registered>(
      Registered{Name, std::make_unique<EngineBlockEvents>(E, Alloc, Release, Pool)}));
  ById[Allocators.size() - 1].store(Allocators.back().get(), std::memory_order_release);
  return static_cast<int>(Allocators.size());
}

std::string AnnotatedAllocators::allocatorName(int Id) const {
  const Registered *R = registered(Id);
  return R ? R->Name : std::string();
}

#if defined(__x86_64__)
namespace {
bool cpuHasPrefetchW() {
  unsigned Eax = 0, Ebx = 0, Ecx = 0, Edx = 0;
  return __get_cpuid(0x80000001, &Eax, &Ebx, &Ecx, &Edx) && (Ecx & bit_PRFCHW);
}
} // namespace
const bool AnnotatedAllocators::CanPrefetchForWrite = cpuHasPrefetchW();
#else
const bool AnnotatedAllocators::CanPrefetchForWrite = false;
#endif

void AnnotatedAllocators::push(const BlockEvent &Event) {
  std::lock_guard<FutexMutex> Guard(Head.Lock);
  if (Event.Allocator) // not a host synchronization event nor a declared access
    noteQueued(Event);
  Head.Queue.push_back(Event);
  claimNextLines(Head.Queue);
  countPushed();
}

void AnnotatedAllocators::pushOfKnownAllocator(const BlockEvent &Event) {
  std::lock_guard<FutexMutex> Guard(Head.Lock);
  noteQueuedOfKnownAllocator(Event);
  Head.Queue.push_back(Event);
  claimNextLines(Head.Queue);
  countPushed();
}

std::size_t AnnotatedAllocators::pushDeferred(const BlockEvent &Event) {
  std::lock_guard<FutexMutex> Guard(Head.Lock);
  Head.Queue.push_back(Event);
  claimNextLines(Head.Queue);
  return countPushed() - Head.Applied.load(std::memory_order_relaxed);
}

template <typename Item>
std::size_t AnnotatedAllocators::pushDeferredWithItems(BlockEvent Event, std::vector<Item> &Arena,
                                                       const Item *Items, std::size_t Count) {
  std::lock_guard<FutexMutex> Guard(Head.Lock);
  Event.Ptr = Arena.size();
  Event.Allocator = static_cast<int>(Count);
  Arena.insert(Arena.end(), Items, Items + Count);
  Head.Queue.push_back(Event);
  claimNextLines(Head.Queue);
  claimNextLines(Arena);
  return countPushed() - Head.Applied.load(std::memory_order_relaxed);
}

std::size_t AnnotatedAllocators::pushLaunch(ThreadId T, StreamId S, const PointerWord *Words,
                                            std::size_t Count, OpId Op, OpId GenericOp) {
  BlockEvent Event;
  Event.What = BlockEvent::Kind::Launched;
  Event.Thread = T;
  Event.Stream = S;
  Event.Size = GenericOp;
  Event.Site = Op;
  return pushDeferredWithItems(Event, QueuedWords, Words, Count);
}

std::size_t AnnotatedAllocators::pushTouched(ThreadId T, StreamId S, const Range *Ranges, std::size_t Count,
                                             OpId Op) {
  BlockEvent Event;
  Event.What = BlockEvent::Kind::Touched;
  Event.Thread = T;
  Event.Stream = S;
  Event.Site = Op;
  return pushDeferredWithItems(Event, QueuedRanges, Ranges, Count);
}

std::size_t AnnotatedAllocators::pushPoolAllocated(ThreadId T, Addr Ptr, std::uint64_t Size, StreamId S,
                                                   OpId Site, int Device) {
  BlockEvent Event;
  Event.What = BlockEvent::Kind::PoolAllocated;
  Event.Thread = T;
  Event.Ptr = Ptr;
  Event.Size = Size;
  Event.Stream = S;
  Event.Site = Site;
  Event.Allocator = Device;
  return pushDeferred(Event);
}

std::size_t AnnotatedAllocators::pushPoolFreed(ThreadId T, Addr Ptr, StreamId S, OpId Site) {
  BlockEvent Event;
  Event.What = BlockEvent::Kind::PoolFreed;
  Event.Thread = T;
  Event.Ptr = Ptr;
  Event.Stream = S;
  Event.Site = Site;
  return pushDeferred(Event);
}

std::size_t AnnotatedAllocators::pushStreamOp(BlockEvent::Kind What, ThreadId T, Handle Event, StreamId S) {
  BlockEvent Queued;
  Queued.What = What;
  Queued.Thread = T;
  Queued.Ptr = Event;
  Queued.Stream = S;
  return pushDeferred(Queued);
}

bool AnnotatedAllocators::pushReleaseNamedByRequest(const BlockEvent &Event) {
  if (Event.What != BlockEvent::Kind::Released || !registered(Event.Allocator))
    return false;
  return pushReleaseOfKnownAllocatorNamedByRequest(Event);
}

bool AnnotatedAllocators::pushReleaseOfKnownAllocatorNamedByRequest(const BlockEvent &Event) {
  std::lock_guard<FutexMutex> Guard(Head.Lock);
  QueuedLife *Life = Lives.find(Event.Ptr);
  if (!Life || !Life->Live || !Life->ReleaseRequested || Life->RequestSite == NoOp)
    return false;
  queuedRelease(*Life);
  Head.Queue.push_back(Event);
  Head.Queue.back().Site = NoOp; // never reported: replay names the request's site
  claimNextLines(Head.Queue);
  countPushed();
  return true;
}

// The same decisions as apply() and the accounting make for the block's
// life, in the same (queue) order: an allocator registered when the event is
// queued is registered when it is applied, so a block noted live here is live
// there, with the same first request.
inline void AnnotatedAllocators::noteQueued(const BlockEvent &Event) {
  if (registered(Event.Allocator))
    noteQueuedOfKnownAllocator(Event);
}

inline void AnnotatedAllocators::noteQueuedOfKnownAllocator(const BlockEvent &Event) {
  switch (Event.What) {
  case BlockEvent::Kind::Allocated:
    if (Event.Ptr && Event.Size) {
      std::size_t Known = Lives.size();
      QueuedLife &Life = Lives.findOrMake(Event.Ptr);
      if (Lives.size() == Known && !Life.Live) // not a new life
        --QueuedReleased; // a released block handed out again
      Life = QueuedLife{true, false, NoOp};
    }
    return;
  case BlockEvent::Kind::ReleaseRequested: {
    QueuedLife *Life = Lives.find(Event.Ptr);
    if (Life && Life->Live && !Life->ReleaseRequested)
      *Life = QueuedLife{true, true, Event.Site};
    return;
  }
  case BlockEvent::Kind::Released: {
    QueuedLife *Life = Lives.find(Event.Ptr);
    if (Life && Life->Live)
      queuedRelease(*Life);
    return;
  }
  default:
    return;
  }
}

void AnnotatedAllocators::queuedRelease(QueuedLife &Life) {
  Life = QueuedLife{};
  ++QueuedReleased;
  // Forgetting them once they are most of the map costs O(1) per release.
  if (QueuedReleased <= 4096 || 2 * QueuedReleased <= Lives.size())
    return;
  Lives.forgetReleased();
  QueuedReleased = 0;
}

std::size_t AnnotatedAllocators::drain(const ResolveStreamFn &Resolve) {
  if (!hasPending())
    return 0;
  // Waiting here for another thread's batch is the point: see QueueHead.
  // The clock is read only when there is a wait.
  if (!DrainLock.try_lock())
    waitForDrainer();
  std::lock_guard<FutexMutex> Drain(DrainLock, std::adopt_lock);
  {
    std::lock_guard<FutexMutex> Guard(Head.Lock);
    Batch.swap(Head.Queue);
    BatchWords.swap(QueuedWords);
    BatchRanges.swap(QueuedRanges);
  }
  Draining = true;
  // Runs of host synchronization events (most of a batch) go to the engine
  // under one lock each; order with the block events is kept. The buffer is
  // sized for the whole batch once, so that a host event costs one store of
  // its converted form, not a push_back's capacity check.
  if (HostRun.size() < Batch.size())
    HostRun.resize(Batch.size());
  Engine::HostSync *const Run = HostRun.data();
  std::size_t InRun = 0;
  const BlockEvent *const End = Batch.data() + Batch.size();
  for (const BlockEvent *Event = Batch.data(); Event != End; ++Event) {
    if (Event->What >= BlockEvent::Kind::HostReleased) {
      Run[InRun++] = asHostSync(*Event);
      continue;
    }
    if (InRun) {
      E.hostSyncs(Run, InRun);
      InRun = 0;
    }
    // PyTorch's free of a block no other stream used reports the request
    // and the release one after the other (no record_stream to wait for):
    // one step, as the two would be (applyRequestedRelease).
    if (Event + 1 != End && releasedAtOnce(*Event, Event[1])) {
      applyRequestedRelease(*Event, Event[1], Resolve);
      ++Event;
      continue;
    }
    apply(*Event, Resolve);
  }
  if (InRun)
    E.hostSyncs(Run, InRun);
  // Only a drainer (DrainLock held) writes it: a store, no locked add.
  const std::size_t Applied = Batch.size();
  Head.Applied.store(Head.Applied.load(std::memory_order_relaxed) + Applied, std::memory_order_release);
  BatchesApplied.store(BatchesApplied.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  Batch.clear();
  BatchWords.clear();
  BatchRanges.clear();
  Draining = false;
  // A burst (a thread that queued many host events before its next CUDA call)
  // need not stay allocated twice.
  if (Batch.capacity() > 4096) {
    std::vector<BlockEvent>().swap(Batch);
    std::vector<Engine::HostSync>().swap(HostRun);
  }
  if (BatchWords.capacity() > 1 << 16)
    std::vector<PointerWord>().swap(BatchWords);
  if (BatchRanges.capacity() > 1 << 16)
    std::vector<Range>().swap(BatchRanges);
  return Applied;
}

void AnnotatedAllocators::waitForDrainer() {
  timespec Start{}, End{};
  clock_gettime(CLOCK_MONOTONIC, &Start);
  DrainLock.lock();
  clock_gettime(CLOCK_MONOTONIC, &End);
  const std::int64_t Ns = (static_cast<std::int64_t>(End.tv_sec) - Start.tv_sec) * 1000000000 +
                          (End.tv_nsec - Start.tv_nsec);
  WaitedDrains.fetch_add(1, std::memory_order_relaxed);
  WaitedDrainNs.fetch_add(static_cast<std::uint64_t>(Ns > 0 ? Ns : 0), std::memory_order_relaxed);
}

void AnnotatedAllocators::apply(const BlockEvent &Event, const ResolveStreamFn &Resolve) {
  switch (Event.What) {
  case BlockEvent::Kind::Accessed: {
    StreamId S = Resolve(Event.Thread, Event.Stream);
    E.accessed(Event.Thread, S, Range{Event.Ptr, Event.Size}, Event.Site);
    if (BlockObserver *O = Observer.load(std::memory_order_acquire))
      O->blockAccessed(Event.Thread, S, Range{Event.Ptr, Event.Size}, Event.Site);
    return;
  }
  // The deferred CUDA operations: the engine calls the runtime would have
  // made at the call (the timeline saw the call then).
  case BlockEvent::Kind::Launched: {
    std::size_t Ignored = E.launchedWithPointerWords(
        Event.Thread, static_cast<StreamId>(Event.Stream), BatchWords.data() + Event.Ptr,
        static_cast<std::size_t>(Event.Allocator), Event.Site, static_cast<OpId>(Event.Size));
    if (Ignored)
      IgnoredGenericWords.fetch_add(Ignored, std::memory_order_relaxed);
    return;
  }
  case BlockEvent::Kind::Touched: {
    const Range *First = BatchRanges.data() + Event.Ptr;
    TouchedNow.assign(First, First + Event.Allocator);
    E.launched(Event.Thread, static_cast<StreamId>(Event.Stream), TouchedNow, Event.Site);
    return;
  }
  case BlockEvent::Kind::PoolAllocated: {
    const auto S = static_cast<StreamId>(Event.Stream);
    // A negative device: the allocation stream's (pushPoolAllocated).
    const int Device = Event.Allocator >= 0 ? Event.Allocator : deviceOf(S);
    StreamOrdered->blockAllocated(Event.Thread, Range{Event.Ptr, Event.Size}, S, Event.Site, Device);
    return;
  }
  case BlockEvent::Kind::PoolFreed:
    StreamOrdered->blockReleased(Event.Thread, Event.Ptr, static_cast<StreamId>(Event.Stream), Event.Site);
    return;
  case BlockEvent::Kind::EventRecorded:
    E.eventRecorded(Event.Thread, Event.Ptr, static_cast<StreamId>(Event.Stream));
    return;
  case BlockEvent::Kind::StreamWaited:
    E.streamWaitsEvent(Event.Thread, static_cast<StreamId>(Event.Stream), Event.Ptr);
    return;
  case BlockEvent::Kind::EventDestroyed:
    E.eventDestroyed(Event.Thread, Event.Ptr);
    return;
  default:
    break;
  }
  const Registered *Allocator = registered(Event.Allocator);
  if (!Allocator)
    return;
  EngineBlockEvents *Blocks = Allocator->Blocks.get();
  switch (Event.What) {
  case BlockEvent::Kind::Allocated: {
    if (!Event.Ptr || !Event.Size)
      return;
    StreamId S = Resolve(Event.Thread, Event.Stream);
    int Device = S == NoStream ? 0 : deviceOf(S);
    accountAllocation(Event, siteOf(Event.Site, Event.Allocator));
    Blocks->blockAllocated(Event.Thread, Range{Event.Ptr, Event.Size}, S, Event.Site, Device);
    if (BlockObserver *O = Observer.load(std::memory_order_acquire))
      O->blockAllocated(Event.Thread, Range{Event.Ptr, Event.Size}, S, Event.Site);
    return;
  }
  case BlockEvent::Kind::ReleaseRequested:
    accountRequest(Event.Ptr, Event.Site);
    // The stream is not resolved for a SAME_STREAM block: its handle may name
    // a stream destroyed since (see Released below).
    if (BlockObserver *O = Observer.load(std::memory_order_acquire))
      O->blockReleaseRequested(Event.Thread, Event.Ptr,
                               Blocks->releaseKind() == ReleaseKind::CachingAllocator
                                   ? NoStream
                                   : Resolve(Event.Thread, Event.Stream),
                               Event.Site);
    return;
  case BlockEvent::Kind::Released: {
    // The release reported is where the owner let go of the block (the `del`),
    // not where the allocator later took it back.
    OpId Requested = accountRelease(Event.Ptr);
    // A SAME_STREAM block goes back to its allocation stream, which the
    // engine knows; the handle given here may name a stream destroyed since,
    // which must not reach the driver.
    StreamId S = Blocks->releaseKind() == ReleaseKind::CachingAllocator
                     ? NoStream
                     : Resolve(Event.Thread, Event.Stream);
    Blocks->blockReleased(Event.Thread, Event.Ptr, S, Requested != NoOp ? Requested : Event.Site);
    if (BlockObserver *O = Observer.load(std::memory_order_acquire))
      O->blockReleased(Event.Thread, Event.Ptr, Requested != NoOp ? Requested : Event.Site);
    return;
  }
  default:
    return;
  }
}

void AnnotatedAllocators::applyRequestedRelease(const BlockEvent &Request,
                                                const BlockEvent &Release,
                                                const ResolveStreamFn &Resolve) {
  const Registered *Allocator = registered(Release.Allocator);
  if (!Allocator)
    return;
  EngineBlockEvents *Blocks = Allocator->Blocks.get();
  const bool SameStream = Blocks->releaseKind() == ReleaseKind::CachingAllocator;
  // apply(Request), then apply(Release), with the accounting's two steps in
  // one (accountRequestAndRelease) and the rest as they make it, in order.
  OpId Requested = accountRequestAndRelease(Request.Ptr, Request.Site);
  if (BlockObserver *O = Observer.load(std::memory_order_acquire))
    O->blockReleaseRequested(Request.Thread, Request.Ptr,
                             SameStream ? NoStream : Resolve(Request.Thread, Request.Stream),
                             Request.Site);
  StreamId S = SameStream ? NoStream : Resolve(Release.Thread, Release.Stream);
  Blocks->blockReleased(Release.Thread, Release.Ptr, S,
                        Requested != NoOp ? Requested : Release.Site);
  if (BlockObserver *O = Observer.load(std::memory_order_acquire))
    O->blockReleased(Release.Thread, Release.Ptr, Requested != NoOp ? Requested : Release.Site);
}

std::size_t AnnotatedAllocators::learnSite(OpId Op, int Allocator) {
  if (Op >= MaxTabledOp)
    if (auto It = SiteOfFarOp.find(Op); It != SiteOfFarOp.end())
      return It->second;
  std::uint64_t Key = SiteKey ? SiteKey(Op) : Op; // may symbolize: outside StateLock
  std::size_t Site;
  {
    std::lock_guard<FutexMutex> Guard(StateLock);
    auto [It, New] = SiteIndex.emplace(Key, Sites.size());
    if (New) {
      Sites.emplace_back();
      Sites.back().Account.SiteKey = Key;
      Sites.back().Account.Site = Op;
      Sites.back().Account.Allocator = Allocator;
    }
    Site = It->second;
  }
  if (Op >= MaxTabledOp) {
    SiteOfFarOp.emplace(Op, Site);
    return Site;
  }
  if (Op >= SiteByOp.size())
    SiteByOp.resize(std::size_t(Op) + 1, NoSite);
  SiteByOp[Op] = static_cast<std::uint32_t>(Site);
  return Site;
}

int AnnotatedAllocators::learnDevice(StreamId S) {
  // A stream id is never reused, and a stream never changes device.
  if (S >= DeviceOfStream.size())
    DeviceOfStream.resize(S + 1, -1);
  DeviceOfStream[S] = E.streamInfo(S).Desc.Device;
  return DeviceOfStream[S];
}

void AnnotatedAllocators::accountAllocation(const BlockEvent &Event, std::size_t Site) {
  std::lock_guard<FutexMutex> Guard(StateLock);
  KnownBlock &Block = Blocks.findOrMake(Event.Ptr);
  // A block we never saw released (allocated before we attached, or a
  // release we missed) is replaced.
  if (Block.Live) {
    --Sites[Block.Account].LiveBlocks;
    if (Block.ReleaseRequested)
      holdBack(Block.Account, -static_cast<std::int64_t>(Block.Size));
  }
  SiteState &State = Sites[Site];
  ++State.Account.Allocations;
  const auto Index = static_cast<std::uint32_t>(Site);
  if (State.Account.DistinctBlocks < MaxDistinctBlocks && !Block.countedBy(Index)) {
    Block.countBy(Index);
    ++State.Account.DistinctBlocks;
  }
  ++State.LiveBlocks;
  Block.Size = Event.Size;
  Block.Account = Index;
  Block.Live = true;
  Block.ReleaseRequested = false;
  Block.RequestSite = NoOp;
  // Sample the peaks now: an allocation is when held-back memory costs.
  State.Account.PeakLiveBlocks = std::max(State.Account.PeakLiveBlocks, State.LiveBlocks);
  for (std::size_t Holding : HoldingBack) {
    SiteState &S = Sites[Holding];
    S.Account.PeakHeldBackBytes = std::max(S.Account.PeakHeldBackBytes, S.HeldBackBytes);
  }
}

void AnnotatedAllocators::holdBack(std::size_t Index, std::int64_t Bytes) {
  SiteState &S = Sites[Index];
  S.HeldBackBytes += Bytes;
  if (S.HeldBackBytes && S.HoldingAt == NotHolding) {
    S.HoldingAt = HoldingBack.size();
    HoldingBack.push_back(Index);
  } else if (!S.HeldBackBytes && S.HoldingAt != NotHolding) {
    // Swap-remove: the order of HoldingBack means nothing.
    Sites[HoldingBack.back()].HoldingAt = S.HoldingAt;
    HoldingBack[S.HoldingAt] = HoldingBack.back();
    HoldingBack.pop_back();
    S.HoldingAt = NotHolding;
  }
}

void AnnotatedAllocators::accountRequest(Addr Ptr, OpId Site) {
  std::lock_guard<FutexMutex> Guard(StateLock);
  KnownBlock *Block = Blocks.find(Ptr);
  if (!Block || !Block->Live || Block->ReleaseRequested)
    return;
  Block->ReleaseRequested = true;
  Block->RequestSite = Site;
  holdBack(Block->Account, static_cast<std::int64_t>(Block->Size));
}

OpId AnnotatedAllocators::accountRelease(Addr Ptr) {
  std::lock_guard<FutexMutex> Guard(StateLock);
  KnownBlock *Block = Blocks.find(Ptr);
  if (!Block || !Block->Live)
    return NoOp;
  return forgetLive(*Block);
}

OpId AnnotatedAllocators::accountRequestAndRelease(Addr Ptr, OpId RequestSite) {
  std::lock_guard<FutexMutex> Guard(StateLock);
  KnownBlock *Block = Blocks.find(Ptr);
  if (!Block || !Block->Live)
    return NoOp; // accountRequest and accountRelease both leave it
  // A block not requested yet: accountRequest would mark it and hold its
  // bytes back, and accountRelease give them back at once, so the site's
  // held-back bytes and its place among the sites holding some end as they
  // were (the peaks are sampled at allocations only); what is left of the
  // request is its site, which names the release. A block requested before
  // keeps its first request, as accountRequest leaves it.
  if (!Block->ReleaseRequested)
    Block->RequestSite = RequestSite;
  return forgetLive(*Block);
}

OpId AnnotatedAllocators::forgetLive(KnownBlock &Block) {
  SiteState &State = Sites[Block.Account];
  --State.LiveBlocks;
  OpId Requested = Block.RequestSite;
  if (Block.ReleaseRequested)
    holdBack(Block.Account, -static_cast<std::int64_t>(Block.Size));
  Block.Live = false;
  Block.ReleaseRequested = false;
  Block.RequestSite = NoOp;
  // Kept only while a site counts it: past every site's cap the addresses
  // seen would otherwise grow without bound.
  if (Block.CountedBy.empty())
    Blocks.forget(Block);
  return Requested;
}

std::vector<BlockAccount> AnnotatedAllocators::accounts() const {
  std::lock_guard<FutexMutex> Guard(StateLock);
  std::vector<BlockAccount> Result;
  for (const SiteState &S : Sites)
    Result.push_back(S.Account);
  return Result;
}

} // namespace rt
} // namespace streamlife
