//===- LifetimeRulesTest.cpp - the four rules on whole programs -----------===//
//
// The seed's pipelines (a producer stream "all-gathers" a layer's parameters
// into a block, the compute stream runs the layer's forward on it) and the
// stream-ordered allocation cases, each with the outcome its rule demands.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include <deque>
#include <utility>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

enum : OpId { AllGatherKernel = 50, ForwardKernel };

class PipelineTest : public EngineTest {
protected:
  // PyTorch: the default stream is the legacy stream; side streams are
  // created non-blocking.
  StreamId Compute = legacy();
  StreamId Gather = stream(0xa6, StreamFlavor::NonBlocking);
  Handle NextEvent = 0x1000;
  static constexpr int Layers = 4;

  Range blockAt(unsigned Index) const {
    return Range{Block.Begin + Index * 0x100000, Block.Size};
  }
  /// all_gather(): allocate on the gather stream and fill.
  Range allGather(unsigned BlockIndex) {
    Range R = blockAt(BlockIndex);
    alloc(R, Gather);
    launch(Gather, R, AllGatherKernel);
    return R;
  }
  /// default.wait_stream(ag_stream)
  void computeWaitsGather() {
    Handle Ev = NextEvent++;
    record(Ev, Gather);
    wait(Compute, Ev);
  }
  /// forward() followed by default.record_event()
  Handle forward(Range Params) {
    launch(Compute, Params, ForwardKernel);
    Handle Done = NextEvent++;
    record(Done, Compute);
    return Done;
  }
  void del(Range R) { freeOn(R.Begin, Gather); }
};

TEST_F(PipelineTest, UnsafeFreeAndReuseRaceInTheBuggyPipeline) {
  Range Prev = allGather(0);
  for (int Layer = 2; Layer <= Layers; ++Layer) {
    computeWaitsGather();
    forward(Prev);
    del(Prev);            // forward still reads it
    Prev = allGather(0);  // the allocator hands the same block back on Gather
  }
  computeWaitsGather();
  forward(Prev);
  del(Prev); // the last release: no allocation on Gather follows before the sync
  E->hostSyncsDevice(0, 0);

  // Each release followed by the next all_gather's allocation is reported; the
  // last one can no longer be reused while forward reads it: counted only.
  EXPECT_EQ(count(FindingKind::UnsafeFree), static_cast<std::size_t>(Layers - 1));
  EXPECT_EQ(count(FindingKind::ReuseRace), static_cast<std::size_t>(Layers - 1));
  EXPECT_EQ(E->stats().DeferredNotReported, 1u);
  EXPECT_EQ(E->stats().DeferredPending, 0u); // the device sync ordered it
  EXPECT_EQ(count(FindingKind::UseAfterFree), 0u);
  EXPECT_EQ(count(FindingKind::UseBeforeAlloc), 0u);

  const Finding &Free = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(Free.Unordered.Stream, Compute);
  EXPECT_EQ(Free.Unordered.Op, ForwardKernel);
  EXPECT_EQ(Free.Released.Stream, Gather);
  EXPECT_EQ(Free.Released.Op, FreeSite);
  EXPECT_EQ(Free.Allocated.Stream, Gather);
  EXPECT_EQ(Free.ReusedBy.Stream, Gather); // the next all_gather's allocation
  EXPECT_EQ(Free.ReusedBy.Op, AllocSite);

  const Finding &Race = *Sink.first(FindingKind::ReuseRace);
  EXPECT_TRUE(Race.AfterUnsafeFree);
  EXPECT_EQ(Race.Unordered.Stream, Compute);
  EXPECT_EQ(Race.Unordered.Op, ForwardKernel);
  EXPECT_EQ(Race.Released.Stream, Gather);
  EXPECT_EQ(Race.Released.Op, FreeSite);
  EXPECT_EQ(Race.NewAccess.Stream, Gather);
  EXPECT_EQ(Race.NewAccess.Op, AllGatherKernel);
  EXPECT_EQ(Race.Bytes.Begin, Block.Begin);
  EXPECT_EQ(Race.Bytes.Size, Block.Size);
  EXPECT_EQ(Race.Reallocated.Stream, Gather);
}

TEST_F(PipelineTest, NoFindingsInTheStallPipeline) {
  Range Prev = allGather(0);
  for (int Layer = 2; Layer <= Layers; ++Layer) {
    computeWaitsGather();
    Handle Done = forward(Prev);
    wait(Gather, Done); // stall: the producer waits before the block is reused
    del(Prev);
    Prev = allGather(0);
  }
  computeWaitsGather();
  wait(Gather, forward(Prev));
  del(Prev);
  E->hostSyncsDevice(0, 0);
  EXPECT_EQ(total(), 0u);
}

