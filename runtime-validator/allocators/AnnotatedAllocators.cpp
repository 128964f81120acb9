//===- AnnotatedAllocators.cpp - queue, replay and block accounting --------===//
#include "allocators/AnnotatedAllocators.h"

#include <algorithm>

namespace streamlife {
namespace rt {

AnnotatedAllocators::AnnotatedAllocators(Engine &E, SiteKeyFn SiteKey)
    : E(E), SiteKey(std::move(SiteKey)) {}

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
  // The id names the pool: a caching block goes only to the same allocator.
  PoolId Pool = static_cast<PoolId>(Allocators.size() + 1);
  Allocators.push_back(
      Registered{Name, std::make_unique<EngineBlockEvents>(E, Alloc, Release, Pool)});
  return static_cast<int>(Allocators.size());
}

std::string AnnotatedAllocators::allocatorName(int Id) const {
  std::lock_guard<std::mutex> Guard(RegistryLock);
  return Id > 0 && static_cast<std::size_t>(Id) <= Allocators.size() ? Allocators[Id - 1].Name
                                                                      : std::string();
}

bool AnnotatedAllocators::known(int Id) const {
  std::lock_guard<std::mutex> Guard(RegistryLock);
  return Id > 0 && static_cast<std::size_t>(Id) <= Allocators.size();
}

void AnnotatedAllocators::push(const BlockEvent &Event) {
  std::lock_guard<std::mutex> Guard(QueueLock);
  Queue.push_back(Event);
  Unapplied.fetch_add(1, std::memory_order_release);
}

void AnnotatedAllocators::drain(const ResolveStreamFn &Resolve) {
  if (!hasPending())
    return;
  // Waiting here for another thread's batch is the point: see Unapplied.
  std::lock_guard<std::mutex> Drain(DrainLock);
  std::vector<BlockEvent> Batch;
  {
    std::lock_guard<std::mutex> Guard(QueueLock);
    Batch.swap(Queue);
  }
  for (const BlockEvent &Event : Batch)
    apply(Event, Resolve);
  Unapplied.fetch_sub(Batch.size(), std::memory_order_release);
}

void AnnotatedAllocators::apply(const BlockEvent &Event, const ResolveStreamFn &Resolve) {
  switch (Event.What) {
  case BlockEvent::Kind::Accessed:
    E.accessed(Event.Thread, Resolve(Event.Thread, Event.Stream), Range{Event.Ptr, Event.Size},
               Event.Site);
    return;
  case BlockEvent::Kind::HostReleased:
    E.hostReleases(Event.Thread, Event.Ptr);
    return;
  case BlockEvent::Kind::HostAcquired:
    E.hostAcquires(Event.Thread, Event.Ptr);
    return;
  case BlockEvent::Kind::SyncDestroyed:
    E.syncDestroyed(Event.Ptr);
    return;
  case BlockEvent::Kind::HostFinished:
    E.hostFinished(Event.Thread);
    return;
  default:
    break;
  }
  EngineBlockEvents *Blocks = nullptr;
  {
    std::lock_guard<std::mutex> Guard(RegistryLock);
    if (Event.Allocator <= 0 || static_cast<std::size_t>(Event.Allocator) > Allocators.size())
      return;
    Blocks = Allocators[Event.Allocator - 1].Blocks.get();
  }
  switch (Event.What) {
  case BlockEvent::Kind::Allocated: {
    if (!Event.Ptr || !Event.Size)
      return;
    StreamId S = Resolve(Event.Thread, Event.Stream);
    int Device = S == NoStream ? 0 : E.streamInfo(S).Desc.Device;
    accountAllocation(Event, Event.Site);
    Blocks->blockAllocated(Event.Thread, Range{Event.Ptr, Event.Size}, S, Event.Site, Device);
    return;
  }
  case BlockEvent::Kind::ReleaseRequested:
    accountRequest(Event.Ptr, Event.Site);
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
    return;
  }
  default:
    return;
  }
}

void AnnotatedAllocators::accountAllocation(const BlockEvent &Event, OpId Site) {
  std::uint64_t Key = SiteKey ? SiteKey(Site) : Site;
  std::lock_guard<std::mutex> Guard(StateLock);
  // A block we never saw released (allocated before we attached, or a
  // release we missed) is replaced.
  if (auto Old = Live.find(Event.Ptr); Old != Live.end()) {
    --Sites[Old->second.Account].LiveBlocks;
    if (Old->second.ReleaseRequested)
      holdBack(Old->second.Account, -static_cast<std::int64_t>(Old->second.Size));
    Live.erase(Old);
  }
  auto [It, New] = SiteIndex.emplace(Key, Sites.size());
  if (New) {
    Sites.emplace_back();
    Sites.back().Account.SiteKey = Key;
    Sites.back().Account.Site = Site;
    Sites.back().Account.Allocator = Event.Allocator;
  }
  SiteState &State = Sites[It->second];
  ++State.Account.Allocations;
  if (State.Blocks.size() < MaxDistinctBlocks)
    State.Blocks.insert(Event.Ptr);
  State.Account.DistinctBlocks = State.Blocks.size();
  ++State.LiveBlocks;
  Live[Event.Ptr] = LiveBlock{Event.Size, It->second, false, NoOp};
  // Sample the peaks now: an allocation is when held-back memory costs.
  State.Account.PeakLiveBlocks = std::max(State.Account.PeakLiveBlocks, State.LiveBlocks);
  for (std::size_t Index : HoldingBack) {
    SiteState &S = Sites[Index];
    S.Account.PeakHeldBackBytes = std::max(S.Account.PeakHeldBackBytes, S.HeldBackBytes);
  }
}

void AnnotatedAllocators::holdBack(std::size_t Index, std::int64_t Bytes) {
  SiteState &S = Sites[Index];
  S.HeldBackBytes += Bytes;
  if (S.HeldBackBytes)
    HoldingBack.insert(Index);
  else
    HoldingBack.erase(Index);
}

void AnnotatedAllocators::accountRequest(Addr Ptr, OpId Site) {
  std::lock_guard<std::mutex> Guard(StateLock);
  auto It = Live.find(Ptr);
  if (It == Live.end() || It->second.ReleaseRequested)
    return;
  It->second.ReleaseRequested = true;
  It->second.RequestSite = Site;
  holdBack(It->second.Account, static_cast<std::int64_t>(It->second.Size));
}

OpId AnnotatedAllocators::accountRelease(Addr Ptr) {
  std::lock_guard<std::mutex> Guard(StateLock);
  auto It = Live.find(Ptr);
  if (It == Live.end())
    return NoOp;
  SiteState &State = Sites[It->second.Account];
  --State.LiveBlocks;
  OpId Requested = It->second.RequestSite;
  if (It->second.ReleaseRequested)
    holdBack(It->second.Account, -static_cast<std::int64_t>(It->second.Size));
  Live.erase(It);
  return Requested;
}

std::vector<BlockAccount> AnnotatedAllocators::accounts() const {
  std::lock_guard<std::mutex> Guard(StateLock);
  std::vector<BlockAccount> Result;
  for (const SiteState &S : Sites)
    Result.push_back(S.Account);
  return Result;
}

} // namespace rt
} // namespace streamlife
