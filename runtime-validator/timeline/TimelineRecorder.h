//===- TimelineRecorder.h - a validated run as a trace of lanes -*- C++ -*-===//
//
// Draws what the validator sees as the seed's picture, in the Chrome/Perfetto
// trace-event format (TraceEventWriter.h):
//   * "CUDA streams": one lane per stream with its kernels, copies, memsets
//     and collectives, named, with their call site (the Python line when the
//     program is Python), and its event records and waits as markers; a flow
//     arrow goes from each record to each wait on it (StreamSchedule.h says
//     where each goes in time);
//   * "memory blocks": one lane per block (BlockLanes.h) with its lifetimes
//     (allocated, release requested, held back, released, reused), and under
//     it a sub-lane per stream with the work that touched the block, so the
//     block is coloured by who uses it when; counters of live and held-back
//     bytes;
//   * "host threads": host synchronizations (stream, event, device);
//   * findings: a marker on the block's lane when the finding is made, and an
//     arrow from the racing access to the reuse (or to the new access).
// The first event says which clock placed the GPU work (CUPTI's activity
// records, or the order alone), the last one what was recorded and dropped.
//
// The recorder is an observer: the interception context calls it beside the
// engine's verbs, the reporter gives it the findings, the CUPTI activity
// adapter the GPU intervals. It has no CUDA in it and decides nothing: the
// verdicts are the engine's. Every method is thread-safe (one lock, a leaf:
// nothing is called under it but the writer); names are resolved through
// TimelineNames before the lock is taken, once per op and stream.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_TIMELINE_TIMELINERECORDER_H
#define STREAMLIFE_RT_TIMELINE_TIMELINERECORDER_H

#include "engine/Engine.h"
#include "timeline/BlockLanes.h"
#include "timeline/StreamSchedule.h"
#include "timeline/TraceEventWriter.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

/// What an op is called in the picture.
struct OpLabel {
  std::string Name;     ///< short: "consume", "ncclAllReduce", "cuMemcpyAsync"
  std::string Detail;   ///< the full kernel or API name
  std::string Site;     ///< the call site: "all_gather (demo.py:31)", a native frame
  std::string Category; ///< "kernel", "copy", "memset", "collective", "library call"
};

/// Resolves ids to names for the recorder (intercept/ implements it over the
/// op table and the stream resolver). May symbolize: never called under the
/// recorder's lock.
class TimelineNames {
public:
  virtual ~TimelineNames();
  virtual std::string streamName(StreamId S) = 0;
  virtual OpLabel opLabel(OpId Op) = 0;
};

enum class HostSyncKind : std::uint8_t { Stream, Event, Device };

/// The CUPTI correlation ids of the call that enqueued some work.
struct Correlation {
  std::uint32_t Driver = 0;
  std::uint32_t Runtime = 0;
};

struct TimelineSettings {
  std::string Path;
  std::uint64_t ByteLimit = 0; ///< 0: no limit
  /// Kernels, copies and memsets wait for CUPTI activity records.
  bool GpuTime = false;
  /// Host time in ns; in GPU-time mode the clock of the activity records.
  std::uint64_t (*Clock)() = nullptr;
  std::string Command; ///< the program, for the first event
  int Pid = 0;
};

class TimelineRecorder final : private SlotSink {
public:
  /// Opens the trace file; null with a one-line reason when it cannot.
  static std::unique_ptr<TimelineRecorder> open(const TimelineSettings &Settings,
                                                TimelineNames &Names, std::string &Error);
  ~TimelineRecorder() override;

  bool gpuTime() const { return Schedule.gpuTime(); }

  // --- streams -----------------------------------------------------------------
  /// Work on S touching the allocations the words point into (a launch's
  /// candidate pointers; generic-scan words count only into live blocks).
  void work(ThreadId T, StreamId S, OpId Op, const PointerWord *Words, std::size_t Count,
            Correlation C);
  /// Work on S touching byte ranges (copies, memsets, collectives).
  void work(ThreadId T, StreamId S, OpId Op, const std::vector<Range> &Touched, Correlation C);
  void eventRecorded(ThreadId T, Handle Event, StreamId S);
  void streamWaitsEvent(ThreadId T, StreamId S, Handle Event);
  void eventDestroyed(Handle Event);
  void hostSynced(ThreadId T, HostSyncKind Kind, StreamId S, Handle Event);

  // --- memory ------------------------------------------------------------------
  /// Pool: a pool block (caching allocator, stream-ordered allocation), looked
  /// up before plain device allocations.
  void allocated(ThreadId T, Range R, bool Pool, StreamId S, OpId Site);
  /// The owner let go of the block (a free call, a tensor's del).
  void releaseRequested(ThreadId T, Addr Base, StreamId S, OpId Site);
  /// The block is back in its allocator (at once, or when the events a
  /// record_stream recorded completed).
  void released(ThreadId T, Addr Base, OpId Site);