TEST_F(PipelineTest, NoFindingsInTheKeepalivePipeline) {
  Range Keepalive{};
  Handle KeepaliveEvent = 0;
  bool Held = false;
  Range Prev = allGather(0);
  unsigned NextBlock = 1;
  for (int Layer = 2; Layer <= Layers; ++Layer) {
    unsigned Free = 0;
    if (Held) {
      wait(Gather, KeepaliveEvent); // 1. order the gather stream after forward
      del(Keepalive);               // 2. only then release the block
      Free = static_cast<unsigned>((Keepalive.Begin - Block.Begin) / 0x100000);
    }
    computeWaitsGather();
    Handle Done = forward(Prev);
    Keepalive = Prev;
    KeepaliveEvent = Done;
    Held = true;
    // A different block: the keepalive still holds the previous one.
    Prev = allGather(Layer == 2 ? NextBlock++ : Free);
  }
  wait(Gather, KeepaliveEvent);
  del(Keepalive);
  computeWaitsGather();
  wait(Gather, forward(Prev));
  del(Prev);
  E->hostSyncsDevice(0, 0);
  EXPECT_EQ(total(), 0u);
}

TEST_F(PipelineTest, NoFindingsInAnNDeepQueuePipeline) {
  constexpr unsigned Depth = 3;
  std::deque<std::pair<Range, Handle>> InFlight;
  std::vector<unsigned> FreeBlocks;
  unsigned Fresh = 0;
  auto nextBlock = [&] {
    if (!FreeBlocks.empty()) {
      unsigned B = FreeBlocks.back();
      FreeBlocks.pop_back();
      return B;
    }
    return Fresh++;
  };
  Range Prev = allGather(nextBlock());
  for (int Layer = 2; Layer <= 20; ++Layer) {
    if (InFlight.size() == Depth) {
      auto [Old, Done] = InFlight.front();
      InFlight.pop_front();
      wait(Gather, Done);
      del(Old);
      FreeBlocks.push_back(static_cast<unsigned>((Old.Begin - Block.Begin) / 0x100000));
    }
    computeWaitsGather();
    InFlight.emplace_back(Prev, forward(Prev));
    Prev = allGather(nextBlock());
  }
  EXPECT_LE(Fresh, Depth + 1); // blocks really were reused
  while (!InFlight.empty()) {
    wait(Gather, InFlight.front().second);
    del(InFlight.front().first);
    InFlight.pop_front();
  }
  computeWaitsGather();
  wait(Gather, forward(Prev));
  del(Prev);
  EXPECT_EQ(total(), 0u);
}

TEST_F(PipelineTest, NoFindingsWithRecordStreamAndTheAllocatorsEventQuery) {
  // record_stream: at free the allocator records an event on the recorded
  // stream and returns the block only once a query of that event succeeded.
  Range Prev = allGather(0);
  for (int Layer = 2; Layer <= Layers; ++Layer) {
    computeWaitsGather();
    forward(Prev);
    Handle AllocatorEvent = NextEvent++;
    record(AllocatorEvent, Compute);      // inside free(): insert_events
    E->hostSyncsEvent(0, AllocatorEvent); // process_events: cudaEventQuery == success
    del(Prev);                            // FREE_COMPLETED
    Prev = allGather(0);
  }
  EXPECT_EQ(total(), 0u);
}

TEST_F(PipelineTest, ReuseRaceReportedOncePerLifetimeForARepeatedAccess) {
  Range Prev = allGather(0);
  computeWaitsGather();
  forward(Prev);
  del(Prev);
  Prev = allGather(0);
  launch(Gather, Prev, AllGatherKernel); // same op again in the same lifetime
  launch(Gather, Prev, AllGatherKernel);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(count(FindingKind::ReuseRace), 1u);
  launch(Gather, Prev, OtherKernel); // another op: another finding
  EXPECT_EQ(count(FindingKind::ReuseRace), 2u);
}

// --- reuse race without an unsafe free: the FBGEMM shape, caching allocator ------

class ReuseTest : public EngineTest {
protected:
  StreamId A = stream(0xa);
  StreamId B = stream(0xb);
};

TEST_F(ReuseTest, ReuseRaceWhenANewBlockIsFirstUsedOnAStreamThatNeverWaitedOnItsAllocationStream) {
  alloc(Block, A);
  launch(A, Block, ProducerKernel);
  freeOn(Block.Begin, A); // safe: only A used it
  EXPECT_EQ(total(), 0u);
  alloc(Block, A);                  // same block, next tensor on A
  launch(B, Block, ConsumerKernel); // B writes it without waiting on A
  ASSERT_EQ(count(FindingKind::ReuseRace), 1u);
  const Finding &F = *Sink.first(FindingKind::ReuseRace);
  EXPECT_FALSE(F.AfterUnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, A);
  EXPECT_EQ(F.Unordered.Op, ProducerKernel);
  EXPECT_EQ(F.NewAccess.Stream, B);
  EXPECT_EQ(F.NewAccess.Op, ConsumerKernel);
}

