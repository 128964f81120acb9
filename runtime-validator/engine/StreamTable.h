//===- StreamTable.h - streams, their clocks and implicit ordering -*- C++ -*-===//
//
// Per stream: its descriptor, its clock slot and its vector clock. enqueue() is
// the single place where work joins a stream, so it also applies the implicit
// orderings CUDA adds without any API call:
//   * the enqueuing host's knowledge (work enqueued after a host sync is ordered
//     after what the host synchronized with);
//   * legacy default stream semantics, per device: work on the legacy stream
//     waits for all prior work of the blocking streams (Blocking and
//     PerThreadDefault), and their later work waits for prior legacy work.
//     Non-blocking streams take no part; priorities have no effect.
//
// Inheriting the host's knowledge costs the slots the thread's clock gained
// since this stream last joined it, not the clock's width (FSDP2 on one rank:
// about 140 slots, and the thread's clock moves at most lock handovers): the
// stream notes, per thread, the position of the thread's LoggedClock it holds
// everything up to, and reads only the slots that grew after it.
//
// The legacy ordering costs one compare per blocking stream when the legacy
// stream enqueues, and one compare when a blocking stream enqueues: a join only
// happens when the other side ticked since we last joined it.
//
// Stream churn (a stream per request) must not widen every clock forever, so
// the clock slot of a destroyed stream is reused, TSan-style, but only once
// every host thread is ordered after the stream's last operation: from then on
// no access record of the old stream can matter, and the new owner continues
// the slot's counter, so epochs stay unambiguous. A destroyed stream's clock
// moves into its device's Retired clock (a device sync still waits for its
// work) and its own storage is freed; only its descriptor stays, for reports.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_STREAMTABLE_H
#define STREAMLIFE_RT_ENGINE_STREAMTABLE_H

#include "engine/CommonKnowledge.h"
#include "engine/Engine.h"
#include "engine/HostClocks.h"
#include "engine/LoggedClock.h"
#include "engine/VectorClock.h"

#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace streamlife {
namespace rt {

/// The streams of one device, for the legacy default stream's ordering and
/// device syncs.
struct DeviceStreams {
  StreamId Legacy = NoStream;
  std::vector<StreamId> Blocking; ///< live Blocking and PerThreadDefault streams
  std::vector<StreamId> Live;     ///< live streams of the device
  VectorClock Retired;            ///< join of the final clocks of destroyed streams
};

struct StreamState {
  StreamDesc Desc;
  /// Its device's streams, found once: every enqueue on a blocking or legacy
  /// stream asks them, and a hash lookup of the device cost about 20
  /// instructions each time. The table's entry never moves.
  DeviceStreams *OfDevice = nullptr;
  StreamId Id = NoStream;
  ClockSlot Slot = NoSlot;
  VectorClock Clock;
  bool Destroyed = false;
  /// Per host thread that enqueued here: Clock holds that thread's clock as
  /// of this position of it (a handful of threads: a scan beats a map).
  struct HostMark {
    ClockSlot Host;
    LoggedClock::Position Joined;
  };
  std::vector<HostMark> HostMarks;

  bool blocksOnLegacy() const {
    return Desc.Flavor == StreamFlavor::Blocking || Desc.Flavor == StreamFlavor::PerThreadDefault;
  }
  /// The epoch of this stream's latest operation.
  Epoch now() const { return Epoch{Slot, Clock.get(Slot)}; }
};

class StreamTable {
public:
  /// ChangedSlotJoins false: every join of a host's knowledge reads its whole
  /// clock (the reference the engine's tests and benchmarks compare with).
  explicit StreamTable(SlotAllocator &Slots, bool ChangedSlotJoins = true)
      : Slots(Slots), ChangedSlotJoins(ChangedSlotJoins) {}

