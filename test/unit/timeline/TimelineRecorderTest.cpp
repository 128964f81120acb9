//===- TimelineRecorderTest.cpp - streams and blocks as trace lanes -------===//
#include "timeline/TimelineRecorder.h"

#include "TimelineTestSupport.h"

#include <gtest/gtest.h>

#include <set>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

std::uint64_t FakeNow = 0;
/// Every reading is 1 us after the last: events get distinct, known times.
std::uint64_t fakeClock() { return FakeNow += 1000; }

class Names : public TimelineNames {
public:
  std::string streamName(StreamId S) override { return "stream #" + std::to_string(S); }
  OpLabel opLabel(OpId Op) override {
    return {"op" + std::to_string(Op), "op" + std::to_string(Op) + "(float*)",
            "site" + std::to_string(Op) + " (demo.py:" + std::to_string(Op) + ")", "kernel"};
  }
};

constexpr Addr Segment = 0x7f0000000000;
constexpr Addr BlockA = Segment + 0x1000;

class TimelineRecorderTest : public ::testing::Test {
protected:
  std::unique_ptr<TimelineRecorder> open(bool GpuTime = false, std::uint64_t Limit = 0) {
    TimelineSettings S;
    S.Path = Dir.file("trace.json");
    S.GpuTime = GpuTime;
    S.Clock = fakeClock;
    S.ByteLimit = Limit;
    S.Command = "demo";
    std::string Error;
    auto R = TimelineRecorder::open(S, N, Error);
    EXPECT_TRUE(R) << Error;
    return R;
  }
  std::string finish(TimelineRecorder &R) {
    std::string Error;
    EXPECT_TRUE(R.finish("", Error)) << Error;
    return readFile(Dir.file("trace.json"));
  }
  void launch(TimelineRecorder &R, StreamId S, OpId Op, Addr P, Correlation C = {}) {
    PointerWord W{P, false};
    R.work(0, S, Op, &W, 1, C);
  }

  ScratchDir Dir;
  Names N;
};

/// The one line of Text that contains every one of Parts.
std::string lineWith(const std::string &Text, std::initializer_list<std::string> Parts) {
  for (const std::string &L : lines(Text)) {
    bool All = true;
    for (const std::string &P : Parts)
      All &= L.find(P) != std::string::npos;
    if (All)
      return L;
  }
  return "";
}

TEST_F(TimelineRecorderTest, SaysWhichClockPlacedTheGpuWork) {
  auto R = open(false);
  std::string Text = finish(*R);
  EXPECT_NE(lineWith(Text, {"streamlife_trace", "\"clock\":\"order\""}), "");
  auto G = open(true);
  Text = finish(*G);
  EXPECT_NE(lineWith(Text, {"streamlife_trace", "\"clock\":\"gpu\""}), "");
}

TEST_F(TimelineRecorderTest, AStreamLaneAndABlockLaneWithASubLanePerStream) {
  auto R = open();
  R->allocated(0, Range{BlockA, 4096}, true, 0, 1);
  launch(*R, 0, 2, BlockA);      // the producer writes it
  launch(*R, 1, 3, BlockA + 64); // the consumer reads it
  R->releaseRequested(0, BlockA, 0, 4);
  R->released(0, BlockA, 4);
  std::string Text = finish(*R);
  EXPECT_NE(lineWith(Text, {"thread_name", "\"pid\":1,\"tid\":1,", "stream #0"}), "");
  EXPECT_NE(lineWith(Text, {"thread_name", "block A 0x7f0000001000 (4 KiB, pool block)"}), "");
  EXPECT_NE(lineWith(Text, {"thread_name", "block A used by stream #0"}), "");
  EXPECT_NE(lineWith(Text, {"thread_name", "block A used by stream #1"}), "");
  // The kernel on its stream, named, with its site and the block it touched.
  EXPECT_NE(lineWith(Text, {"\"ph\":\"X\",\"pid\":1,\"tid\":2,", "\"name\":\"op3\"",
                            "\"site\":\"site3 (demo.py:3)\"", "\"blocks\":\"A\""}),
            "");
  // The same work on the block's sub-lane for stream #1.
  EXPECT_NE(lineWith(Text, {"\"ph\":\"X\",\"pid\":2,\"tid\":3,", "\"name\":\"op3\""}), "");
  // The lifetime, from the allocation to the release, with both sites.
  std::string Life = lineWith(Text, {"\"pid\":2,\"tid\":1,", "\"cat\":\"lifetime\""});
  EXPECT_NE(Life.find("\"allocated by\":{"), std::string::npos) << Life;
  EXPECT_NE(Life.find("\"released by\":{"), std::string::npos) << Life;
}

