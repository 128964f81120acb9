//===- DeferredFreeTest.cpp - UnsafeFree decided at the reuse opportunity -===//
//
// An access left unordered by a release is reported only when an allocation
// that could be handed the bytes comes while the access is still unordered:
// the next allocation on the release stream for a caching allocator, any
// stream-ordered allocation of the device for a driver pool
// (engine/DeferredFrees.cpp). Each case pairs the program that must stay
// silent with the one-line change that makes it a bug.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

constexpr Handle EvConsumerDone = 0xe1;

class DeferredFreeTest : public EngineTest {
protected:
  /// Block allocated on A, read on B, released on A with nothing ordering
  /// B's read before the release.
  void releaseWhileBReads(AllocKind Alloc = AllocKind::CachingAllocator,
                          ReleaseKind Release = ReleaseKind::CachingAllocator) {
    alloc(Block, A, Alloc);
    record(0xe0, A); // B is ordered after the allocation (no use before alloc)
    wait(B, 0xe0);
    launch(B, Block, ConsumerKernel);
    record(EvConsumerDone, B);
    freeOn(Block.Begin, A, Release);
  }
  StreamId A = stream(0xa);
  StreamId B = stream(0xb);
  StreamId C = stream(0xc);
};

// --- caching allocator: only the release stream's next allocation reuses --------

TEST_F(DeferredFreeTest, NoFindingWhenTheReleaseStreamWaitsOnTheConsumerBeforeItAllocates) {
  releaseWhileBReads();
  wait(A, EvConsumerDone); // after the release, before the next allocation
  reuseOn(A);
  alloc(Block, A); // even the very block, reused on A
  launch(A, Block, ProducerKernel);
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredNotReported, 1u);
  EXPECT_EQ(E->stats().DeferredPending, 0u);
}

TEST_F(DeferredFreeTest, UnsafeFreeWhenTheReleaseStreamAllocatesBeforeTheLateWait) {
  // examples/python/wait_after_del.py: an allocation between the del and the wait.
  releaseWhileBReads();
  Range Next = reuseOn(A);
  wait(A, EvConsumerDone);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  const Finding &F = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.Unordered.Op, ConsumerKernel);
  EXPECT_EQ(F.Released.Stream, A);
  EXPECT_EQ(F.Released.Op, FreeSite);
  EXPECT_EQ(F.ReusedBy.Stream, A);
  EXPECT_EQ(F.ReusedBy.Op, ReuseSite);
  EXPECT_EQ(F.Bytes.Begin, Block.Begin); // the released block, not the new one
  EXPECT_EQ(F.Bytes.Size, Block.Size);
  EXPECT_NE(Next.Begin, Block.Begin);
  reuseOn(A); // decided once: not reported again
  EXPECT_EQ(total(), 1u);
  EXPECT_EQ(E->stats().DeferredNotReported, 0u);
}

TEST_F(DeferredFreeTest, FsdpReduceScatterBlockReleasedWhileTheOptimizerReadsIt) {
  // FSDP2: the gradient block lives on the reduce-scatter stream RS; AdamW
  // reads it on the default stream; zero_grad frees it; RS waits on the default
  // stream (wait_stream) before its next reduce-scatter allocates.
  StreamId Default = legacy();
  StreamId RS = stream(0x55, StreamFlavor::NonBlocking);
  for (int Step = 0; Step < 3; ++Step) {
    record(0x700, Default);
    wait(RS, 0x700); // reduce_scatter_stream.wait_stream(current_stream)
    alloc(Block, RS);
    launch(RS, Block, ProducerKernel); // reduce-scatter output
    record(0x701, RS);
    wait(Default, 0x701);
    launch(Default, Block, ConsumerKernel); // AdamW
    freeOn(Block.Begin, RS);                 // zero_grad
  }
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredNotReported, 3u);
  EXPECT_EQ(E->stats().DeferredPending, 1u); // the last step's, at "exit"
}