  /// The live stream with this (device, handle), created on first sight.
  /// Common is what every host thread knows (slots are recycled against it).
  StreamState &lookupOrCreate(const StreamDesc &Desc, const CommonKnowledge &Common);
  /// Forgets the handle (CUDA may hand it out again for a new stream); the
  /// stream's past work stays known to device syncs and access records.
  void destroy(StreamId S);
  /// Null for an id the engine never handed out.
  StreamState *get(StreamId S) {
    return S < Streams.size() ? Streams[S].get() : nullptr;
  }
  const StreamState *get(StreamId S) const {
    return S < Streams.size() ? Streams[S].get() : nullptr;
  }
  /// Null for an unknown or destroyed stream: work can no longer be enqueued on
  /// it (its clock slot may already belong to a new stream).
  StreamState *live(StreamId S) {
    StreamState *St = get(S);
    return St && !St->Destroyed ? St : nullptr;
  }
  std::size_t size() const { return Streams.size(); }

  /// One operation enqueued on S by a host with clock H: inherits H's knowledge,
  /// the implicit legacy-stream ordering and, when given, an event's snapshot
  /// (stream-wait-event). Returns the epoch of the new operation.
  Epoch enqueue(StreamState &S, const HostClock &H, const VectorClock *Waited = nullptr);

  /// True when S's next operation, enqueued by host H, would be ordered after E:
  /// what S knows, what H knows, and the implicit legacy-stream ordering. A
  /// host-side release (a caching allocator's block going back to S's pool) is
  /// safe against E exactly when this holds, since only S's later work can reuse
  /// the block.
  bool nextWorkOrderedAfter(const StreamState &S, const HostClock &H, Epoch E) const {
    return nextWorkOrderedAfter(S, H.Clock, E);
  }
  /// The same for a host whose knowledge is Host (a thread's clock as it was).
  bool nextWorkOrderedAfter(const StreamState &S, const VectorClock &Host, Epoch E) const {
    return nextWorkOrderedAfter(S, Host.covers(E), E);
  }
  /// The same for a host that knew E exactly when HostKnew.
  bool nextWorkOrderedAfter(const StreamState &S, bool HostKnew, Epoch E) const;

  /// Makes H wait for all work ever enqueued on Device, destroyed streams
  /// included (their work still completes before a device sync returns).
  void syncDevice(HostClock &H, int Device) const;

  /// Joins of a host's knowledge into a stream that read the whole clock
  /// (first contact, clocks too narrow to keep the order) and all of them.
  std::uint64_t wholeHostJoins() const { return WholeHostJoins; }
  std::uint64_t hostJoins() const { return HostJoins; }

private:
  void inheritHost(StreamState &S, const HostClock &H);
  /// enqueue's implicit ordering of a legacy stream after its device's
  /// blocking streams, and of a blocking stream after the legacy stream.
  __attribute__((noinline)) void joinBlockingStreams(StreamState &S);
  __attribute__((noinline)) void joinLegacyStream(StreamState &S);

  struct RetiredSlot {
    ClockSlot Slot;
    ClockTime Final; ///< the slot's last tick; a new owner continues from here
  };
  ClockSlot takeSlot(const CommonKnowledge &Common, ClockTime &ContinueFrom);
  DeviceStreams &device(int Device) { return Devices[Device]; }
  const DeviceStreams *findDevice(int Device) const {
    auto It = Devices.find(Device);
    return It == Devices.end() ? nullptr : &It->second;
  }

  SlotAllocator &Slots;
  bool ChangedSlotJoins;
  std::uint64_t WholeHostJoins = 0;
  std::uint64_t HostJoins = 0;
  std::vector<std::unique_ptr<StreamState>> Streams;
  std::map<std::pair<int, Handle>, StreamId> Live;
  /// Node-based: StreamState::OfDevice points into it.
  std::unordered_map<int, DeviceStreams> Devices;
  std::vector<RetiredSlot> Retiring; ///< destroyed, maybe still known unfinished
  std::vector<RetiredSlot> FreeSlots;
};

} // namespace rt
} // namespace streamlife

#endif