TEST_F(TimelineRecorderTest, ASegmentUnderItsBlocksGetsNoLane) {
  auto R = open();
  R->allocated(0, Range{Segment, 1 << 20}, false, NoStream, 1); // cuMemAlloc'd segment
  R->allocated(0, Range{BlockA, 4096}, true, 0, 2);             // a block carved from it
  launch(*R, 0, 3, BlockA);
  std::string Text = finish(*R);
  EXPECT_EQ(count(Text, "device allocation)"), 0u);
  EXPECT_EQ(count(Text, "pool block)"), 1u);
}

TEST_F(TimelineRecorderTest, AReusedBlockKeepsItsLaneAndCountsItsLifetimes) {
  auto R = open();
  for (int Layer = 0; Layer < 3; ++Layer) {
    R->allocated(0, Range{BlockA, 4096}, true, 0, 1);
    launch(*R, 0, 2, BlockA);
    R->releaseRequested(0, BlockA, 0, 3);
    R->released(0, BlockA, 3);
  }
  std::string Text = finish(*R);
  EXPECT_EQ(count(Text, "block A 0x"), 1u);
  EXPECT_NE(lineWith(Text, {"\"name\":\"reused (lifetime 3)\""}), "");
  EXPECT_NE(lineWith(Text, {"streamlife_summary", "\"block_lanes\":1", "\"peak_pool_blocks\":1"}),
            "");
}

TEST_F(TimelineRecorderTest, ARecordAndAWaitAreJoinedByAFlow) {
  auto R = open();
  launch(*R, 0, 1, 0);
  R->eventRecorded(0, 0x7100, 0);
  R->streamWaitsEvent(0, 1, 0x7100);
  R->streamWaitsEvent(0, 2, 0x7100); // a second waiter: a second arrow
  std::string Text = finish(*R);
  EXPECT_EQ(count(Text, "\"ph\":\"s\""), 2u);
  EXPECT_EQ(count(Text, "\"ph\":\"f\""), 2u);
  EXPECT_NE(lineWith(Text, {"\"ph\":\"s\",\"pid\":1,\"tid\":1,", "\"id\":1,"}), "");
  EXPECT_NE(lineWith(Text, {"\"ph\":\"f\",\"pid\":1,\"tid\":2,", "\"id\":1,"}), "");
  EXPECT_NE(lineWith(Text, {"\"name\":\"event wait\"", "\"event\":\"0x7100\""}), "");
}

TEST_F(TimelineRecorderTest, AWaitOnAnEventNeverRecordedHasNoArrow) {
  auto R = open();
  R->streamWaitsEvent(0, 1, 0x9999);
  std::string Text = finish(*R);
  EXPECT_EQ(count(Text, "\"ph\":\"s\""), 0u);
  EXPECT_EQ(count(Text, "\"ph\":\"f\""), 0u);
  EXPECT_NE(lineWith(Text, {"\"name\":\"event wait\""}), "");
}

