//===- HostClocks.cpp - what each host thread knows -----------------------===//

#include "engine/HostClocks.h"

#include <algorithm>

namespace streamlife {
namespace rt {

HostClocks::HostClocks(SlotAllocator &Slots, bool ChangedSlotJoins)
    : Slots(Slots), Common(ChangedSlotJoins) {}

HostClock &HostClocks::create(ThreadId T) {
  auto H = std::make_unique<HostClock>();
  H->Thread = T;
  H->Slot = Slots.allocate();
  H->Clock.setOwner(H->Slot);
  H->Clock.tick(H->Slot);
  H->Published = publishedWord(T);
  publish(*H);
  Clocks.push_back(std::move(H));
  Common.changed();
  return *Clocks.back();
}

HostClock &HostClocks::firstSight(ThreadId T) {
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
  if (CudaThreads)
    H.Clock.join(Common.whole());
  H.UsesCuda = true;
  H.Finished = false;
  ++CudaThreads;
  learned(H);
  Common.join(H.Clock);
  return H;
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
    Common.leave(H->Clock);
    publish(*H);
  }
  Common.changed();
}

} // namespace rt
} // namespace streamlife
