//===- BlockEvents.cpp - block events into the engine ----------------------===//
#include "allocators/BlockEvents.h"

#include <algorithm>

namespace streamlife {
namespace rt {

BlockEvents::~BlockEvents() = default;
BlockObserver::~BlockObserver() = default;

void EngineBlockEvents::blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site,
                                       int Device) {
  forgetRecorded(Bytes.Begin);
  E.allocated(T, Bytes, Alloc, Stream, Site, Device, Pool);
}

void EngineBlockEvents::blockReleased(ThreadId T, Addr Base, StreamId Stream, OpId Site) {
  E.released(T, Base, Release, Stream, Site);
  forgetRecorded(Base);
}

void EngineBlockEvents::forgetRecorded(Addr Base) {
  // Every allocation and release passes here; most allocators never record.
  if (!AnyRecorded.load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> Guard(Lock);
  Recorded.erase(Base);
}

void EngineBlockEvents::blockUsedOnStream(ThreadId, Addr Base, StreamId Consumer) {
  std::lock_guard<std::mutex> Guard(Lock);
  AnyRecorded.store(true, std::memory_order_release);
  std::vector<StreamId> &Streams = Recorded[Base];
  if (std::find(Streams.begin(), Streams.end(), Consumer) == Streams.end())
    Streams.push_back(Consumer);
}

std::vector<StreamId> EngineBlockEvents::recordedStreams(Addr Base) const {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Recorded.find(Base);
  return It == Recorded.end() ? std::vector<StreamId>() : It->second;
}

} // namespace rt
} // namespace streamlife
