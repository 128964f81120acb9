//===- MemoryBoundTest.cpp - shadow state stays flat over long runs -------===//
//
// The shadow state must not grow with run length: records every host already
// knows about are dropped, the rest are bounded per segment. The long test is a
// synthetic training loop of a million launches and also prints the engine's
// cost per launched() call (informative, not asserted: CI machines are noisy).
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"
#include "engine/EngineImpl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

class MemoryBoundTest : public EngineTest {};

TEST_F(MemoryBoundTest, RecordedAccessesAreDroppedOnceTheHostSynchronizedPastThem) {
  StreamId A = stream(0xa), B = stream(0xb);
  constexpr unsigned Blocks = 8;
  for (unsigned I = 0; I < Blocks; ++I)
    alloc(Range{Block.Begin + I * 0x10000, 256}, A);
  for (unsigned I = 0; I < Blocks; ++I)
    launch(B, Range{Block.Begin + I * 0x10000, 256}, ConsumerKernel);
  EXPECT_EQ(E->stats().RecordedAccesses, Blocks);
  for (unsigned I = 0; I < Blocks; ++I)
    launch(A, Range{Block.Begin + I * 0x10000, 256}, ProducerKernel);
  EXPECT_EQ(E->stats().RecordedAccesses, 2 * Blocks); // B's reads are still live
  E->hostSyncsStream(0, B);
  for (unsigned I = 0; I < Blocks; ++I)
    launch(A, Range{Block.Begin + I * 0x10000, 256}, ProducerKernel);
  EXPECT_EQ(E->stats().RecordedAccesses, Blocks); // only A's: B's died
}

TEST_F(MemoryBoundTest, BasesOfReleasedAllocationsAreForgottenAtTheSweepInterval) {
  // A base keeps its (empty) list after its allocation is released, so that
  // a block handed out again allocates nothing; those lists must not pile
  // up in a program that keeps touching new addresses.
  StreamId A = stream(0xa);
  constexpr unsigned Blocks = 5000;
  for (unsigned I = 0; I < Blocks; ++I) {
    alloc(Range{Block.Begin + I * 0x1000, 256}, A);
    freeOn(Block.Begin + I * 0x1000, A);
  }
  EXPECT_EQ(E->stats().LiveAllocations, 0u);
  const Range Live{Block.Begin - 0x100000, 256};
  alloc(Live, A);
  // The sweep's interval is max(4096, twice the shadow's segments) calls.
  for (unsigned I = 0; I < 4 * Blocks; ++I)
    launch(A, Live, ProducerKernel);
  EXPECT_EQ(E->stats().LiveAllocations, 1u);
  EXPECT_LE(E->state().LiveByBase.size(), 1u);
  // Handed out again: live once more.
  alloc(Range{Block.Begin, 256}, A);
  EXPECT_EQ(E->stats().LiveAllocations, 2u);
}

TEST_F(MemoryBoundTest, ASweepLeavesFewerBasesThanTwiceTheLiveOnesPlusTheKept) {
  // A sweep walks the bases only once the empty ones may outnumber the live
  // allocations plus EmptyBasesKept (RecordRetention.cpp); between sweeps
  // the map grows by one base per allocation at most. A program with 64
  // allocations live at any time, each at a new address, and a sweep after
  // every 3000 of them: after each sweep the lists must number at most twice
  // the live ones plus the kept, and a released base must still find
  // nothing to release, its list empty or forgotten.
  using Impl = Engine::Impl;
  StreamId A = stream(0xa);
  const Range Steady{Block.Begin - 0x100000, 256};
  alloc(Steady, A);
  constexpr unsigned Live = 64, Batch = 3000, Batches = 4;
  std::size_t KeptAfterFirstSweep = 0;
  for (unsigned I = 0; I < Batch * Batches; ++I) {
    alloc(Range{Block.Begin + I * 0x1000, 256}, A);
    if (I >= Live)
      freeOn(Block.Begin + (I - Live) * 0x1000, A);
    if (I % Batch != Batch - 1)
      continue;
    do // until the next sweep (the interval grows with the segments)
      launch(A, Steady, ProducerKernel);
    while (E->state().OpsSinceSweep != 0);
    const Impl &State = E->state();
    ASSERT_LE(State.LiveByBase.size(), 2 * State.LiveAllocations + Impl::EmptyBasesKept)
        << "after allocation " << I;
    if (!KeptAfterFirstSweep)
      KeptAfterFirstSweep = State.LiveByBase.size();
  }
  // The first sweep found fewer than the kept: it walked none of them.
  EXPECT_EQ(KeptAfterFirstSweep, std::size_t(Batch + 1));
  EXPECT_EQ(E->stats().LiveAllocations, std::size_t(Live + 1));
  freeOn(Block.Begin, A);                                     // its list is gone
  freeOn(Block.Begin + 0x1000 * (Batch * Batches - Live - 1), A); // its list is empty
  EXPECT_EQ(E->stats().LiveAllocations, std::size_t(Live + 1));
  EXPECT_EQ(total(), 0u);
}