  // --- findings ------------------------------------------------------------------
  /// Headline: the finding's first line as printed ("unsafe-free: ...").
  void finding(const Finding &F, std::string_view Headline);

  // --- GPU time ----------------------------------------------------------------------
  /// One activity record's interval, in the clock's ns.
  void gpuInterval(std::uint32_t CorrelationId, std::uint64_t Start, std::uint64_t End);
  /// After a buffer of activity records.
  void endOfGpuBatch();

  /// Places what is left, writes the closing events and renames the file into
  /// place. Note (may be empty) is written into the closing event. Only the
  /// first call does anything; false with a reason when the file could not be
  /// written.
  bool finish(const std::string &Note, std::string &Error);
  /// Path of the trace.
  const std::string &path() const { return Writer.path(); }

private:
  struct Label {
    std::string Name;
    std::string Fragment; ///< "name":...,"cat":...,"args":{"site":... (args left open)
  };
  struct EventState {
    StreamId Stream = NoStream;
    std::uint64_t Seq = 0;
    bool Placed = false;
    std::uint64_t End = 0;
    std::uint32_t Tid = 0;
  };

  TimelineRecorder(const TimelineSettings &Settings, TimelineNames &Names);

  std::uint64_t now() const;
  /// What a label is for: work on a stream, or the site of an allocation or
  /// a release (categories of their own).
  enum class LabelUse : std::uint8_t { Work, Allocation, Release };
  /// Resolves names outside the lock.
  std::uint32_t label(OpId Op, LabelUse Use);
  void prepareStream(StreamId S);
  std::uint32_t streamTid(StreamId S) const { return S + 1; }

  void placed(Slot &S, const Placement &P) override;
  void addWork(StreamId S, std::uint32_t LabelId, std::vector<std::uint32_t> &&BlockIds,
               Correlation C);
  void addSlot(Slot S);
  void ensureStreamLane(StreamId S);
  void touch(Block &B, std::vector<std::uint32_t> &Ids);
  /// Draws B's current lifetime up to EndNs; Ending says why it ends there
  /// when no release was seen (empty when it was).
  void closeLifetime(const Block &B, std::uint64_t EndNs, const char *Ending);
  void countersChanged(std::uint64_t Ns);
  /// A lane's name (with extra args for readers) and sort order.
  void laneNames(int Pid, std::uint64_t Tid, const std::string &Name, const std::string &Args);
  Slot markerSlot(StreamId S, SlotKind Kind, Handle Event);
  void writeBlockLane(const Block &B);
  void writeSubLane(const Block &B, const BlockUse &U);
  void flowEnd(const FlowEnd &End, std::uint64_t Ns, const char *Name);
  /// Binds one end of a flow to the slice of a slot, placed or not.
  void bindFlow(StreamId S, std::uint64_t Seq, bool Placed, std::uint64_t Start,
                std::uint64_t End, const FlowEnd &F);
  void emit(std::string &Event);
  void writeHeader();
  std::string closingEvents(const std::string &Note);

  TimelineNames &Names;
  std::uint64_t (*Clock)();
  std::uint64_t Origin = 0; ///< the clock at open: ts 0
  TimelineSettings Settings;

  std::mutex NameLock; ///< guards LabelIds, Labels, NamedStreams
  std::unordered_map<std::uint64_t, std::uint32_t> LabelIds; ///< (op, kind) -> label
  std::vector<Label> Labels;
  std::unordered_map<StreamId, std::string> StreamNames;

  std::mutex Lock; ///< guards everything below
  TraceEventWriter Writer;
  StreamSchedule Schedule;
  BlockLanes Blocks;
  std::unordered_map<StreamId, bool> StreamLaneWritten;
  std::unordered_map<ThreadId, bool> HostLaneWritten;
  std::unordered_map<Handle, EventState> Events;
  std::uint64_t NextFlow = 1;
  std::uint64_t LiveBytes = 0, HeldBackBytes = 0, LiveBlocks = 0;
  std::uint64_t PeakLiveBytes = 0, PeakLiveBlocks = 0, PeakHeldBackBytes = 0;
  std::uint64_t FindingMarkers = 0;
  /// Race arrows waiting for their end: the next work on Block by Stream (the
  /// allocation that was handed the block writes it next), or, InLifetime,
  /// the slice of Block's current lifetime, once it is drawn.
  struct RaceTarget {
    std::uint64_t Flow = 0;
    std::uint32_t Block = 0;
    StreamId Stream = NoStream;
    std::uint32_t Lane = 0;   ///< the block's lane, and a time inside its
    std::uint64_t InsideNs = 0; ///< current lifetime: where the arrow ends if no work comes
    bool InLifetime = false;
  };
  std::vector<RaceTarget> RaceTargets;
  bool Finished = false;
  std::string Scratch;
};

} // namespace rt
} // namespace streamlife

#endif
