//===- AllocatorShapesTest.cpp - splits, merges, nesting, pointers --------===//
//
// Caching allocators split segments into blocks and merge freed neighbours, so
// the engine tracks byte ranges. These tests change the block boundaries
// between lifetimes and check that each rule sees exactly the affected bytes.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

class ShapesTest : public EngineTest {
protected:
  StreamId A = stream(0xa);
  StreamId B = stream(0xb);
  static constexpr Addr Base = 0x7f1000000000;
};

TEST_F(ShapesTest, ReuseRaceOnlyOnTheSplitPartThatIsUsedUnordered) {
  Range Whole{Base, 1024};
  alloc(Whole, A);
  launch(B, Whole, ConsumerKernel);
  freeOn(Base, A); // unsafe: B still reads all 1024 bytes

  // The allocator splits the freed block into two on A.
  Range Low{Base, 256}, High{Base + 256, 768};
  alloc(Low, A); // the reuse opportunity: the unsafe free is reported here
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  alloc(High, A);
  launch(A, High, ProducerKernel);
  ASSERT_EQ(count(FindingKind::ReuseRace), 1u);
  const Finding &F = *Sink.first(FindingKind::ReuseRace);
  EXPECT_TRUE(F.AfterUnsafeFree);
  EXPECT_EQ(F.Bytes.Begin, High.Begin);
  EXPECT_EQ(F.Bytes.Size, High.Size);
  EXPECT_EQ(F.Allocation.Begin, Whole.Begin); // the old lifetime's allocation
  EXPECT_EQ(F.Allocation.Size, Whole.Size);
  EXPECT_EQ(F.NewAllocation.Begin, High.Begin);
  EXPECT_EQ(F.NewAllocation.Size, High.Size);

  // The low part is used only after A waited for B: clean.
  record(0xe, B);
  wait(A, 0xe);
  launch(A, Low, ProducerKernel);
  EXPECT_EQ(count(FindingKind::ReuseRace), 1u);
}

TEST_F(ShapesTest, UnsafeFreeOnlyForTheReleasedBlockOfASplitSegment) {
  // Two blocks carved out of one segment; B reads only the first.
  Range First{Base, 512}, Second{Base + 512, 512};
  alloc(First, A);
  alloc(Second, A);
  launch(B, First, ConsumerKernel);
  freeAndReuse(Second.Begin, A);
  EXPECT_EQ(total(), 0u);
  freeAndReuse(First.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Bytes.Begin, First.Begin);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Bytes.Size, First.Size);
}