TEST_F(ReuseTest, ReuseRaceNotReportedWhenTheNewStreamWaitsOnTheAllocationStream) {
  alloc(Block, A);
  launch(A, Block, ProducerKernel);
  freeOn(Block.Begin, A);
  alloc(Block, A);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, ReuseRaceNotReportedForAFreshBlockWithoutAPreviousLifetime) {
  alloc(Block, A);
  launch(B, Block, ConsumerKernel); // nothing ran on these bytes before
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, ReuseRaceNotReportedOnceTheHostSynchronizedPastTheOldAccesses) {
  alloc(Block, A);
  launch(A, Block, ProducerKernel);
  freeOn(Block.Begin, A);
  E->hostSyncsStream(0, A);
  alloc(Block, A);
  launch(B, Block, ConsumerKernel);
  EXPECT_EQ(total(), 0u);
}

// --- use before alloc: stream-ordered allocations --------------------------

TEST_F(ReuseTest, UseBeforeAllocWhenAPoolAllocationOnAIsWrittenOnBWithoutAWait) {
  alloc(Block, A, AllocKind::StreamOrdered); // cudaMallocAsync(.., A)
  launch(B, Block, ConsumerKernel);           // merge_pooled_embeddings' write
  ASSERT_EQ(count(FindingKind::UseBeforeAlloc), 1u);
  const Finding &F = *Sink.first(FindingKind::UseBeforeAlloc);
  EXPECT_EQ(F.Allocated.Stream, A);
  EXPECT_EQ(F.Allocated.Op, AllocSite);
  EXPECT_EQ(F.NewAccess.Stream, B);
  EXPECT_EQ(F.Alloc, AllocKind::StreamOrdered);
  EXPECT_EQ(total(), 1u);
}

TEST_F(ReuseTest, UseBeforeAllocNotReportedWhenBWaitsOnAnEventRecordedAfterTheAllocation) {
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, UseBeforeAllocWhenTheEventWasRecordedBeforeTheAllocation) {
  record(0xe, A);
  alloc(Block, A, AllocKind::StreamOrdered);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  EXPECT_EQ(count(FindingKind::UseBeforeAlloc), 1u);
}

TEST_F(ReuseTest, UseBeforeAllocNotReportedOnTheAllocationStream) {
  alloc(Block, A, AllocKind::StreamOrdered);
  launch(A, Block, ProducerKernel);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, UseBeforeAllocNotReportedForCachingAllocatorBlocks) {
  alloc(Block, A, AllocKind::CachingAllocator);
  launch(B, Block, ConsumerKernel);
  EXPECT_EQ(count(FindingKind::UseBeforeAlloc), 0u);
}

TEST_F(ReuseTest, UnsafeFreeOnAStreamOrderedFreeWhenTheConsumerIsNotWaitedFor) {
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered); // cudaFreeAsync(.., A)
  // CUDA's contract: reported at the free, whatever follows.
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  reuseOn(A, AllocKind::StreamOrdered);
  EXPECT_EQ(total(), 1u);
  const Finding &F = *Sink.first(FindingKind::UnsafeFree);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.Released.Stream, A);
  EXPECT_EQ(F.ReusedBy.Stream, NoStream);
}

TEST_F(ReuseTest, ReuseRaceNotReportedAfterASafeStreamOrderedFree) {
  // The driver's pool orders reuse itself (stream order, event dependencies, or
  // the free having completed): accesses ordered before the free are not kept.
  StreamId C = stream(0xc);
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  record(0xf, B);
  wait(A, 0xf);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  alloc(Block, C, AllocKind::StreamOrdered);
  launch(C, Block, OtherKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, ReuseRaceAfterAnUnsafeStreamOrderedFree) {
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  alloc(Block, A, AllocKind::StreamOrdered);
  launch(A, Block, OtherKernel);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 1u);
  ASSERT_EQ(count(FindingKind::ReuseRace), 1u);
  EXPECT_TRUE(Sink.first(FindingKind::ReuseRace)->AfterUnsafeFree);
}

