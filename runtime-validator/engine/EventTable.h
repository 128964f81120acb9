//===- EventTable.h - recorded event snapshots -------------------*- C++ -*-===//
//
// Event handle -> the clock of the stream at its latest record. A record
// overwrites the previous one (CUDA semantics); a wait or a sync on an event
// that was never recorded (or was destroyed) completes at once and orders
// nothing, so find() returns null and callers do nothing.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_EVENTTABLE_H
#define STREAMLIFE_RT_ENGINE_EVENTTABLE_H

#include "engine/Engine.h"
#include "engine/VectorClock.h"

#include <unordered_map>

namespace streamlife {
namespace rt {

struct RecordedEvent {
  VectorClock Snapshot;
  Epoch At; ///< the record operation itself: covering it means covering Snapshot
};

class EventTable {
public:
  /// Reuses the event's snapshot storage when the handle was recorded before.
  void record(Handle Event, const VectorClock &StreamClock, Epoch At) {
    RecordedEvent &E = Events[Event];
    E.Snapshot.assign(StreamClock);
    E.At = At;
  }
  const RecordedEvent *find(Handle Event) const {
    auto It = Events.find(Event);
    return It == Events.end() ? nullptr : &It->second;
  }
  void destroy(Handle Event) { Events.erase(Event); }
  std::size_t size() const { return Events.size(); }

private:
  std::unordered_map<Handle, RecordedEvent> Events;
};

} // namespace rt
} // namespace streamlife

#endif