TEST_F(DeferredFreeTest, UnsafeFreeWhenTheReduceScatterStreamAllocatesWithoutWaiting) {
  StreamId Default = legacy();
  StreamId RS = stream(0x55, StreamFlavor::NonBlocking);
  for (int Step = 0; Step < 3; ++Step) {
    alloc(Block, RS); // no wait_stream: the block can be overwritten under AdamW
    launch(RS, Block, ProducerKernel);
    record(0x701, RS);
    wait(Default, 0x701);
    launch(Default, Block, ConsumerKernel);
    freeOn(Block.Begin, RS);
  }
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
  EXPECT_EQ(count(FindingKind::ReuseRace), 2u);
  for (const Finding &F : Sink.Findings)
    if (F.Kind == FindingKind::ReuseRace)
      EXPECT_TRUE(F.AfterUnsafeFree);
}

TEST_F(DeferredFreeTest, NoFindingWhenTheHostSynchronizesBeforeTheNextAllocation) {
  releaseWhileBReads();
  E->hostSyncsStream(0, B);
  reuseOn(A);
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredNotReported, 1u);
  EXPECT_EQ(E->stats().DeferredPending, 0u);
}

TEST_F(DeferredFreeTest, NoFindingWhenAnEventSyncCoversTheConsumerBeforeTheNextAllocation) {
  releaseWhileBReads();
  E->hostSyncsEvent(0, EvConsumerDone);
  reuseOn(A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, NoFindingAndCountedWhenNoAllocationFollowsTheRelease) {
  releaseWhileBReads();
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredNotReported, 1u);
  EXPECT_EQ(E->stats().DeferredPending, 1u);
}

TEST_F(DeferredFreeTest, AnAllocationOnAnotherStreamCannotReuseACachingBlock) {
  releaseWhileBReads();
  reuseOn(C); // C's pool is not A's
  reuseOn(B);
  EXPECT_EQ(total(), 0u);
  reuseOn(A); // A's is: the hazard was waiting for exactly this
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, AStreamOrderedAllocationOnTheReleaseStreamIsNotACachingReuse) {
  releaseWhileBReads();
  reuseOn(A, AllocKind::StreamOrdered); // cudaMallocAsync: the driver's pool
  EXPECT_EQ(total(), 0u);
  reuseOn(A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, AnAllocationCoveringTheReleasedBytesIsAReuseOnAnyStream) {
  // Not something one caching allocator does, but the bytes were handed out.
  releaseWhileBReads();
  alloc(Block, C);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->ReusedBy.Stream, C);
  launch(C, Block, ProducerKernel);
  ASSERT_EQ(count(FindingKind::ReuseRace), 1u);
  EXPECT_TRUE(Sink.first(FindingKind::ReuseRace)->AfterUnsafeFree);
}

TEST_F(DeferredFreeTest, AReuseRaceAfterAnOrderedReuseIsNotBlamedOnTheRelease) {
  // A waited on B before reusing: the release was fine. A new owner using the
  // block on C without waiting on A still races with B's old read, and the
  // report must not call the release unsafe.
  releaseWhileBReads();
  wait(A, EvConsumerDone);
  alloc(Block, A);
  launch(C, Block, OtherKernel);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 0u);
  ASSERT_GE(count(FindingKind::ReuseRace), 1u);
  for (const Finding &F : Sink.Findings)
    if (F.Kind == FindingKind::ReuseRace)
      EXPECT_FALSE(F.AfterUnsafeFree);
}

TEST_F(DeferredFreeTest, OneAllocationDecidesTheHazardsOfSeveralBlocksSeparately) {
  Range Other{Block.Begin + 0x100000, 512};
  alloc(Block, A);
  alloc(Other, A);
  launch(B, Block, ConsumerKernel);
  launch(B, Other, ConsumerKernel);
  freeOn(Block.Begin, A);
  freeOn(Other.Begin, A);
  reuseOn(A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 2u);
  EXPECT_EQ(Sink.Findings[0].Bytes.Size + Sink.Findings[1].Bytes.Size, Block.Size + Other.Size);
}

