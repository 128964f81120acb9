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
    Recent &R = recent(Event);
    if (!(R.Event && R.Key == Event)) {
      R.Key = Event;
      R.Event = &Events[Event];
    }
    R.Event->Snapshot.assign(StreamClock);
    R.Event->At = At;
  }
  const RecordedEvent *find(Handle Event) const {
    Recent &R = recent(Event);
    if (R.Event && R.Key == Event)
      return R.Event;
    auto It = Events.find(Event);
    if (It == Events.end())
      return nullptr;
    R.Key = Event;
    R.Event = const_cast<RecordedEvent *>(&It->second);
    return R.Event;
  }
  void destroy(Handle Event) {
    Recent &R = recent(Event);
    if (R.Key == Event)
      R.Event = nullptr;
    Events.erase(Event);
  }
  std::size_t size() const { return Events.size(); }

private:
  std::unordered_map<Handle, RecordedEvent> Events;
  /// The events recorded or found lately, direct-mapped by handle: a
  /// program records and waits on the same few events every step, and a
  /// hash-map lookup cost 25-35 instructions (64 entries: block_replay_cost
  /// cycles through 64 events; 16 missed most). An entry points at its map
  /// node (which never moves while the handle is in the map); destroy()
  /// clears the entry of its handle, the only one that can point at the
  /// erased node.
  struct Recent {
    Handle Key = 0;
    RecordedEvent *Event = nullptr; ///< null: empty
  };
  static constexpr unsigned RecentBits = 6;
  mutable Recent RecentEvents[1u << RecentBits];
  Recent &recent(Handle Event) const {
    // Fibonacci hashing above the low bits (handles are aligned pointers).
    return RecentEvents[((Event >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - RecentBits)];
  }
};

} // namespace rt
} // namespace streamlife

#endif
