//===- DeferredFreeTest.cpp - UnsafeFree decided at the reuse opportunity -===//
//
// An access left unordered by a caching allocator's release is reported only
// when an allocation that could be handed the bytes comes while the access is
// still unordered: an allocation of the same pool on the release stream that
// does not happen before the release, whichever thread makes it and whenever
// it arrives (engine/DeferredFrees.cpp). Stream-ordered and synchronous frees
// are decided at the release. Each case pairs the program that must stay
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
  void releaseWhileBReadsThenSync() {
    alloc(Block, A, AllocKind::StreamOrdered);
    record(0xe0, A);
    wait(B, 0xe0);
    launch(B, Block, ConsumerKernel);
    E->hostSyncsStream(0, B);
    freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
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
  // Thread 1 synchronized with B, so its allocation on A is safe; thread 2
  // did not, and its allocation on A could get the block.
  releaseWhileBReads();
  E->hostSyncsStream(/*T=*/1, B);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(total(), 0u);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, AllocationsOfAnotherPoolOnTheReleaseStreamCannotReuseTheBlock) {
  // CuPy's pool and PyTorch's on one stream: each hands out only its own blocks.
  E->allocated(0, Block, AllocKind::CachingAllocator, A, AllocSite, 0, /*Pool=*/1);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, A);
  E->allocated(0, Range{NextFresh, 256}, AllocKind::CachingAllocator, A, ReuseSite, 0, /*Pool=*/2);
  EXPECT_EQ(total(), 0u);
  E->allocated(0, Range{NextFresh + 0x1000, 256}, AllocKind::CachingAllocator, A, ReuseSite, 0,
               /*Pool=*/1);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, ACachingReleaseGoesBackToTheAllocationStreamWhateverItNames) {
  // The allocator may name no stream, or a handle that died since (CuPy frees
  // blocks after their stream was destroyed): the block is A's.
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, NoStream);
  reuseOn(A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Released.Stream, A);
}

TEST_F(DeferredFreeTest, ACachingReleaseAfterItsStreamWasDestroyedCannotBeReused) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  E->streamDestroyed(0, A);
  freeOn(Block.Begin, A);
  StreamId Later = stream(0xa); // a new stream with the old handle
  reuseOn(Later);
  EXPECT_EQ(total(), 0u);
}

// --- another thread's allocation on the release stream -------------------------
//
// Thread 1 releases (a worker thread dropping the last reference); thread 2
// allocates on the block's stream. Whether thread 2's call arrives before or
// after the release must not change the verdict; only the threads' own order
// (hostReleases/hostAcquires: a mutex, a queue, thread start and join) does.

TEST_F(DeferredFreeTest, AnotherThreadsAllocationThatArrivedBeforeTheReleaseIsAReuseOpportunity) {
  alloc(Block, A); // thread 0 allocates and hands the block over
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2); // arrives first, unordered with the release
  EXPECT_EQ(total(), 0u);
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  const Finding &F = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.ReusedBy.Stream, A);
  EXPECT_EQ(F.ReusedBy.Op, ReuseSite);
  EXPECT_TRUE(F.ReusedConcurrently);
}

TEST_F(DeferredFreeTest, AnotherThreadsAllocationThatArrivesAfterTheReleaseIsAReuseOpportunity) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  E->launched(/*T=*/2, A, {Range{0x1000, 8}}, OtherKernel); // thread 2 exists, uses A
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(total(), 0u);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_FALSE(Sink.first(FindingKind::UnsafeFree)->ReusedConcurrently);
}

TEST_F(DeferredFreeTest, AnAllocationThatHappensBeforeTheReleaseCannotReuseTheBlock) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  E->hostReleases(/*T=*/2, 0x51);  // e.g. thread 2 is joined, or hands over a queue item
  E->hostAcquires(/*T=*/1, 0x51);
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(total(), 0u);
  EXPECT_EQ(E->stats().DeferredPending, 1u);
}

TEST_F(DeferredFreeTest, AnAllocationAfterTheUnlockThatTheReleaserAcquiredStillRaces) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  E->hostReleases(/*T=*/2, 0x51);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2); // after its unlock: not ordered
  E->hostAcquires(/*T=*/1, 0x51);
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, AConcurrentAllocationIsJudgedWithWhatItsThreadKnewThen) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  record(EvConsumerDone, B, /*T=*/1);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  E->hostSyncsEvent(/*T=*/2, EvConsumerDone); // too late for the allocation above
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
}

