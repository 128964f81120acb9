//===- StreamScheduleTest.cpp - where stream operations go in time --------===//
#include "timeline/StreamSchedule.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace streamlife::rt;

namespace {

struct Recorded {
  std::uint64_t Seq;
  StreamId Stream;
  Placement P;
  std::size_t Flows;
};

class Collect : public SlotSink {
public:
  void placed(Slot &S, const Placement &P) override {
    Out.push_back({S.Seq, S.Stream, P, S.Flows.size()});
  }
  const Recorded &bySeq(std::uint64_t Seq) const {
    for (const Recorded &R : Out)
      if (R.Seq == Seq)
        return R;
    ADD_FAILURE() << "slot " << Seq << " not placed";
    return Out.front();
  }
  std::vector<Recorded> Out;
};

Slot work(StreamId S, std::uint64_t HostNs, std::uint32_t Correlation = 0) {
  Slot W;
  W.Stream = S;
  W.HostNs = HostNs;
  W.Correlation[0] = Correlation;
  return W;
}

Slot record(StreamId S, std::uint64_t HostNs) {
  Slot R = work(S, HostNs);
  R.Kind = SlotKind::EventRecord;
  return R;
}

Slot wait(StreamId S, std::uint64_t HostNs, std::uint64_t RecordSeq) {
  Slot W = work(S, HostNs);
  W.Kind = SlotKind::EventWait;
  W.WaitsFor = RecordSeq;
  return W;
}

TEST(StreamScheduleTest, OrderOnlyPlacesWorkAtItsEnqueueTimeWithoutOverlap) {
  Collect Sink;
  StreamSchedule S(Sink, /*GpuTime=*/false);
  S.add(work(0, 100));
  S.add(work(0, 200)); // enqueued while the first "runs": after it
  S.add(work(0, 5000));
  ASSERT_EQ(Sink.Out.size(), 3u);
  EXPECT_EQ(Sink.Out[0].P.Start, 100u);
  EXPECT_EQ(Sink.Out[0].P.End, 100 + StreamSchedule::OrderOnlyNs);
  EXPECT_EQ(Sink.Out[1].P.Start, Sink.Out[0].P.End);
  EXPECT_EQ(Sink.Out[2].P.Start, 5000u);
  EXPECT_FALSE(Sink.Out[0].P.GpuTime);
}

TEST(StreamScheduleTest, GpuTimeWaitsForTheActivityRecordAndHoldsBackTheStream) {
  Collect Sink;
  StreamSchedule S(Sink, /*GpuTime=*/true);
  std::uint64_t A = S.add(work(0, 100, 7));
  std::uint64_t B = S.add(work(0, 150, 8));
  std::uint64_t Other = S.add(work(1, 160)); // no correlation: placed at once
  EXPECT_EQ(Sink.Out.size(), 1u);
  EXPECT_EQ(Sink.Out[0].Seq, Other);
  EXPECT_TRUE(S.gpuInterval(8, 900, 1000)); // B's record first: A still holds it back
  EXPECT_EQ(Sink.Out.size(), 1u);
  EXPECT_TRUE(S.gpuInterval(7, 300, 800));
  ASSERT_EQ(Sink.Out.size(), 3u);
  EXPECT_EQ(Sink.bySeq(A).P.Start, 300u);
  EXPECT_EQ(Sink.bySeq(A).P.End, 800u);
  EXPECT_TRUE(Sink.bySeq(A).P.GpuTime);
  EXPECT_EQ(Sink.bySeq(B).P.Start, 900u);
  EXPECT_FALSE(S.gpuInterval(99, 1, 2)); // nobody waits for it
  EXPECT_EQ(S.stats().UnmatchedRecords, 1u);
}

TEST(StreamScheduleTest, ASlotPassedOverByALaterRecordIsPlacedByOrder) {
  Collect Sink;
  StreamSchedule S(Sink, true);
  std::uint64_t Lost = S.add(work(0, 100, 1));
  std::uint64_t Next = S.add(work(0, 200, 2));
  S.gpuInterval(2, 500, 600);
  EXPECT_TRUE(Sink.Out.empty()); // the batch may still hold the first record
  S.endOfGpuBatch();
  ASSERT_EQ(Sink.Out.size(), 2u);
  EXPECT_FALSE(Sink.bySeq(Lost).P.GpuTime);
  EXPECT_EQ(Sink.bySeq(Lost).P.Start, 100u);
  EXPECT_EQ(Sink.bySeq(Lost).P.End, 100 + StreamSchedule::MarkerNs);
  EXPECT_EQ(Sink.bySeq(Next).P.Start, 500u); // a marker does not push real GPU time
  EXPECT_EQ(S.stats().PlacedByOrder, 1u);
  EXPECT_EQ(S.stats().PlacedByGpu, 1u);
}

TEST(StreamScheduleTest, AWaitLastsUntilTheRecordedWorkEnds) {
  Collect Sink;
  StreamSchedule S(Sink, true);
  std::uint64_t Kernel = S.add(work(0, 100, 1));
  std::uint64_t Record = S.add(record(0, 110));
  std::uint64_t Wait = S.add(wait(1, 120, Record));
  std::uint64_t After = S.add(work(1, 130, 2));
  S.gpuInterval(2, 5000, 5100); // the GPU ordered it after the wait
  EXPECT_TRUE(Sink.Out.empty());
  S.gpuInterval(1, 200, 4000);
  ASSERT_EQ(Sink.Out.size(), 4u);
  EXPECT_EQ(Sink.bySeq(Kernel).P.End, 4000u);
  EXPECT_EQ(Sink.bySeq(Record).P.Start, 4000u); // where the work before it ends
  EXPECT_EQ(Sink.bySeq(Wait).P.Start, 120u);
  EXPECT_EQ(Sink.bySeq(Wait).P.End, Sink.bySeq(Record).P.End);
  EXPECT_GE(Sink.bySeq(After).P.Start, Sink.bySeq(Wait).P.End);
}

TEST(StreamScheduleTest, FlowsAttachToSlotsNotPlacedYetOnly) {
  Collect Sink;
  StreamSchedule S(Sink, true);
  std::uint64_t Pending = S.add(work(0, 100, 1));
  std::uint64_t Placed = S.add(work(1, 100));
  EXPECT_TRUE(S.attach(0, Pending, FlowEnd{1, true, 1, 0}));
  EXPECT_FALSE(S.attach(1, Placed, FlowEnd{2, true, 2, 0}));
  S.placeAll();
  EXPECT_EQ(Sink.bySeq(Pending).Flows, 1u);
  EXPECT_FALSE(Sink.bySeq(Pending).P.GpuTime);
}

TEST(StreamScheduleTest, AStreamWhoseRecordsNeverComeStaysBounded) {
  Collect Sink;
  StreamSchedule S(Sink, true);
  for (std::uint32_t I = 1; I <= StreamSchedule::MaxPendingPerStream + 10; ++I)
    S.add(work(0, I, I));
  EXPECT_LE(S.pending(), StreamSchedule::MaxPendingPerStream);
  EXPECT_EQ(Sink.Out.size(), 10u);
}

TEST(StreamScheduleTest, SlicesOfOneLaneNeverOverlapWhateverTheRecordsSay) {
  Collect Sink;
  StreamSchedule S(Sink, true);
  S.add(work(0, 0, 1));
  S.add(work(0, 0, 2));
  S.gpuInterval(1, 100, 300);
  S.gpuInterval(2, 250, 260); // overlaps the first (clock skew): clamped
  ASSERT_EQ(Sink.Out.size(), 2u);
  EXPECT_GE(Sink.Out[1].P.Start, Sink.Out[0].P.End);
  EXPECT_GT(Sink.Out[1].P.End, Sink.Out[1].P.Start);
}

} // namespace