TEST_F(MemoryBoundTest, RecordsBeyondThePerSegmentCapAreDroppedAndCounted) {
  EngineOptions O;
  O.MaxRecordsPerSegment = 4;
  useOptions(O);
  alloc(Block, NoStream, AllocKind::Device);
  for (Handle H = 1; H <= 10; ++H)
    launch(stream(H), Block, ConsumerKernel);
  Engine::Stats S = E->stats();
  EXPECT_EQ(S.RecordedAccesses, 4u);
  EXPECT_EQ(S.DroppedRecords, 6u);
  EXPECT_EQ(S.Streams, 10u);
}

TEST_F(MemoryBoundTest, EqualNeighbouringSegmentsMergeAgainOnceTheirRecordsDie) {
  StreamId A = stream(0xa);
  alloc(Block, A);
  for (Addr Off = 0; Off < Block.Size; Off += 64)
    launch(A, Range{Block.Begin + Off, 64}, ProducerKernel); // 64 segments
  EXPECT_EQ(E->stats().ShadowSegments, Block.Size / 64);
  E->hostSyncsStream(0, A);
  StreamId Idle = stream(0x1d1e);
  for (int I = 0; I < 20000; ++I) // enough operations for a sweep
    launch(Idle, Range{0x1000, 8}, OtherKernel);
  EXPECT_EQ(E->stats().ShadowSegments, 1u);
  EXPECT_EQ(E->stats().RecordedAccesses, 0u);
}

/// A training-like loop: per step a block is allocated on the producer stream,
/// written there, read on the consumer stream together with a long-lived
/// weight, handed back with an event and released on the producer stream; the
/// allocator polls the consumer event now and then (what makes the host learn).
/// Every 16th step the block is split into two allocations.
TEST_F(MemoryBoundTest, ShadowStateStaysFlatOverAMillionLaunches) {
  StreamId Producer = stream(0xa), Consumer = stream(0xb);
  const Range Weight{0x7e0000000000, 1 << 20};
  alloc(Weight, NoStream, AllocKind::Device);
  constexpr std::size_t Launches = 1000000;
  constexpr std::size_t EarlyWindow = 10000;
  constexpr Handle Produced = 0xe0, Consumed = 0xe1;

  std::size_t Done = 0, EarlySegments = 0, EarlyRecords = 0, LateSegments = 0, LateRecords = 0;
  std::vector<Range> ConsumerTouches(2);
  std::vector<Range> ProducerTouches(1);
  auto sample = [&] {
    Engine::Stats S = E->stats();
    if (Done <= EarlyWindow) {
      EarlySegments = std::max(EarlySegments, S.ShadowSegments);
      EarlyRecords = std::max(EarlyRecords, S.RecordedAccesses);
    } else if (Done > Launches / 2) {
      LateSegments = std::max(LateSegments, S.ShadowSegments);
      LateRecords = std::max(LateRecords, S.RecordedAccesses);
    }
  };

  auto Start = std::chrono::steady_clock::now();
  for (std::size_t Step = 0; Done < Launches; ++Step) {
    Range X{Block.Begin + (Step % 3) * 0x100000, 1 << 16};
    bool Split = Step % 16 == 0;
    if (Split) {
      alloc(Range{X.Begin, X.Size / 2}, Producer);
      alloc(Range{X.Begin + X.Size / 2, X.Size / 2}, Producer);
    } else {
      alloc(X, Producer);
    }
    ProducerTouches[0] = X;
    E->launched(0, Producer, ProducerTouches, ProducerKernel);
    E->eventRecorded(0, Produced, Producer);
    E->streamWaitsEvent(0, Consumer, Produced);
    ConsumerTouches[0] = X;
    ConsumerTouches[1] = Weight;
    E->launched(0, Consumer, ConsumerTouches, ConsumerKernel);
    E->eventRecorded(0, Consumed, Consumer);
    E->streamWaitsEvent(0, Producer, Consumed);
    if (Split) {
      freeOn(X.Begin, Producer);
      freeOn(X.Begin + X.Size / 2, Producer);
    } else {
      freeOn(X.Begin, Producer);
    }
    if (Step % 64 == 63)
      E->hostSyncsEvent(0, Consumed); // the allocator's event query succeeded
    Done += 2;
    if (Done % 1000 == 0)
      sample();
  }
  auto Elapsed = std::chrono::steady_clock::now() - Start;
  double NsPerLaunchInTrace =
      std::chrono::duration<double, std::nano>(Elapsed).count() / static_cast<double>(Done);

  EXPECT_EQ(total(), 0u) << "the trace is correctly synchronized";
  EXPECT_GT(EarlySegments, 0u);
  EXPECT_LE(LateSegments, EarlySegments);
  EXPECT_LE(LateRecords, EarlyRecords);

  // The launch path alone: two streams, one range each, steady state.
  constexpr std::size_t Hot = 1000000;
  auto HotStart = std::chrono::steady_clock::now();
  for (std::size_t I = 0; I < Hot; ++I)
    E->launched(0, I % 2 ? Consumer : Producer, ProducerTouches, OtherKernel);
  double NsPerLaunched =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - HotStart)
          .count() /
      static_cast<double>(Hot);

  Engine::Stats S = E->stats();
  std::printf("[engine] %zu launches: shadow segments max %zu (first %zu launches) vs %zu "
              "(second half); records max %zu vs %zu; dropped by cap %zu\n",
              Done, EarlySegments, EarlyWindow, LateSegments, EarlyRecords, LateRecords,
              S.DroppedRecords);
  std::printf("[engine] %.1f ns per launch in the full trace (all calls of a step / 2 "
              "launches); %.1f ns per launched() call alone\n",
              NsPerLaunchInTrace, NsPerLaunched);
}

} // namespace