TEST_F(DeferredFreeTest, AConcurrentAllocationIsSafeWhenItsThreadHadSynchronizedWithTheReader) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  record(EvConsumerDone, B, /*T=*/1);
  E->hostSyncsEvent(/*T=*/2, EvConsumerDone);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, AConcurrentAllocationIsSafeWhenTheReleaseStreamWaitedBeforeTheRelease) {
  // The worker makes A wait on its read before it drops the block: whenever
  // thread 2's allocation lands, its new owner's work on A comes after the wait.
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  record(EvConsumerDone, B, /*T=*/1);
  wait(A, EvConsumerDone, /*T=*/1);
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, TheReleasingThreadsOwnEarlierAllocationsAreNotConcurrent) {
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  E->launched(/*T=*/2, A, {Range{0x1000, 8}}, OtherKernel); // a second thread exists
  E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
  reuseOn(A, AllocKind::CachingAllocator, /*T=*/1);
  freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, TheVerdictIsTheSameWhicheverThreadArrivesFirst) {
  // The two arrival orders of one program: same findings.
  for (bool AllocFirst : {true, false}) {
    SCOPED_TRACE(AllocFirst ? "allocation first" : "release first");
    Sink.Findings.clear();
    useOptions(EngineOptions());
    A = stream(0xa);
    B = stream(0xb);
    alloc(Block, A);
    record(0xe0, A);
    wait(B, 0xe0);
    E->launched(/*T=*/1, B, {Block}, ConsumerKernel);
    E->launched(/*T=*/2, A, {Range{0x1000, 8}}, OtherKernel);
    if (AllocFirst)
      reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
    freeOn(Block.Begin, A, ReleaseKind::CachingAllocator, /*T=*/1);
    if (!AllocFirst)
      reuseOn(A, AllocKind::CachingAllocator, /*T=*/2);
    EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  }
}

// --- deferred releases: listed, or findings with WaitBeforeFree -----------------

TEST_F(DeferredFreeTest, DeferredReleasesAreListedOncePerReleaseAndAccessSite) {
  StreamId Default = legacy();
  StreamId RS = stream(0x55, StreamFlavor::NonBlocking);
  for (int Step = 0; Step < 3; ++Step) {
    record(0x700, Default);
    wait(RS, 0x700);
    alloc(Block, RS);
    launch(RS, Block, ProducerKernel);
    record(0x701, RS);
    wait(Default, 0x701);
    launch(Default, Block, ConsumerKernel);
    freeOn(Block.Begin, RS);
  }
  std::vector<Engine::DeferredRelease> D = E->deferredReleases();
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Release.Stream, RS);
  EXPECT_EQ(D[0].Release.Op, FreeSite);
  EXPECT_EQ(D[0].Access.Stream, Default);
  EXPECT_EQ(D[0].Access.Op, ConsumerKernel);
  EXPECT_EQ(D[0].Count, 3u);
  EXPECT_EQ(D[0].StillUnordered, 1u);
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, WaitBeforeFreeReportsACachingReleaseAtTheRelease) {
  EngineOptions O;
  O.WaitBeforeFree = true;
  useOptions(O);
  A = stream(0xa);
  B = stream(0xb);
  releaseWhileBReads();
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->ReusedBy.Stream, NoStream);
  wait(A, EvConsumerDone);
  reuseOn(A);
  EXPECT_EQ(total(), 1u);
  EXPECT_TRUE(E->deferredReleases().empty());
}

TEST_F(DeferredFreeTest, WaitBeforeFreeStillAcceptsAWaitBeforeTheRelease) {
  EngineOptions O;
  O.WaitBeforeFree = true;
  useOptions(O);
  A = stream(0xa);
  B = stream(0xb);
  alloc(Block, A);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  record(EvConsumerDone, B);
  wait(A, EvConsumerDone);
  freeOn(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
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

// --- stream-ordered frees: decided at the release (CUDA's contract) ---------------

TEST_F(DeferredFreeTest, StreamOrderedFreeBeforeTheWaitIsReportedAtTheRelease) {
  // No later allocation needed: the pool may hand the bytes out at the free.
  releaseWhileBReads(AllocKind::StreamOrdered, ReleaseKind::StreamOrdered);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  const Finding &F = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.Released.Stream, A);
  EXPECT_EQ(F.Released.Op, FreeSite);
  EXPECT_EQ(F.ReusedBy.Stream, NoStream);
  wait(A, EvConsumerDone); // too late
  reuseOn(A, AllocKind::StreamOrdered);
  EXPECT_EQ(total(), 1u);
  EXPECT_EQ(E->stats().DeferredNotReported, 0u);
}

TEST_F(DeferredFreeTest, StreamOrderedFreeAfterTheWaitIsClean) {
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  record(EvConsumerDone, B);
  wait(A, EvConsumerDone);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  reuseOn(C, AllocKind::StreamOrdered);
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, StreamOrderedFreeOnTheConsumerStreamIsClean) {
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, B, ReleaseKind::StreamOrdered); // freed in B's order
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, StreamOrderedFreeAfterAHostSyncOfTheReaderIsClean) {
  releaseWhileBReadsThenSync();
  EXPECT_EQ(total(), 0u);
}

TEST_F(DeferredFreeTest, StreamOrderedFreeByAnotherThreadThanTheSyncIsReported) {
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe0, A);
  wait(B, 0xe0);
  launch(B, Block, ConsumerKernel);
  E->hostSyncsStream(/*T=*/1, B);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered, /*T=*/2);
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