TEST_F(TimelineRecorderTest, AFindingIsAMarkerWithAnArrowFromTheRacingAccessToTheReuse) {
  auto R = open();
  R->allocated(0, Range{BlockA, 4096}, true, 0, 1);
  launch(*R, 0, 2, BlockA);
  launch(*R, 1, 3, BlockA); // the consumer's read
  R->releaseRequested(0, BlockA, 0, 4);
  R->released(0, BlockA, 4);
  R->allocated(0, Range{BlockA, 4096}, true, 0, 1); // the reuse
  Finding F{};
  F.Kind = FindingKind::UnsafeFree;
  F.Bytes = Range{BlockA, 4096};
  F.Allocation = F.Bytes;
  F.Unordered = AccessPoint{1, 3};
  F.Released = AccessPoint{0, 4};
  F.ReusedBy = AccessPoint{0, 1};
  R->finding(F, "unsafe-free: caching allocator block released on stream #0 while stream #1 may still access it");
  launch(*R, 0, 2, BlockA);
  std::string Text = finish(*R);
  std::string Marker = lineWith(Text, {"\"ph\":\"i\"", "\"cat\":\"finding\""});
  EXPECT_NE(Marker.find("\"pid\":2,\"tid\":1,"), std::string::npos) << Marker;
  EXPECT_NE(Marker.find("unsafe-free: caching allocator block"), std::string::npos);
  // From the consumer's slice on block A's stream #1 sub-lane to the next
  // write of the block by the stream it was handed to (stream #0's sub-lane).
  std::string From = lineWith(Text, {"\"ph\":\"s\"", "\"cat\":\"race\""});
  std::string To = lineWith(Text, {"\"ph\":\"f\"", "\"cat\":\"race\""});
  EXPECT_NE(From.find("\"pid\":2,\"tid\":3,"), std::string::npos) << From;
  EXPECT_NE(To.find("\"pid\":2,\"tid\":2,"), std::string::npos) << To;
}

TEST_F(TimelineRecorderTest, ARaceArrowWhoseReuseNeverWritesEndsInTheReusedLifetime) {
  auto R = open();
  R->allocated(0, Range{BlockA, 4096}, true, 0, 1);
  launch(*R, 1, 3, BlockA);
  R->released(0, BlockA, 4);
  R->allocated(0, Range{BlockA, 4096}, true, 0, 1);
  Finding F{};
  F.Kind = FindingKind::UnsafeFree;
  F.Bytes = F.Allocation = Range{BlockA, 4096};
  F.Unordered = AccessPoint{1, 3};
  F.ReusedBy = AccessPoint{0, 1};
  R->finding(F, "unsafe-free: ...");
  std::string Text = finish(*R);
  std::string To = lineWith(Text, {"\"ph\":\"f\"", "\"cat\":\"race\""});
  EXPECT_NE(To.find("\"pid\":2,\"tid\":1,"), std::string::npos) << To;
  EXPECT_EQ(count(Text, "\"ph\":\"s\""), 1u);
}

TEST_F(TimelineRecorderTest, GpuTimeComesFromTheActivityRecord) {
  auto R = open(true);
  std::uint64_t Base = FakeNow; // the recorder's origin is its first reading
  R->allocated(0, Range{BlockA, 4096}, true, 0, 1);
  launch(*R, 0, 2, BlockA, Correlation{41, 0});
  launch(*R, 1, 3, BlockA, Correlation{0, 42}); // known by its runtime call's id
  R->gpuInterval(41, Base + 50000, Base + 60000);
  R->gpuInterval(42, Base + 70000, Base + 90000);
  R->endOfGpuBatch();
  std::string Text = finish(*R);
  EXPECT_NE(lineWith(Text, {"\"pid\":1,\"tid\":1,\"ts\":50.000,\"dur\":10.000", "\"clock\":\"gpu\""}),
            "");
  EXPECT_NE(lineWith(Text, {"\"pid\":1,\"tid\":2,\"ts\":70.000,\"dur\":20.000"}), "");
  EXPECT_NE(lineWith(Text, {"streamlife_summary", "\"placed_by_gpu_time\":2",
                            "\"placed_by_order_without_record\":0"}),
            "");
}

TEST_F(TimelineRecorderTest, WorkWhoseRecordNeverCameIsPlacedByOrderAtTheEnd) {
  auto R = open(true);
  launch(*R, 0, 2, 0, Correlation{5, 0});
  std::string Text = finish(*R);
  EXPECT_NE(lineWith(Text, {"\"name\":\"op2\"", "\"clock\":\"order (no activity record)\""}), "");
  EXPECT_NE(lineWith(Text, {"streamlife_summary", "\"placed_by_order_without_record\":1"}), "");
}