namespace {

TEST_F(MemoryBoundTest, ClockWidthStaysFlatWhenStreamsAreCreatedAndDestroyedPerRequest) {
  StreamId A = stream(0xa);
  alloc(Block, A);
  for (Handle Request = 1; Request <= 10000; ++Request) {
    StreamId S = stream(0x1000 + Request);
    E->eventRecorded(0, 0xe0, A);
    E->streamWaitsEvent(0, S, 0xe0);
    launch(S, Block, ConsumerKernel);
    E->hostSyncsStream(0, S); // the request's result is read back
    E->streamDestroyed(0, S);
  }
  Engine::Stats St = E->stats();
  EXPECT_EQ(St.Streams, 10001u);        // ids stay unique for reports
  EXPECT_LE(St.ClockSlots, 4u);         // host, A, and a reused request slot
  freeOn(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(MemoryBoundTest, UnsafeFreeForADestroyedStreamsPendingWorkAndNoSlotReuseBeforeTheHostKnows) {
  StreamId A = stream(0xa);
  alloc(Block, A);
  StreamId Old = stream(0xb);
  launch(Old, Block, ConsumerKernel);
  E->streamDestroyed(0, Old); // its kernel may still be running
  StreamId New = stream(0xc);
  launch(New, Range{0x1000, 8}, OtherKernel);
  EXPECT_EQ(E->stats().ClockSlots, 4u); // host, A, Old, New: Old's slot not reused
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Stream, Old);
  EXPECT_TRUE(E->streamInfo(Old).Destroyed);
}

TEST_F(MemoryBoundTest, UnsafeFreeNotReportedWhenADeviceSyncWaitedForADestroyedStream) {
  StreamId A = stream(0xa);
  alloc(Block, A);
  StreamId Old = stream(0xb);
  launch(Old, Block, ConsumerKernel);
  E->streamDestroyed(0, Old);
  E->hostSyncsDevice(0, 0); // still waits for the destroyed stream's work
  freeAndReuse(Block.Begin, A);
  EXPECT_EQ(total(), 0u);
}

TEST_F(MemoryBoundTest, AReusedSlotGivesTheNewStreamFreshEpochs) {
  StreamId A = stream(0xa);
  StreamId Old = stream(0xb);
  launch(Old, Range{0x1000, 8}, OtherKernel);
  E->hostSyncsStream(0, Old);
  E->streamDestroyed(0, Old);
  StreamId New = stream(0xc); // takes Old's slot
  EXPECT_EQ(E->stats().ClockSlots, 3u);
  alloc(Block, A);
  launch(New, Block, ConsumerKernel); // must not look ordered: nobody waited
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Stream, New);
}

TEST_F(MemoryBoundTest, WorkOnADestroyedStreamIdIsIgnoredAndCannotTickAReusedSlot) {
  StreamId A = stream(0xa);
  StreamId Old = stream(0xb);
  E->hostSyncsStream(0, Old);
  E->streamDestroyed(0, Old);
  StreamId New = stream(0xc); // takes Old's slot
  alloc(Block, A);
  launch(Old, Block, ConsumerKernel); // a stale id: nothing is enqueued
  record(0xe, Old);
  EXPECT_EQ(E->stats().RecordedAccesses, 0u);
  launch(New, Block, ConsumerKernel);
  wait(A, 0xe); // never recorded: orders nothing
  freeAndReuse(Block.Begin, A);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Stream, New);
}

} // namespace