TEST_F(ReuseTest, ReuseRaceNotReportedAgainstAnOldUnsafeAccessThatALaterSafeFreeOrdered) {
  // Lifetime 1: B's read is not waited for (unsafe). Lifetime 2: A waits for
  // B before freeing, which orders B's old read too; the driver orders
  // lifetime 3 after that free, so C's use is no reuse race.
  StreamId C = stream(0xc);
  alloc(Block, A, AllocKind::StreamOrdered);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  alloc(Block, A, AllocKind::StreamOrdered);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  record(0xe, A);
  wait(B, 0xe);
  launch(B, Block, OtherKernel);
  record(0xf, B);
  wait(A, 0xf);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  alloc(Block, C, AllocKind::StreamOrdered);
  launch(C, Block, ProducerKernel);
  EXPECT_EQ(total(), 1u);
}

// --- use after free ----------------------------------------------------------

TEST_F(ReuseTest, UseAfterFreeWhenWorkIsEnqueuedAfterTheRelease) {
  alloc(Block, A, AllocKind::StreamOrdered);
  launch(A, Block, ProducerKernel);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  launch(A, Range{Block.Begin + 64, 64}, ConsumerKernel);
  ASSERT_EQ(count(FindingKind::UseAfterFree), 1u);
  const Finding &F = *Sink.first(FindingKind::UseAfterFree);
  EXPECT_EQ(F.Released.Stream, A);
  EXPECT_EQ(F.Released.Op, FreeSite);
  EXPECT_EQ(F.NewAccess.Stream, A);
  EXPECT_EQ(F.NewAccess.Op, ConsumerKernel);
  EXPECT_EQ(F.Bytes.Begin, Block.Begin + 64);
  EXPECT_EQ(F.Bytes.Size, 64u);
  EXPECT_EQ(F.Allocation.Begin, Block.Begin);
  EXPECT_EQ(F.Allocation.Size, Block.Size);
  launch(A, Range{Block.Begin + 64, 64}, ConsumerKernel); // same access again
  EXPECT_EQ(count(FindingKind::UseAfterFree), 1u);
}

TEST_F(ReuseTest, UseAfterFreeNotReportedOnceANewAllocationCoversTheRange) {
  alloc(Block, A, AllocKind::StreamOrdered);
  freeOn(Block.Begin, A, ReleaseKind::StreamOrdered);
  alloc(Block, A, AllocKind::StreamOrdered);
  launch(A, Block, ProducerKernel);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, UseAfterFreeThroughAKernelArgumentPointer) {
  alloc(Block, NoStream, AllocKind::Device);
  freeOn(Block.Begin, NoStream, ReleaseKind::SyncFree);
  EXPECT_TRUE(E->isTracked(Block.Begin + 8)); // released ranges stay tracked
  Addr Args[] = {42, Block.Begin + 8, 0};
  E->launchedWithPointers(0, A, Args, 3, ConsumerKernel);
  ASSERT_EQ(count(FindingKind::UseAfterFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UseAfterFree)->Bytes.Size, Block.Size);
}

// --- synchronous cudaFree ----------------------------------------------------

TEST_F(ReuseTest, UnsafeFreeNotReportedForSyncFreeBecauseItSynchronizesTheDevice) {
  alloc(Block, NoStream, AllocKind::Device);
  launch(B, Block, ConsumerKernel);
  freeOn(Block.Begin, NoStream, ReleaseKind::SyncFree);
  EXPECT_EQ(total(), 0u);
  // The implied device sync also orders other blocks' consumers.
  Range Other{Block.Begin + 0x100000, 256};
  alloc(Other, A);
  launch(B, Other, ConsumerKernel);
  alloc(Range{Block.Begin + 0x200000, 256}, NoStream, AllocKind::Device);
  freeOn(Block.Begin + 0x200000, NoStream, ReleaseKind::SyncFree);
  freeOn(Other.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(ReuseTest, UnsafeFreeForSyncFreeWhenAStreamOfAnotherDeviceStillReads) {
  StreamId Peer = stream(0xb, StreamFlavor::NonBlocking, /*Device=*/1);
  alloc(Block, NoStream, AllocKind::Device, /*Device=*/0);
  launch(Peer, Block, ConsumerKernel);
  freeOn(Block.Begin, NoStream, ReleaseKind::SyncFree);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Released.Stream, NoStream);
}

TEST_F(ReuseTest, FindingKindNamesAreStable) {
  EXPECT_STREQ(findingKindName(FindingKind::UnsafeFree), "unsafe-free");
  EXPECT_STREQ(findingKindName(FindingKind::ReuseRace), "reuse-race");
  EXPECT_STREQ(findingKindName(FindingKind::UseBeforeAlloc), "use-before-alloc");
  EXPECT_STREQ(findingKindName(FindingKind::UseAfterFree), "use-after-free");
}

} // namespace