TEST_F(TimelineRecorderTest, TheLimitIsSaidInTheLastEvent) {
  auto R = open(false, 3000);
  for (int I = 0; I < 100; ++I)
    launch(*R, 0, 2, 0);
  std::string Text = finish(*R);
  EXPECT_LE(Text.size(), 3000u + 1000u);
  EXPECT_NE(lineWith(Text, {"\"s\":\"g\"", "reached its limit of", "later events not written"}), "");
}

/// Every kind of arrow the recorder draws, with work after each: an event's
/// (record to wait, the wait held back behind work waiting for its activity
/// record in GPU-time mode), a race arrow to the reuse's work, and a race
/// arrow that ends in a lifetime drawn only when the block is released.
void drawEveryArrow(TimelineRecorder &R, bool GpuTime) {
  auto Launch = [&](StreamId S, OpId Op, Addr P, std::uint32_t Correlation) {
    PointerWord W{P, false};
    R.work(0, S, Op, &W, 1, ::streamlife::rt::Correlation{GpuTime ? Correlation : 0, 0});
  };
  std::uint64_t Base = FakeNow;
  R.allocated(0, Range{BlockA, 4096}, true, 0, 1);
  Launch(0, 2, BlockA, 11);
  Launch(1, 3, BlockA, 12); // the read that races with the reuse
  R.eventRecorded(0, 0x7100, 0);
  R.streamWaitsEvent(0, 1, 0x7100);
  Launch(1, 4, BlockA, 13);
  R.gpuInterval(11, Base + 50000, Base + 60000);
  R.gpuInterval(12, Base + 70000, Base + 80000);
  R.gpuInterval(13, Base + 90000, Base + 95000);
  R.endOfGpuBatch();
  R.releaseRequested(0, BlockA, 0, 5);
  R.released(0, BlockA, 5);
  R.allocated(0, Range{BlockA, 4096}, true, 0, 1); // the reuse
  Finding F{};
  F.Kind = FindingKind::UnsafeFree;
  F.Bytes = F.Allocation = Range{BlockA, 4096};
  F.Unordered = AccessPoint{1, 3};
  F.Released = AccessPoint{0, 5};
  F.ReusedBy = AccessPoint{0, 1};
  R.finding(F, "unsafe-free: handed to stream #0");
  Launch(0, 6, BlockA, 14); // the reuse's write: the arrow's end
  F.ReusedBy = AccessPoint{};
  R.finding(F, "unsafe-free: judged at the release"); // ends in the live lifetime
  for (std::uint32_t I = 0; I < 4; ++I)
    Launch(2, 7, 0, 20 + I);
}

TEST_F(TimelineRecorderTest, ACappedTraceHoldsWholeArrowsOnly) {
  for (bool GpuTime : {false, true}) {
    auto Whole = open(GpuTime);
    drawEveryArrow(*Whole, GpuTime);
    std::string Full = finish(*Whole);
    ASSERT_EQ(arrowProblems(Full), std::vector<std::string>{}) << Full;
    ASSERT_EQ(count(Full, "\"ph\":\"s\""), 3u) << Full;
    // A cap cuts the trace after the last event that fits: one at each event's
    // end (and a byte either side) is every cut there is, so the sweep puts
    // one before each arrow's first slice, between its ends, between an end
    // and its slice, and after it.
    std::vector<std::uint64_t> Limits;
    for (std::size_t At = Full.find("\n{"); At != std::string::npos; At = Full.find("\n{", At + 1))
      for (std::uint64_t Near : {At - 1, At, At + 1})
        Limits.push_back(Near);
    std::set<std::size_t> Arrows; // how many each capped trace kept
    for (std::uint64_t Limit : Limits) {
      auto R = open(GpuTime, Limit);
      drawEveryArrow(*R, GpuTime);
      std::string Text = finish(*R);
      std::vector<std::string> Problems = arrowProblems(Text);
      EXPECT_EQ(Problems, std::vector<std::string>{})
          << (GpuTime ? "gpu time" : "order") << ", limit " << Limit << ":\n" << Text;
      if (!Problems.empty())
        break; // one trace says it; the next caps cut the same arrow
      Arrows.insert(count(Text, "\"ph\":\"s\""));
    }
    // The sweep cut before, inside and after each of the three arrows.
    EXPECT_EQ(Arrows, (std::set<std::size_t>{0, 1, 2, 3}));
  }
}

} // namespace
