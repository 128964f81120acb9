//===- BlockEvents.cpp - block events into the engine ----------------------===//
#include "allocators/BlockEvents.h"

#include <algorithm>

namespace streamlife {
namespace rt {

BlockEvents::~BlockEvents() = default;

void EngineBlockEvents::blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site,
                                       int Device) {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Recorded.erase(Bytes.Begin);
  }
  E.allocated(T, Bytes, Alloc, Stream, Site, Device, Pool);
}

void EngineBlockEvents::blockReleased(ThreadId T, Addr Base, StreamId Stream, OpId Site) {
  E.released(T, Base, Release, Stream, Site);
  std::lock_guard<std::mutex> Guard(Lock);
  Recorded.erase(Base);
}

void EngineBlockEvents::blockUsedOnStream(ThreadId, Addr Base, StreamId Consumer) {
  std::lock_guard<std::mutex> Guard(Lock);
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