TEST_F(DeferredFreeTest, HostKnowledgeOfTheAllocatingThreadAloneKeepsTheHazardPending) {
  // Per-thread knowledge: thread 1 synchronized with B, so its allocation on A
  // is safe; thread 2 did not, and its allocation on A could get the block.
  EngineOptions O;
  O.Hosts = HostKnowledge::PerThread;
  useOptions(O);
  A = stream(0xa);
  B = stream(0xb);
  releaseWhileBReads();
  E->hostSyncsStream(/*T=*/1, B);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(total(), 0u);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, PendingHazardsBeyondTheCapAreDroppedAndCounted) {
  EngineOptions O;
  O.MaxPendingHazards = 1;
  useOptions(O);
  A = stream(0xa);
  B = stream(0xb);
  Range Other{Block.Begin + 0x100000, 512};
  alloc(Block, A);
  alloc(Other, A);
  launch(B, Block, ConsumerKernel);
  launch(B, Other, OtherKernel);
  freeOn(Block.Begin, A);
  freeOn(Other.Begin, A);
  EXPECT_EQ(E->stats().DroppedRecords, 1u);
  reuseOn(A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u); // the newest one was kept
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Op, OtherKernel);
}

// --- stream-ordered pools: any stream of the device may get the block ------------

TEST_F(DeferredFreeTest, StreamOrderedFreeReportedAtAnUnorderedThirdStreamsAllocation) {
  releaseWhileBReads(AllocKind::StreamOrdered, ReleaseKind::StreamOrdered);
  wait(A, EvConsumerDone);
  reuseOn(A, AllocKind::StreamOrdered); // A is ordered after B's read now
  EXPECT_EQ(total(), 0u);
  reuseOn(C, AllocKind::StreamOrdered); // the pool may hand the block to C
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  const Finding &F = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.Released.Stream, A);
  EXPECT_EQ(F.ReusedBy.Stream, C);
}

TEST_F(DeferredFreeTest, StreamOrderedFreeNotReportedWhenEveryAllocationIsOrderedAfterTheRead) {
  releaseWhileBReads(AllocKind::StreamOrdered, ReleaseKind::StreamOrdered);
  wait(A, EvConsumerDone);
  wait(C, EvConsumerDone);
  reuseOn(A, AllocKind::StreamOrdered);
  reuseOn(C, AllocKind::StreamOrdered);
  reuseOn(B, AllocKind::StreamOrdered); // B's own later work follows its read
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredPending, 1u); // C2, a stream not yet seen, could still race
}

TEST_F(DeferredFreeTest, StreamOrderedHazardDroppedOnceEveryHostKnowsTheReadCompleted) {
  releaseWhileBReads(AllocKind::StreamOrdered, ReleaseKind::StreamOrdered);
  E->hostSyncsEvent(0, EvConsumerDone);
  reuseOn(C, AllocKind::StreamOrdered);
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredNotReported, 1u);
  EXPECT_EQ(E->stats().DeferredPending, 0u);
}

TEST_F(DeferredFreeTest, StreamOrderedFreeNotReusedByAnotherDevicesPool) {
  StreamId Peer = stream(0xd, StreamFlavor::NonBlocking, /*Device=*/1);
  releaseWhileBReads(AllocKind::StreamOrdered, ReleaseKind::StreamOrdered);
  reuseOn(Peer, AllocKind::StreamOrdered);
  reuseOn(C); // a caching allocation: not the driver's pool
  EXPECT_EQ(total(), 0u);
  reuseOn(C, AllocKind::StreamOrdered);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

// --- cudaFree synchronizes: decided at the release ------------------------------

TEST_F(DeferredFreeTest, SyncFreeIsDecidedAtTheReleaseWithoutAnyAllocation) {
  StreamId Peer = stream(0xd, StreamFlavor::NonBlocking, /*Device=*/1);
  alloc(Block, NoStream, AllocKind::Device);
  launch(Peer, Block, ConsumerKernel);
  freeOn(Block.Begin, NoStream, ReleaseKind::SyncFree);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->ReusedBy.Stream, NoStream);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->ReusedBy.Op, NoOp);
  EXPECT_EQ(E->stats().DeferredNotReported, 0u);
}

} // namespace