TEST_F(ShapesTest, ReuseRaceForEachMergedNeighbourReallocatedAsOneBlock) {
  StreamId C = stream(0xc);
  Range Left{Base, 512}, Right{Base + 512, 512};
  alloc(Left, A);
  alloc(Right, A);
  launch(B, Left, ConsumerKernel);
  launch(C, Right, OtherKernel);
  freeOn(Left.Begin, A);
  freeOn(Right.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 0u); // nothing reused them yet

  Range Merged{Base, 1024};
  alloc(Merged, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
  launch(A, Merged, ProducerKernel);
  ASSERT_EQ(count(FindingKind::ReuseRace), 2u);
  bool SawLeft = false, SawRight = false;
  for (const Finding &F : Sink.Findings) {
    if (F.Kind != FindingKind::ReuseRace)
      continue;
    if (F.Unordered.Stream == B) {
      SawLeft = true;
      EXPECT_EQ(F.Bytes.Begin, Left.Begin);
      EXPECT_EQ(F.Bytes.Size, Left.Size);
    } else if (F.Unordered.Stream == C) {
      SawRight = true;
      EXPECT_EQ(F.Bytes.Begin, Right.Begin);
      EXPECT_EQ(F.Bytes.Size, Right.Size);
    }
    EXPECT_EQ(F.NewAllocation.Size, Merged.Size);
  }
  EXPECT_TRUE(SawLeft);
  EXPECT_TRUE(SawRight);
}

TEST_F(ShapesTest, ReuseRaceNotReportedForMergedNeighboursWhoseConsumersWereWaitedFor) {
  Range Left{Base, 512}, Right{Base + 512, 512};
  alloc(Left, A);
  alloc(Right, A);
  launch(B, Left, ConsumerKernel);
  launch(B, Right, ConsumerKernel);
  record(0xe, B);
  wait(A, 0xe);
  freeOn(Left.Begin, A);
  freeOn(Right.Begin, A);
  alloc(Range{Base, 1024}, A);
  launch(A, Range{Base, 1024}, ProducerKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ShapesTest, UnsafeFreeReportsOneFindingSpanningEverySegmentOfTheBlock) {
  Range Whole{Base, 1024};
  alloc(Whole, A);
  launch(A, Range{Base + 100, 100}, ProducerKernel); // splits the shadow
  launch(B, Whole, ConsumerKernel);
  freeAndReuse(Base, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Bytes.Begin, Whole.Begin);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Bytes.Size, Whole.Size);
}

TEST_F(ShapesTest, BlocksInsideACudaMallocSegmentHaveTheirOwnLifetimes) {
  // PyTorch: cudaMalloc'd segment (Device), then blocks in it (CachingAllocator).
  Range Segment{Base, 4096};
  alloc(Segment, NoStream, AllocKind::Device);
  Range BlockA{Base, 4096}; // first block starts where the segment does
  alloc(BlockA, A);
  launch(B, BlockA, ConsumerKernel);
  freeOn(Base, A); // releases the block, not the segment
  EXPECT_EQ(E->stats().LiveAllocations, 1u); // the segment
  reuseOn(A);     // A's next block (elsewhere) could have been this one
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(E->stats().LiveAllocations, 2u); // the segment and the new block
  // emptyCache(): cudaFree of the segment synchronizes the device.
  freeOn(Base, NoStream, ReleaseKind::SyncFree);
  EXPECT_EQ(E->stats().LiveAllocations, 1u);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(ShapesTest, ReuseRaceNotReportedForABlockCarvedOutOfASegmentUsedBeforeBlocksWereKnown) {
  // Before the allocator's tracker is attached, kernels touch the cudaMalloc'd
  // segment as a whole; the first block the tracker reports must not race with
  // those coarse accesses.
  Range Segment{Base, 4096};
  alloc(Segment, NoStream, AllocKind::Device);
  launch(B, Range{Base + 2048, WholeAllocation}, ConsumerKernel);
  alloc(Range{Base, 1024}, A);
  launch(A, Range{Base, 1024}, ProducerKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ShapesTest, ReuseRaceWhenACudaMallocReturnsBytesOfAnUnreleasedCudaMalloc) {
  // Same kind over live bytes: a free we did not see. The new lifetime must be
  // ordered after the old accesses.
  alloc(Block, NoStream, AllocKind::Device);
  launch(B, Block, ConsumerKernel);
  alloc(Block, NoStream, AllocKind::Device);
  launch(A, Block, ProducerKernel);
  EXPECT_EQ(count(FindingKind::ReuseRace), 1u);
}

TEST_F(ShapesTest, ReuseRaceWhenANewAllocationCoversBytesThatWereNeverReleased) {
  // A missed free (or an allocator we cannot see) hands live bytes out again:
  // the new lifetime must still be ordered after the old accesses.
  alloc(Block, A);
  launch(B, Block, ConsumerKernel);
  alloc(Block, A);
  launch(A, Block, ProducerKernel);
  EXPECT_EQ(count(FindingKind::ReuseRace), 1u);
  EXPECT_FALSE(Sink.first(FindingKind::ReuseRace)->AfterUnsafeFree);
  EXPECT_EQ(E->stats().LiveAllocations, 1u);
}

TEST_F(ShapesTest, AccessesOutsideTrackedAllocationsAreIgnored) {
  alloc(Block, A, AllocKind::StreamOrdered);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  launch(B, Range{Block.end(), 4096}, ConsumerKernel);   // just past it
  launch(B, Range{Block.Begin - 64, 64}, ConsumerKernel); // just before it
  launch(B, Range{0x1000, WholeAllocation}, ConsumerKernel);
  EXPECT_EQ(total(), 0u);
  EXPECT_FALSE(E->isTracked(Block.end()));
  EXPECT_FALSE(E->isTracked(Block.Begin - 1));
  EXPECT_FALSE(E->isTracked(0));
}

TEST_F(ShapesTest, AnAccessStraddlingTheEndOfAnAllocationTouchesOnlyTrackedBytes) {
  alloc(Block, A, AllocKind::StreamOrdered);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  launch(A, Range{Block.end() - 16, 64}, ConsumerKernel);
  ASSERT_EQ(count(FindingKind::UseAfterFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UseAfterFree)->Bytes.Begin, Block.end() - 16);
  EXPECT_EQ(Sink.first(FindingKind::UseAfterFree)->Bytes.Size, 16u);
}

TEST_F(ShapesTest, WholeAllocationResolvesAnInteriorPointerToItsAllocation) {
  Range Other{Block.end(), 256}; // adjacent allocation: must not be touched
  alloc(Block, A);
  alloc(Other, A);
  launch(B, Range{Block.Begin + 1000, WholeAllocation}, ConsumerKernel);
  freeAndReuse(Other.Begin, A);
  EXPECT_EQ(total(), 0u);
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Bytes.Size, Block.Size);
}

TEST_F(ShapesTest, LaunchWithPointersTouchesEveryPointedToAllocationOnce) {
  Range Other{Block.Begin + 0x10000, 256};
  alloc(Block, A);
  alloc(Other, A);
  Addr Words[] = {Block.Begin, 0x3f800000, Other.Begin + 8, Block.Begin + 16};
  E->launchedWithPointers(0, B, Words, 4, ConsumerKernel);
  EXPECT_EQ(E->stats().RecordedAccesses, 2u);
  EXPECT_TRUE(E->isTracked(Block.Begin + 16));
  EXPECT_TRUE(E->isTracked(Other.Begin));
  EXPECT_FALSE(E->isTracked(0x3f800000));
  freeOn(Block.Begin, A);
  freeAndReuse(Other.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
}

} // namespace

namespace {

TEST_F(ShapesTest, ReuseRaceReportedOnceForOneOldAccessSpanningSeveralSegments) {
  Range Whole{Base, 1024};
  alloc(Whole, A);
  launch(B, Range{Base, 512}, ConsumerKernel);       // two launches of the same
  launch(B, Range{Base + 512, 512}, ConsumerKernel); // op: two segments, two epochs
  freeOn(Base, A);
  alloc(Whole, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Bytes.Size, Whole.Size);
  launch(A, Whole, ProducerKernel);
  ASSERT_EQ(count(FindingKind::ReuseRace), 1u);
  EXPECT_EQ(Sink.first(FindingKind::ReuseRace)->Bytes.Size, Whole.Size);
}

TEST_F(ShapesTest, UnsafeFreeReportedPerDistinctUnorderedOpOfOneStream) {
  Range Whole{Base, 1024};
  alloc(Whole, A);
  launch(B, Range{Base, 512}, ConsumerKernel);
  launch(B, Range{Base + 512, 512}, OtherKernel);
  freeAndReuse(Base, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
}

} // namespace
