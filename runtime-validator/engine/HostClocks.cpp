//===- HostClocks.cpp - what each host thread knows -----------------------===//

#include "engine/HostClocks.h"

#include <algorithm>

namespace streamlife {
namespace rt {

HostClocks::HostClocks(SlotAllocator &Slots, bool ChangedSlotJoins)
    : Slots(Slots), ChangedSlotJoins(ChangedSlotJoins) {}

HostClock &HostClocks::create(ThreadId T) {
  auto H = std::make_unique<HostClock>();
  H->Thread = T;
  H->Slot = Slots.allocate();
  H->Clock.tick(H->Slot);
  H->Published = publishedWord(T);
  publish(*H);
  Clocks.push_back(std::move(H));
  ++Version;
  return *Clocks.back();
}

HostClock &HostClocks::forSync(ThreadId T) {
  if (HostClock *H = find(T))
    return *H;
  if (T >= ByThread.size())
    ByThread.resize(std::size_t(T) + 1, nullptr);
  ByThread[T] = &create(T);
  return *ByThread[T];
}

HostClock &HostClocks::firstCudaUse(ThreadId T) {
  HostClock &H = forSync(T);
  if (H.UsesCuda)
    return H;
  // A new CUDA thread knows what every CUDA thread knows: that work really
  // completed (each of them observed it), so nothing it enqueues can race
  // with it, and the common knowledge stays a lower bound of every clock.
  const VectorClock &Known = commonKnowledge();
  if (CudaThreads)
    H.Clock.join(Known);
  H.UsesCuda = true;
  H.Finished = false;
  ++CudaThreads;
  ++Members;
  learned(H);
  return H;
}

void HostClocks::learned(HostClock &H) {
  H.Clock.tick(H.Slot);
  H.ReleasedSinceTick = false;
  publish(H);
  ++Version;
}

std::atomic<std::uint64_t> *HostClocks::publishedWord(ThreadId T) {
  const std::size_t Chunk = T / PublishedPerChunk;
  if (Chunk >= PublishedChunks)
    return nullptr;
  PublishedWord *Words = Published[Chunk].load(std::memory_order_relaxed);
  if (!Words) {
    PublishedOwned.push_back(std::make_unique<PublishedWord[]>(PublishedPerChunk));
    Words = PublishedOwned.back().get();
    for (std::size_t I = 0; I < PublishedPerChunk; ++I)
      Words[I].store(0, std::memory_order_relaxed);
    Published[Chunk].store(Words, std::memory_order_release);
  }
  return &Words[T % PublishedPerChunk];
}

const std::atomic<std::uint64_t> *HostClocks::publishedWordIfAny(ThreadId T) const {
  const std::size_t Chunk = T / PublishedPerChunk;
  if (Chunk >= PublishedChunks)
    return nullptr;
  const PublishedWord *Words = Published[Chunk].load(std::memory_order_acquire);
  return Words ? &Words[T % PublishedPerChunk] : nullptr;
}

Engine::HostState HostClocks::published(ThreadId T) const {
  if (const PublishedWord *Word = publishedWordIfAny(T))
    return Engine::hostState(Word->load(std::memory_order_acquire));
  Engine::HostState S; // no thread of the chunk has a clock yet
  S.Known = T / PublishedPerChunk < PublishedChunks;
  return S;
}

Epoch HostClocks::stamp(HostClock &H) {
  if (H.ReleasedSinceTick)
    learned(H);
  return H.now();
}

void HostClocks::finished(ThreadId T) {
  HostClock *H = find(T);
  if (!H || H->Finished)
    return;
  H->Finished = true;
  if (H->UsesCuda) {
    H->UsesCuda = false;
    --CudaThreads;
    ++Members;
    publish(*H);
  }
  ++Version;
}

const VectorClock &HostClocks::commonKnowledge() {
  if (CommonVersion == Version)
    return Common;
  ++CommonComputations;
  if (!ChangedSlotJoins || CommonMembers != Members || !updateCommon()) {
    ++WholeCommon;
    recomputeCommon();
  }
  CommonMembers = Members;
  CommonVersion = Version;
  return Common;
}

bool HostClocks::updateCommon() {
  for (const std::unique_ptr<HostClock> &H : Clocks)
    if (H->UsesCuda && !H->Clock.readsChangesSince(H->CommonAt))
      return false;
  Grown.clear();
  // A thread's own slot is where no other thread knows more than it does:
  // its growth there moves the minimum only when no other thread counts.
  const bool OwnSlotsMove = CudaThreads <= 1;
  for (const std::unique_ptr<HostClock> &H : Clocks) {
    if (!H->UsesCuda)
      continue;
    H->Clock.forEachChangeSince(H->CommonAt, [&](ClockSlot S) {
      if (S == H->Slot && !OwnSlotsMove)
        return;
      if (S >= GrownSeen.size())
        GrownSeen.resize(std::size_t(S) + 1, false);
      if (!GrownSeen[S]) {
        GrownSeen[S] = true;
        Grown.push_back(S);
      }
    });
    H->CommonAt = H->Clock.position();
  }
  // A slot no thread's clock grew in keeps its minimum; one that grew in some
  // thread's can only have risen (clocks only grow).
  for (ClockSlot S : Grown) {
    GrownSeen[S] = false;
    ClockTime Min = ~ClockTime(0);
    for (const std::unique_ptr<HostClock> &H : Clocks)
      if (H->UsesCuda)
        Min = std::min(Min, H->Clock.get(S));
    Common.raise(S, Min);
  }
  return true;
}

void HostClocks::recomputeCommon() {
  Common.clear();
  bool First = true;
  for (const std::unique_ptr<HostClock> &H : Clocks) {
    if (!H->UsesCuda)
      continue;
    if (First)
      Common.assign(H->Clock);
    else
      Common.meet(H->Clock);
    First = false;
    H->CommonAt = H->Clock.position();
  }
}

} // namespace rt
} // namespace streamlife
