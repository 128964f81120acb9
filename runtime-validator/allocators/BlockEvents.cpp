//===- BlockEvents.cpp - block events into the engine ----------------------===//
#include "allocators/BlockEvents.h"

#include <algorithm>

namespace streamlife {
namespace rt {

BlockEvents::~BlockEvents() = default;
BlockObserver::~BlockObserver() = default;

void EngineBlockEvents::forgetRecordedLocked(Addr Base) {
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
