//===- StreamSchedule.h - where each stream operation goes in time -*- C++ -*-===//
//
// Every operation enqueued on a stream (a kernel, copy, memset or collective,
// an event record, a wait) becomes a slot on its stream's lane, placed in
// stream order: a slot starts no earlier than the one before it on its
// stream ends, so the lane's slices never overlap, which the trace-event
// format requires of one thread's slices.
//
// Where a slot goes in time:
//   * GPU time: when CUPTI's activity records are enabled, a kernel, copy or
//     memset waits for its record (matched by the correlation id of the API
//     call that enqueued it) and is placed at the record's start and end;
//   * otherwise, by the order alone: at the host time it was enqueued (or
//     when the slot before it ends), lasting a nominal OrderOnlyNs; among work
//     placed at its GPU time, work without a record (collectives recorded by
//     interposition, records that did not come) is a marker of MarkerNs where
//     its stream stood, before the next work's record;
//   * an event record is a marker where its stream's previous work ends; a
//     wait lasts from its place in stream order until the event it waits for
//     completes.
// Slots are handed to the sink in stream order, once placed. A slot waiting
// for its activity record holds back the slots after it on its stream, so
// the memory this takes is bounded: a slot whose record did not come although
// a later slot on its stream got one (the stream runs in order), or that is
// MaxPendingPerStream slots old, is placed by the order alone.
//
// Not thread-safe: the recorder calls it under its lock.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_TIMELINE_STREAMSCHEDULE_H
#define STREAMLIFE_RT_TIMELINE_STREAMSCHEDULE_H

#include "engine/Engine.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

/// What a slot on a stream lane is.
enum class SlotKind : std::uint8_t { Work, EventRecord, EventWait };

/// One end of a flow arrow bound to a slot's slice on lane Tid.
struct FlowEnd {
  std::uint64_t Id = 0;
  bool Start = false; ///< "s" (the arrow leaves) or "f" (it arrives)
  std::uint32_t Tid = 0;
  std::uint8_t Category = 0; ///< the recorder's flow categories
};

struct Slot {
  std::uint64_t Seq = 0; ///< assigned by the schedule, increasing
  StreamId Stream = NoStream;
  SlotKind Kind = SlotKind::Work;
  std::uint64_t HostNs = 0; ///< when the host enqueued it
  /// CUPTI correlation ids of the API calls that enqueued it (the driver
  /// call, and the runtime call around it); 0 for none. A slot with one waits
  /// for its activity record in GPU-time mode.
  std::uint32_t Correlation[2] = {0, 0};
  /// EventWait: the record it waits for, by sequence number while that record
  /// is not placed yet (0 otherwise), or by the time it completed.
  std::uint64_t WaitsFor = 0;
  std::uint64_t WaitUntil = 0;
  /// What the recorder needs to draw it (label, blocks touched, event handle).
  std::uint32_t Label = 0;
  Handle Event = 0;
  std::vector<std::uint32_t> Blocks;
  std::vector<FlowEnd> Flows;

  // Filled by the schedule.
  bool HaveGpu = false;
  bool Stale = false; ///< expected a record that did not come: placed by order
  std::uint64_t GpuStart = 0, GpuEnd = 0;
};

struct Placement {
  std::uint64_t Start = 0;
  std::uint64_t End = 0;
  bool GpuTime = false; ///< placed from an activity record
};

class SlotSink {
public:
  virtual ~SlotSink();
  virtual void placed(Slot &S, const Placement &P) = 0;
};

class StreamSchedule {
public:
  static constexpr std::uint64_t OrderOnlyNs = 1000;
  static constexpr std::uint64_t MarkerNs = 2;
  static constexpr std::size_t MaxPendingPerStream = 1 << 16;

  StreamSchedule(SlotSink &Sink, bool GpuTime) : Sink(Sink), GpuTime(GpuTime) {}

  bool gpuTime() const { return GpuTime; }
  /// The sequence number the next slot will get.
  std::uint64_t nextSeq() const { return NextSeq; }
  /// Adds a slot (its Seq is assigned here) and places what became ready.
  std::uint64_t add(Slot S);
  /// Binds a flow end to a slot that is not placed yet; false when the slot
  /// was already placed (the caller then writes the end itself).
  bool attach(StreamId S, std::uint64_t Seq, const FlowEnd &End);
  /// The end of the last slot placed on S (0 when none).
  std::uint64_t laneEnd(StreamId S) const;

  /// One activity record: the GPU interval of the work enqueued by the call
  /// with this correlation id. False when no waiting slot has that id.
  bool gpuInterval(std::uint32_t Correlation, std::uint64_t Start, std::uint64_t End);
  /// After a buffer of activity records: slots passed over by a later record
  /// on their stream will not get one; place them by the order alone.
  void endOfGpuBatch();
  /// Places everything still waiting (at the end of the trace).
  void placeAll();

  struct Stats {
    std::uint64_t Slots = 0;
    std::uint64_t PlacedByGpu = 0;
    std::uint64_t PlacedByOrder = 0; ///< of the slots that expected an activity record
    std::uint64_t UnmatchedRecords = 0;
  };
  const Stats &stats() const { return Counts; }
  std::size_t pending() const;

private:
  struct Lane {
    std::deque<Slot> Pending; ///< in Seq order
    std::uint64_t End = 0;    ///< of the last placed slot
  };
  bool expectsGpu(const Slot &S) const { return GpuTime && S.Correlation[0] != 0; }
  bool ready(const Slot &S) const;
  Placement place(const Slot &S, std::uint64_t LaneEnd, std::uint64_t NextGpuStart) const;
  /// Places the ready heads of every lane until none is ready.
  void placeReady();
  bool placeHeads(Lane &L);
  Slot *find(StreamId S, std::uint64_t Seq);

  SlotSink &Sink;
  bool GpuTime;
  std::uint64_t NextSeq = 1;
  std::unordered_map<StreamId, Lane> Lanes;
  /// Correlation id -> (stream, seq) of the slot waiting for its record.
  std::unordered_map<std::uint32_t, std::pair<StreamId, std::uint64_t>> ByCorrelation;
  /// Record slots some wait depends on: seq -> end once placed (0: not yet).
  std::unordered_map<std::uint64_t, std::uint64_t> Awaited;
  /// Waits per awaited record, to forget it after the last one is placed.
  std::unordered_map<std::uint64_t, std::uint32_t> Waiters;
  Stats Counts;
};

} // namespace rt
} // namespace streamlife

#endif
