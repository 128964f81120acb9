//===- TraceModel.h - a streamlife timeline, read back ----------*- C++ -*-===//
//
// What `streamlife run --timeline` wrote (runtime-validator/timeline/), read
// into the lanes the picture draws: streams with their work and event
// markers, blocks with their lifetimes and the work of each stream on them,
// finding markers, arrows (event record -> wait, racing access -> reuse), the
// pool-block counters, and the trace's own metadata (which clock placed the
// GPU work, what the run dropped).
//
// A trace is read one event per line, as the recorder writes it, so a trace
// whose process died (FILE.partial) reads too, up to its last complete event.
// Only events that meet the window [From, To] are kept (times in us from the
// start of the trace), which bounds the memory a long run's trace takes; text
// that repeats (names, call sites) is kept once.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_TIMELINE_TRACEMODEL_H
#define STREAMLIFE_TOOL_TIMELINE_TRACEMODEL_H

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace streamlife::timeline {

using TextId = std::uint32_t;

/// Text kept once (0 is the empty string).
class TextTable {
public:
  TextTable() { Texts.emplace_back(); }
  TextId intern(const std::string &Text);
  const std::string &operator[](TextId Id) const { return Texts[Id]; }

private:
  std::vector<std::string> Texts;
  std::unordered_map<std::string, TextId> Ids;
};

enum class SliceKind : std::uint8_t { Work, EventRecord, EventWait };

struct Slice {
  double Start = 0, End = 0; ///< us
  SliceKind Kind = SliceKind::Work;
  bool GpuTime = false;
  TextId Name = 0, Category = 0, Site = 0, Call = 0;
  TextId Blocks = 0; ///< "A,B": the blocks the work touched
};

struct StreamLane {
  std::uint64_t Tid = 0;
  std::string Name;
  std::vector<Slice> Slices;
};

/// The work of one stream on one block.
struct UseLane {
  std::uint64_t Tid = 0;
  std::string Stream;
  std::vector<Slice> Slices;
};

struct Lifetime {
  double Start = 0, End = 0;
  std::string Name; ///< "allocated", "reused (lifetime 2)", "release requested, held back"
  bool HeldBack = false;
  int Number = 1;
  std::string AllocationSite, ReleaseSite, Ending;
};

struct BlockLane {
  std::uint64_t Tid = 0;
  std::string Letter; ///< "A"
  std::string Name;
  std::string Base;
  std::uint64_t Bytes = 0;
  bool Pool = true;
  std::vector<Lifetime> Lifetimes;
  std::vector<UseLane> Uses;
};

struct FindingMarker {
  double At = 0;
  std::uint64_t Tid = 0; ///< the block lane
  std::string Kind, Block, Text;
};

struct Arrow {
  double From = 0, To = 0;
  int FromPid = 0, ToPid = 0;
  std::uint64_t FromTid = 0, ToTid = 0;
  std::string Category; ///< "event" or "race"
};

struct CounterSample {
  double At = 0;
  double LiveBytes = 0, HeldBackBytes = 0, LiveBlocks = 0;
};

struct Trace {
  std::string Clock = "order"; ///< "gpu" or "order"
  std::string Command;
  TextTable Texts;
  std::vector<StreamLane> Streams;
  std::vector<BlockLane> Blocks;
  std::vector<FindingMarker> Findings;
  std::vector<Arrow> Arrows;
  std::vector<CounterSample> Counters;
  std::vector<std::string> Notes;         ///< the run's notes (a limit reached, a dead process)
  std::map<std::string, double> Summary;  ///< the closing event's counts
  bool Finished = false;                  ///< the closing event was read
  double Begin = std::numeric_limits<double>::infinity(), End = 0; ///< of what was kept
  double TraceEnd = 0; ///< the latest time in the whole trace

  const BlockLane *block(const std::string &Letter) const;
};

struct ReadWindow {
  double From = -std::numeric_limits<double>::infinity();
  double To = std::numeric_limits<double>::infinity();
};

/// Reads the trace at Path. False with a one-line reason when it is not a
/// streamlife timeline.
bool readTrace(const std::string &Path, const ReadWindow &Window, Trace &Out, std::string &Error);

} // namespace streamlife::timeline

#endif
