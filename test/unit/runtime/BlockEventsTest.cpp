//===- BlockEventsTest.cpp - allocator block events into the engine -------===//
//
// The allocator-side interface (allocators/BlockEvents.h) with the kinds of the
// stream-ordered pool, against the real engine.
//
//===----------------------------------------------------------------------===//
#include "allocators/StreamOrderedPool.h"

#include "../engine/EngineTestSupport.h"

#include <gtest/gtest.h>

#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;

namespace {

struct BlockEventsTest : ::testing::Test {
  BlockEventsTest() : E(Sink), Pool(E) {
    A = E.stream(0, StreamDesc{0xa000, 0, StreamFlavor::NonBlocking, 0});
    B = E.stream(0, StreamDesc{0xb000, 0, StreamFlavor::NonBlocking, 0});
  }
  /// Orders B after the allocation on A, as a consumer must.
  void consumeOnB(OpId Op) {
    E.eventRecorded(0, 0xe0, A);
    E.streamWaitsEvent(0, B, 0xe0);
    E.accessed(0, B, Range{Block, 4096}, Op);
  }
  CollectingSink Sink;
  Engine E;
  StreamOrderedPool Pool;
  StreamId A, B;
  static constexpr Addr Block = 0x100000;
};

TEST_F(BlockEventsTest, ReleaseWhileAnotherStreamUsesTheBlockIsAnUnsafeFree) {
  Pool.allocatedAsync(0, Block, 4096, A, /*Site=*/1, 0);
  consumeOnB(/*Op=*/2);
  Pool.freedAsync(0, Block, A, /*Site=*/3); // CUDA's contract: judged here
  ASSERT_FALSE(Sink.Findings.empty());
  const Finding &F = Sink.Findings.front();
  EXPECT_EQ(F.Kind, FindingKind::UnsafeFree);
  EXPECT_EQ(F.Alloc, AllocKind::StreamOrdered);
  EXPECT_EQ(F.Allocated.Stream, A);
  EXPECT_EQ(F.Unordered.Stream, B);
  EXPECT_EQ(F.Released.Op, 3u);
  EXPECT_EQ(F.ReusedBy.Stream, NoStream);
}

TEST_F(BlockEventsTest, WaitBeforeReleaseIsClean) {
  Pool.allocatedAsync(0, Block, 4096, A, 1, 0);
  consumeOnB(2);
  E.eventRecorded(0, 0xe1, B);
  E.streamWaitsEvent(0, A, 0xe1);
  Pool.freedAsync(0, Block, A, 3);
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(BlockEventsTest, UseOnAStreamNotOrderedAfterTheAllocation) {
  Pool.allocatedAsync(0, Block, 4096, A, 1, 0);
  E.accessed(0, B, Range{Block, 4096}, 2);
  ASSERT_FALSE(Sink.Findings.empty());
  EXPECT_EQ(Sink.Findings.front().Kind, FindingKind::UseBeforeAlloc);
  EXPECT_EQ(Sink.Findings.front().NewAccess.Stream, B);
}

TEST_F(BlockEventsTest, NullAndEmptyBlocksAreIgnored) {
  Pool.allocatedAsync(0, 0, 4096, A, 1, 0);
  Pool.allocatedAsync(0, Block, 0, A, 1, 0);
  Pool.freedAsync(0, 0, A, 3);
  EXPECT_FALSE(E.isTracked(Block));
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(BlockEventsTest, RecordedStreamsArePerLiveBlock) {
  EngineBlockEvents Caching(E, AllocKind::CachingAllocator, ReleaseKind::CachingAllocator);
  Caching.blockAllocated(0, Range{Block, 4096}, A, 1, 0);
  Caching.blockUsedOnStream(0, Block, B);
  Caching.blockUsedOnStream(0, Block, B);
  EXPECT_EQ(Caching.recordedStreams(Block), std::vector<StreamId>{B});
  // Released and handed out again: the new lifetime starts unrecorded.
  E.eventRecorded(0, 0xe2, B);
  E.streamWaitsEvent(0, A, 0xe2);
  Caching.blockReleased(0, Block, A, 3);
  EXPECT_TRUE(Caching.recordedStreams(Block).empty());
  Caching.blockAllocated(0, Range{Block, 4096}, A, 4, 0);
  EXPECT_TRUE(Caching.recordedStreams(Block).empty());
}

} // namespace
