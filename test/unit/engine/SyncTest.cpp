//===- SyncTest.cpp - which calls order a consumer before a release -------===//
//
// Every test is the same small program with one synchronization pattern in the
// middle: a block allocated on stream A, read by a kernel on stream B, then
// released on A and followed at once by A's next allocation (the reuse
// opportunity where UnsafeFree is decided, DeferredFreeTest.cpp). The release
// is safe exactly when the pattern orders B's read before it, so UnsafeFree (or
// its absence) pins the ordering semantics.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

constexpr Handle EvConsumerDone = 0xe1;
constexpr Handle EvOther = 0xe2;

class SyncTest : public EngineTest {
protected:
  /// Allocation on A, consumer read on B; the test supplies what comes next.
  void consumerReads() {
    alloc(Block, A);
    launch(A, Block, ProducerKernel);
    record(EvOther, A);
    wait(B, EvOther);
    launch(B, Block, ConsumerKernel);
  }
  StreamId A = stream(0xa);
  StreamId B = stream(0xb);
};

TEST_F(SyncTest, UnsafeFreeWhenNothingOrdersTheConsumer) {
  consumerReads();
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  const Finding &F = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.Unordered.Op, ConsumerKernel);
  EXPECT_EQ(F.Released.Stream, A);
  EXPECT_EQ(F.Released.Op, FreeSite);
  EXPECT_EQ(F.Allocated.Stream, A);
  EXPECT_EQ(F.Allocated.Op, AllocSite);
  EXPECT_EQ(F.Bytes.Begin, Block.Begin);
  EXPECT_EQ(F.Bytes.Size, Block.Size);
  EXPECT_EQ(F.Alloc, AllocKind::CachingAllocator);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenAllocationStreamWaitsBeforeFree) {
  consumerReads();
  record(EvConsumerDone, B);
  wait(A, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheWaitComesAfterTheFreeAndTheNextAllocation) {
  consumerReads();
  record(EvConsumerDone, B);
  freeAndReuse(Block.Begin, A);
  wait(A, EvConsumerDone); // late: A's pool could already hand the block out
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  // The late wait still orders A's next use of the block: no reuse race.
  alloc(Block, A);
  launch(A, Block, ProducerKernel);
  EXPECT_EQ(count(FindingKind::ReuseRace), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheWaitIsOnTheWrongStream) {
  StreamId C = stream(0xc);
  consumerReads();
  record(EvConsumerDone, B);
  wait(C, EvConsumerDone); // C is not the allocation stream
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheEventWasRecordedBeforeTheLastUse) {
  consumerReads();
  record(EvConsumerDone, B);          // stale: before the second read
  launch(B, Block, OtherKernel);      // last use
  wait(A, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Op, OtherKernel);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenTheEventIsRecordedAgainAfterTheLastUse) {
  consumerReads();
  record(EvConsumerDone, B);
  launch(B, Block, OtherKernel);
  record(EvConsumerDone, B); // a record overwrites the previous snapshot
  wait(A, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenOnlyOneOfTwoConsumersIsWaitedFor) {
  StreamId C = stream(0xc);
  consumerReads();
  wait(C, EvOther);
  launch(C, Block, OtherKernel);
  record(EvConsumerDone, B);
  wait(A, EvConsumerDone); // C's read is not waited for
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Stream, C);
}

TEST_F(SyncTest, UnsafeFreeReportedOncePerUnorderedConsumer) {
  StreamId C = stream(0xc);
  consumerReads();
  wait(C, EvOther);
  launch(C, Block, OtherKernel);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenWaitingOnANeverRecordedEventIsANoOp) {
  consumerReads();
  wait(A, 0xdead); // never recorded: completes at once, orders nothing
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheEventWasDestroyedBeforeTheWait) {
  consumerReads();
  record(EvConsumerDone, B);
  E->eventDestroyed(0, EvConsumerDone);
  wait(A, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedAfterHostStreamSync) {
  consumerReads();
  E->hostSyncsStream(0, B);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheHostSyncedTheWrongStream) {
  consumerReads();
  E->hostSyncsStream(0, A);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedAfterHostEventSyncOrSuccessfulQuery) {
  consumerReads();
  record(EvConsumerDone, B);
  // cudaEventQuery == cudaSuccess is reported the same way as a sync.
  E->hostSyncsEvent(0, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheQueriedEventPrecedesTheLastUse) {
  consumerReads();
  record(EvConsumerDone, B);
  launch(B, Block, OtherKernel);
  E->hostSyncsEvent(0, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedAfterDeviceSync) {
  consumerReads();
  E->hostSyncsDevice(0, 0);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenOnlyAnotherDeviceWasSynced) {
  StreamId B1 = stream(0xb, StreamFlavor::NonBlocking, /*Device=*/1);
  alloc(Block, A);
  launch(B1, Block, ConsumerKernel); // peer access from device 1
  E->hostSyncsDevice(0, 0);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Stream, B1);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenTheOtherDeviceIsSynced) {
  StreamId B1 = stream(0xb, StreamFlavor::NonBlocking, /*Device=*/1);
  alloc(Block, A);
  launch(B1, Block, ConsumerKernel);
  E->hostSyncsDevice(0, 1);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedForTheSameHandleOnTwoDevicesBeingTwoStreams) {
  StreamId A1 = stream(0xa, StreamFlavor::NonBlocking, /*Device=*/1);
  EXPECT_NE(A, A1);
  EXPECT_EQ(E->streamInfo(A1).Desc.Device, 1);
  EXPECT_EQ(stream(0xa), A);
}

TEST_F(SyncTest, UnsafeFreeWhenTheSyncedStreamIsNewAfterItsHandleWasReused) {
  alloc(Block, A);
  launch(B, Block, ConsumerKernel);
  E->streamDestroyed(0, B);
  EXPECT_TRUE(E->streamInfo(B).Destroyed);
  StreamId Reused = stream(0xb); // CUDA handed the same handle out again
  EXPECT_NE(Reused, B);
  E->hostSyncsStream(0, Reused); // says nothing about the old stream's work
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedForTheReleaseStreamsOwnAccesses) {
  alloc(Block, A);
  launch(A, Block, ProducerKernel);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenOrderedThroughAChainOfEvents) {
  StreamId C = stream(0xc);
  consumerReads();
  record(EvConsumerDone, B);
  wait(C, EvConsumerDone);
  launch(C, Range{0x1000, 8}, OtherKernel); // untracked range: ignored
  record(EvOther, C);
  wait(A, EvOther); // A after C after B
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeReportsTheLastOpOfTheUnorderedStream) {
  consumerReads();
  launch(B, Block, OtherKernel);
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Op, OtherKernel);
}

// --- legacy default stream, per-thread default stream, non-blocking ----------

TEST_F(SyncTest, UnsafeFreeNotReportedWhenALegacyStreamUseIsFollowedByABlockingRelease) {
  StreamId L = legacy();
  StreamId Bl = stream(0xbb, StreamFlavor::Blocking);
  alloc(Block, Bl, AllocKind::StreamOrdered);
  launch(L, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, Bl, ReleaseKind::StreamOrdered); // Bl's free waits for L
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedForACachingReleaseOnABlockingStreamAfterLegacyUse) {
  // The block goes back to Bl's pool without an enqueue, but Bl's next work
  // (the only work that can reuse it) waits for the legacy stream.
  StreamId L = legacy();
  StreamId Bl = stream(0xbb, StreamFlavor::Blocking);
  alloc(Block, Bl);
  launch(L, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, Bl);
  alloc(Block, Bl);
  launch(Bl, Block, ProducerKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenALegacyStreamUseIsFollowedByANonBlockingRelease) {
  StreamId L = legacy();
  alloc(Block, A);
  launch(L, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, A, ReleaseKind::StreamOrdered);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenTheLegacyStreamReleasesAfterABlockingUse) {
  StreamId L = legacy();
  StreamId Bl = stream(0xbb, StreamFlavor::Blocking);
  alloc(Block, L, AllocKind::StreamOrdered);
  record(EvOther, L);
  wait(Bl, EvOther);
  launch(Bl, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, L, ReleaseKind::StreamOrdered); // L's free waits for Bl
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheLegacyStreamReleasesAfterANonBlockingUse) {
  StreamId L = legacy();
  alloc(Block, L, AllocKind::StreamOrdered);
  record(EvOther, L);
  wait(B, EvOther);
  launch(B, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, L, ReleaseKind::StreamOrdered);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenAnEventOnTheLegacyStreamFollowsBlockingWork) {
  // An event recorded on the legacy stream captures prior blocking-stream work.
  StreamId L = legacy();
  StreamId Bl = stream(0xbb, StreamFlavor::Blocking);
  alloc(Block, A);
  launch(Bl, Block, ConsumerKernel);
  record(EvConsumerDone, L);
  wait(A, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenAnEventOnTheLegacyStreamFollowsNonBlockingWork) {
  StreamId L = legacy();
  alloc(Block, A);
  launch(B, Block, ConsumerKernel);
  record(EvConsumerDone, L);
  wait(A, EvConsumerDone);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeBetweenTwoBlockingStreamsWithoutLegacyWork) {
  legacy();
  StreamId B1 = stream(0xb1, StreamFlavor::Blocking);
  StreamId B2 = stream(0xb2, StreamFlavor::Blocking);
  alloc(Block, B1);
  launch(B2, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, B1);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenLegacyWorkSitsBetweenTwoBlockingStreams) {
  StreamId L = legacy();
  StreamId B1 = stream(0xb1, StreamFlavor::Blocking);
  StreamId B2 = stream(0xb2, StreamFlavor::Blocking);
  alloc(Block, B1, AllocKind::StreamOrdered);
  record(EvOther, B1);
  wait(B2, EvOther);
  launch(B2, Block, ConsumerKernel);
  launch(L, Range{0x1000, 8}, OtherKernel); // waits for B2; B1's next work waits for it
  freeAndReuse(Block.Begin, B1, ReleaseKind::StreamOrdered);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedForThePerThreadDefaultStreamAgainstLegacy) {
  StreamId L = legacy();
  StreamId Ptds = stream(0x2, StreamFlavor::PerThreadDefault);
  alloc(Block, Ptds, AllocKind::StreamOrdered);
  launch(L, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, Ptds, ReleaseKind::StreamOrdered);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheLegacyStreamIsOnAnotherDevice) {
  StreamId L1 = legacy(/*Device=*/1);
  StreamId Bl = stream(0xbb, StreamFlavor::Blocking, /*Device=*/0);
  alloc(Block, Bl, AllocKind::StreamOrdered);
  launch(L1, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, Bl, ReleaseKind::StreamOrdered);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeRegardlessOfStreamPriorities) {
  StreamDesc High;
  High.StreamHandle = 0x77;
  High.Flavor = StreamFlavor::NonBlocking;
  High.Priority = -5;
  StreamId Hi = E->stream(0, High);
  EXPECT_EQ(E->streamInfo(Hi).Desc.Priority, -5);
  alloc(Block, A);
  launch(Hi, Block, ConsumerKernel);
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

// --- host knowledge flows into later work ---------------------------------------

TEST_F(SyncTest, UseBeforeAllocNotReportedWhenTheHostSyncedTheAllocationStreamFirst) {
  alloc(Block, A, AllocKind::StreamOrdered);
  E->hostSyncsStream(0, A);
  launch(B, Block, ConsumerKernel); // enqueued after the sync: inherits it
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenTheReleaseStreamInheritedASyncThroughLaterWork) {
  // Only the work thread 1 enqueues on A carries its sync to the release by
  // thread 2 (the threads themselves are not ordered).
  consumerReads();
  E->hostSyncsStream(/*T=*/1, B);
  E->launched(/*T=*/1, A, {Range{0x1000, 8}}, OtherKernel);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenAnEventRecordedAfterAHostSyncCarriesItToAnotherThread) {
  // The event is recorded on a third stream after thread 1 learned that B's
  // read completed: a stream that waits on it (A, by thread 2) is ordered
  // after that read, because the recording host's knowledge is part of what
  // the event stands for.
  consumerReads();
  StreamId C = stream(0xc);
  E->hostSyncsStream(/*T=*/1, B);
  record(EvConsumerDone, C, /*T=*/1);
  wait(A, EvConsumerDone, /*T=*/2);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheEventWasRecordedBeforeTheHostSync) {
  // The same calls with the record before the sync: the event stands for
  // nothing of B's, and the threads themselves are not ordered.
  consumerReads();
  StreamId C = stream(0xc);
  record(EvConsumerDone, C, /*T=*/1);
  E->hostSyncsStream(/*T=*/1, B);
  wait(A, EvConsumerDone, /*T=*/2);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

// --- host threads: knowledge moves only along the threads' own order ------------

TEST_F(SyncTest, UnsafeFreeWhenAnotherThreadSyncedButNothingOrdersTheThreads) {
  // The main thread synchronizes, the autograd thread frees: whichever call
  // arrives first, thread 2 does not know what thread 1 learned.
  consumerReads();
  E->hostSyncsStream(/*T=*/1, B);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(E->stats().HostClocks, 3u); // threads 0 (the program so far), 1 and 2
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenTheSyncingThreadReleasedAMutexTheFreeingThreadAcquired) {
  consumerReads();
  E->hostSyncsStream(/*T=*/1, B);
  E->hostReleases(/*T=*/1, /*Sync=*/0x600d); // unlock
  E->hostAcquires(/*T=*/2, 0x600d);          // lock
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheMutexWasReleasedBeforeTheSync) {
  consumerReads();
  E->hostReleases(/*T=*/1, 0x600d);
  E->hostSyncsStream(/*T=*/1, B); // after the unlock: not passed on
  E->hostAcquires(/*T=*/2, 0x600d);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeWhenTheFreeingThreadAcquiredAnotherObject) {
  consumerReads();
  E->hostSyncsStream(/*T=*/1, B);
  E->hostReleases(/*T=*/1, 0x600d);
  E->hostAcquires(/*T=*/2, 0xbad); // never released: orders nothing
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, KnowledgePassesThroughAChainOfThreads) {
  consumerReads();
  E->hostSyncsStream(/*T=*/1, B);
  E->hostReleases(/*T=*/1, 0x1);
  E->hostAcquires(/*T=*/3, 0x1); // thread 3 uses no CUDA itself
  E->hostReleases(/*T=*/3, 0x2);
  E->hostAcquires(/*T=*/2, 0x2);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, ADestroyedSyncObjectOrdersNothing) {
  consumerReads();
  E->hostSyncsStream(/*T=*/1, B);
  E->hostReleases(/*T=*/1, 0x600d);
  E->syncDestroyed(0x600d); // e.g. the join consumed the thread's end
  E->hostAcquires(/*T=*/2, 0x600d);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenTheSameThreadSynced) {
  consumerReads();
  E->hostSyncsStream(/*T=*/2, B);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, UnsafeFreeNotReportedWhenAThreadSeenLaterInheritsCommonKnowledge) {
  consumerReads();
  E->hostSyncsStream(/*T=*/0, B); // the only CUDA thread so far: everyone knows
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/5);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, AThreadThatOnlyTakesLocksDoesNotHoldTheCommonKnowledgeBack) {
  consumerReads();
  E->hostReleases(/*T=*/7, 0x77); // a lock-only thread, never synchronizes
  E->hostSyncsStream(/*T=*/0, B);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/5);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SyncTest, AThreadSeenLaterDoesNotInheritWhatACudaThreadDoesNotKnow) {
  E->launched(/*T=*/1, A, {Range{0x1000, 8}}, OtherKernel); // thread 1 uses CUDA
  consumerReads();
  E->hostSyncsStream(/*T=*/0, B);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/5);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u); // thread 1 did not know
}

TEST_F(SyncTest, AFinishedThreadNoLongerHoldsTheCommonKnowledgeBack) {
  E->launched(/*T=*/1, A, {Range{0x1000, 8}}, OtherKernel);
  consumerReads();
  E->hostSyncsStream(/*T=*/0, B);
  E->hostFinished(1);
  freeAndReuse(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/5);
  EXPECT_EQ(total(), 0u);
}

} // namespace
