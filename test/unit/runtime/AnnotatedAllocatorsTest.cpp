//===- AnnotatedAllocatorsTest.cpp - the annotation queue and accounting ---===//
//
// allocators/AnnotatedAllocators.h against the real engine: events are queued
// and only reach the engine at drain(); the release reported is the requested
// one; record_stream-style held-back blocks are counted; a release completed
// in the same breath is not.
//
//===----------------------------------------------------------------------===//
#include "allocators/AnnotatedAllocators.h"

#include "../engine/EngineTestSupport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <iterator>
#include <map>
#include <thread>
#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;

namespace {

constexpr Handle AgHandle = 0xa000, ComputeHandle = 0xc000;
constexpr Addr BlockA = 0x100000, BlockB = 0x200000;
constexpr std::uint64_t Bytes = 4096;

struct AnnotatedAllocatorsTest : ::testing::Test {
  AnnotatedAllocatorsTest()
      : E(Sink), Annotated(E, [](OpId Op) { return Op >= 100 ? 100 : Op; }) {
    Ag = E.stream(0, StreamDesc{AgHandle, 0, StreamFlavor::NonBlocking, 0});
    Compute = E.stream(0, StreamDesc{ComputeHandle, 0, StreamFlavor::NonBlocking, 0});
    Caching = Annotated.registerAllocator("test caching allocator", 1);
  }
  void push(BlockEvent::Kind What, Addr Ptr, Handle Stream, OpId Site) {
    BlockEvent Ev;
    Ev.What = What;
    Ev.Allocator = Caching;
    Ev.Ptr = Ptr;
    Ev.Size = Bytes;
    Ev.Stream = Stream;
    Ev.Site = Site;
    Annotated.push(Ev);
  }
  std::size_t drain() {
    return Annotated.drain([this](ThreadId, Handle H) { return H == AgHandle ? Ag : Compute; });
  }
  /// The consumer reads the block after waiting for its producer on `ag`.
  void consume(Addr Ptr, OpId Op) {
    E.eventRecorded(0, 0xe0, Ag);
    E.streamWaitsEvent(0, Compute, 0xe0);
    E.accessed(0, Compute, Range{Ptr, Bytes}, Op);
  }
  CollectingSink Sink;
  Engine E;
  AnnotatedAllocators Annotated;
  StreamId Ag, Compute;
  int Caching = 0;
};

TEST_F(AnnotatedAllocatorsTest, RegistrationChecksThePolicy) {
  EXPECT_GT(Caching, 0);
  EXPECT_EQ(Annotated.allocatorName(Caching), "test caching allocator");
  EXPECT_GT(Annotated.registerAllocator("pool", 2), Caching);
  EXPECT_EQ(Annotated.registerAllocator("bad", 0), 0);
  EXPECT_EQ(Annotated.registerAllocator("bad", 3), 0);
  EXPECT_FALSE(Annotated.known(0));
  EXPECT_FALSE(Annotated.known(99));
}

TEST_F(AnnotatedAllocatorsTest, RegistrationsBeyondTheTableAreRefused) {
  // Replay finds an allocator by id in a fixed table, without a lock.
  int Last = Caching;
  while (Last < static_cast<int>(AnnotatedAllocators::MaxAllocators))
    Last = Annotated.registerAllocator("pool", 1);
  EXPECT_EQ(Last, static_cast<int>(AnnotatedAllocators::MaxAllocators));
  EXPECT_EQ(Annotated.registerAllocator("one too many", 1), 0);
  EXPECT_TRUE(Annotated.known(Last));
  EXPECT_FALSE(Annotated.known(Last + 1));
  EXPECT_EQ(Annotated.allocatorName(Last), "pool");
}

TEST_F(AnnotatedAllocatorsTest, EventsWaitForTheDrain) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  EXPECT_TRUE(Annotated.hasPending());
  EXPECT_FALSE(E.isTracked(BlockA));
  drain();
  EXPECT_FALSE(Annotated.hasPending());
  EXPECT_TRUE(E.isTracked(BlockA));
}

// The DDP false use-after-free: thread B queues an allocation, thread A's
// drain takes it in its batch, and B's own drain (from B's next CUDA call, a
// launch on that block) must not return before A has applied it.
TEST_F(AnnotatedAllocatorsTest, DrainWaitsForAnotherThreadsBatchHoldingItsEvents) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1); // thread B's allocation
  std::atomic<bool> AApplying{false}, BReturned{false};
  std::thread A([&] {
    Annotated.drain([&](ThreadId, Handle) {
      AApplying = true;
      // Hold the batch until B's drain returned (the bug) or long enough to
      // show that B waits (the fix).
      for (int I = 0; I < 200 && !BReturned; ++I)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return Ag;
    });
  });
  while (!AApplying)
    std::this_thread::yield();
  drain(); // thread B
  bool AllocatedWhenBReturned = E.isTracked(BlockA);
  BReturned = true;
  A.join();
  EXPECT_TRUE(AllocatedWhenBReturned);
  EXPECT_FALSE(Annotated.hasPending());
}

// Unapplied events are the pushes counted minus the events drains applied
// (QueueHead): every kind of push counts one, a drain takes them all back,
// and what a push returns is the count after it.
TEST_F(AnnotatedAllocatorsTest, EveryPushCountsUntilADrainAppliesIt) {
  EXPECT_EQ(Annotated.unapplied(), 0u);
  EXPECT_EQ(Annotated.pushHostSync(BlockEvent::Kind::HostReleased, 0, 0x10), 1u);
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 2);
  BlockEvent Release;
  Release.What = BlockEvent::Kind::Released;
  Release.Allocator = Caching;
  Release.Ptr = BlockA;
  ASSERT_TRUE(Annotated.pushReleaseNamedByRequest(Release));
  EXPECT_EQ(Annotated.pushHostSync(BlockEvent::Kind::HostAcquired, 1, 0x10), 5u);
  EXPECT_EQ(Annotated.unapplied(), 5u);
  EXPECT_TRUE(Annotated.hasPending());
  // A drain says how many events it applied; the totals (intercept_stats:
  // the program's threads' replays are the total less the replay thread's)
  // count every event and every batch.
  EXPECT_EQ(drain(), 5u);
  EXPECT_EQ(Annotated.unapplied(), 0u);
  EXPECT_FALSE(Annotated.hasPending());
  EXPECT_EQ(Annotated.pushHostSync(BlockEvent::Kind::HostReleased, 1, 0x10), 1u);
  EXPECT_EQ(drain(), 1u);
  EXPECT_FALSE(Annotated.hasPending());
  EXPECT_EQ(drain(), 0u);
  EXPECT_EQ(Annotated.applied(), 6u);
  EXPECT_EQ(Annotated.batchesApplied(), 2u);
}

// Threads push and drain at once: a thread's drain returns with its own
// events applied, a push never sees a count that wrapped or missed its own
// event, and the counts end at zero.
TEST_F(AnnotatedAllocatorsTest, CountsStayExactWithThreadsPushingAndDraining) {
  constexpr int Threads = 4, Pushes = 20000;
  std::atomic<bool> Wrong{false};
  std::vector<std::thread> Pushers;
  for (int T = 0; T < Threads; ++T)
    Pushers.emplace_back([&, T] {
      for (int I = 0; I < Pushes; ++I) {
        std::size_t After = Annotated.pushHostSync(
            I % 2 ? BlockEvent::Kind::HostAcquired : BlockEvent::Kind::HostReleased, ThreadId(T), 0x100 + I % 8);
        if (After == 0 || After > std::size_t(Threads) * Pushes)
          Wrong = true;
        if (I % 97 == T) {
          Annotated.drain([this](ThreadId, Handle) { return Ag; });
          // The events it pushed were applied; others' may be queued since.
          if (Annotated.unapplied() > std::size_t(Threads) * Pushes)
            Wrong = true;
        }
      }
    });
  for (std::thread &P : Pushers)
    P.join();
  EXPECT_FALSE(Wrong);
  EXPECT_EQ(Annotated.hasPending(), Annotated.unapplied() != 0);
  drain();
  EXPECT_EQ(Annotated.unapplied(), 0u);
  EXPECT_FALSE(Annotated.hasPending());
}

TEST_F(AnnotatedAllocatorsTest, ReleaseWithNoWaitIsAnUnsafeFreeAtTheRequestedSite) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  consume(BlockA, 2);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 3);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  drain();
  EXPECT_TRUE(Sink.Findings.empty()) << "nothing could reuse the block yet";
  push(BlockEvent::Kind::Allocated, BlockB, AgHandle, 5); // ag's next block
  drain();
  ASSERT_EQ(Sink.Findings.size(), 1u);
  const Finding &F = Sink.Findings.front();
  EXPECT_EQ(F.Kind, FindingKind::UnsafeFree);
  EXPECT_EQ(F.Alloc, AllocKind::CachingAllocator);
  EXPECT_EQ(F.Allocated.Stream, Ag);
  EXPECT_EQ(F.Unordered.Stream, Compute);
  EXPECT_EQ(F.Released.Op, 3u) << "the owner's release, not the allocator's";
  EXPECT_EQ(F.Released.Stream, Ag);
  EXPECT_EQ(F.ReusedBy.Stream, Ag);
  EXPECT_EQ(F.ReusedBy.Op, 5u);
}

TEST_F(AnnotatedAllocatorsTest, SameStreamPolicyReleaseIsCleanWhenItsStreamWaitsBeforeItAllocates) {
  // STREAMLIFE_REUSE_SAME_STREAM is the caching allocator's rule: only the
  // allocation stream's next allocation can get the block.
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  consume(BlockA, 2);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  push(BlockEvent::Kind::Allocated, BlockB, ComputeHandle, 6); // another stream's pool
  drain();
  E.eventRecorded(0, 0xe1, Compute);
  E.streamWaitsEvent(0, Ag, 0xe1); // late, but before ag allocates
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 5);
  drain();
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(AnnotatedAllocatorsTest, StreamOrderedPolicyReleaseBeforeTheWaitIsReportedAtTheRelease) {
  // STREAMLIFE_REUSE_STREAM_ORDERED is the driver pool's rule: every use must
  // be ordered before the release, whatever follows.
  int Pool = Annotated.registerAllocator("test pool", 2);
  auto pushPool = [&](BlockEvent::Kind What, Addr Ptr, Handle Stream, OpId Site) {
    BlockEvent Ev;
    Ev.What = What;
    Ev.Allocator = Pool;
    Ev.Ptr = Ptr;
    Ev.Size = Bytes;
    Ev.Stream = Stream;
    Ev.Site = Site;
    Annotated.push(Ev);
  };
  pushPool(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  consume(BlockA, 2);
  pushPool(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  drain();
  ASSERT_EQ(Sink.Findings.size(), 1u);
  EXPECT_EQ(Sink.Findings.front().Kind, FindingKind::UnsafeFree);
  EXPECT_EQ(Sink.Findings.front().ReusedBy.Stream, NoStream);
  E.eventRecorded(0, 0xe1, Compute);
  E.streamWaitsEvent(0, Ag, 0xe1); // too late
  pushPool(BlockEvent::Kind::Allocated, BlockB, AgHandle, 5);
  drain();
  EXPECT_EQ(Sink.Findings.size(), 1u);
}

/// The stream-ordered pool's allocations as replay hands them over.
struct RecordedPool : BlockEvents {
  struct Allocation {
    StreamId Stream;
    int Device;
  };
  void blockAllocated(ThreadId, Range, StreamId Stream, OpId, int Device) override {
    Allocations.push_back({Stream, Device});
  }
  void blockReleased(ThreadId, Addr, StreamId, OpId) override {}
  void blockUsedOnStream(ThreadId, Addr, StreamId) override {}
  std::vector<Allocation> Allocations;
};

TEST_F(AnnotatedAllocatorsTest, APoolAllocationOfNoNamedDeviceIsCountedOnItsStreamsDevice) {
  // cuMemAllocAsync allocates from the current pool of its stream's device:
  // the call leaves the device to the replay (no driver call on the
  // program's thread); cuMemAllocFromPoolAsync names its pool's.
  RecordedPool Pool;
  Annotated.setStreamOrderedPool(&Pool);
  StreamId OnDevice1 = E.stream(0, StreamDesc{0xd100, 1, StreamFlavor::NonBlocking, 0});
  Annotated.pushPoolAllocated(0, BlockA, Bytes, OnDevice1, 1, -1);
  Annotated.pushPoolAllocated(0, BlockB, Bytes, Ag, 2, -1);
  Annotated.pushPoolAllocated(0, BlockB + Bytes, Bytes, OnDevice1, 3, 0); // a pool of device 0
  drain();
  ASSERT_EQ(Pool.Allocations.size(), 3u);
  EXPECT_EQ(Pool.Allocations[0].Stream, OnDevice1);
  EXPECT_EQ(Pool.Allocations[0].Device, 1);
  EXPECT_EQ(Pool.Allocations[1].Device, 0);
  EXPECT_EQ(Pool.Allocations[2].Device, 0);
}

TEST_F(AnnotatedAllocatorsTest, ReleaseWithoutARequestReportsItsOwnSite) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  consume(BlockA, 2);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  push(BlockEvent::Kind::Allocated, BlockB, AgHandle, 5);
  drain();
  ASSERT_EQ(Sink.Findings.size(), 1u);
  EXPECT_EQ(Sink.Findings.front().Released.Op, 4u);
}

TEST_F(AnnotatedAllocatorsTest, WaitOnTheAllocationStreamFirstIsClean) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  consume(BlockA, 2);
  E.eventRecorded(0, 0xe1, Compute);
  E.streamWaitsEvent(0, Ag, 0xe1);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 3);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  E.accessed(0, Ag, Range{BlockA, Bytes}, 5);
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(AnnotatedAllocatorsTest, ReleaseAfterTheHostSawTheConsumerEventIsClean) {
  // record_stream: the allocator records an event on the consumer, queries it,
  // and takes the block back only once it completed.
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  consume(BlockA, 2);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 3);
  drain();
  E.eventRecorded(0, 0xe2, Compute);
  E.hostSyncsEvent(0, 0xe2);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  E.accessed(0, Ag, Range{BlockA, Bytes}, 5);
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(AnnotatedAllocatorsTest, HostEventsKeepTheirPlaceAmongTheBlockEvents) {
  // A worker (thread 1) releases a block a consumer still reads, then learns
  // that the read completed and unlocks; the main thread (2) locks and
  // allocates on the block's stream: ordered after the read through the
  // lock, so clean, only if the unlock and the lock reach the engine between
  // the release and the allocation, as they were queued.
  auto queueHost = [&](BlockEvent::Kind What, ThreadId T) {
    BlockEvent Ev;
    Ev.What = What;
    Ev.Thread = T;
    Ev.Ptr = 0x5000;
    Annotated.push(Ev);
  };
  auto queueBlock = [&](BlockEvent::Kind What, ThreadId T, Addr Ptr, OpId Site) {
    BlockEvent Ev;
    Ev.What = What;
    Ev.Allocator = Caching;
    Ev.Thread = T;
    Ev.Ptr = Ptr;
    Ev.Size = Bytes;
    Ev.Stream = AgHandle;
    Ev.Site = Site;
    Annotated.push(Ev);
  };
  // Threads 2 and 3 use CUDA from the start: what thread 1 learns below is
  // not every CUDA thread's knowledge.
  E.launched(2, Compute, {}, 9);
  E.launched(3, Compute, {}, 9);
  queueBlock(BlockEvent::Kind::Allocated, 1, BlockA, 1);
  drain();
  E.accessed(1, Compute, Range{BlockA, Bytes}, 2); // never ordered before ag
  queueBlock(BlockEvent::Kind::Released, 1, BlockA, 4);
  drain();
  E.hostSyncsStream(1, Compute); // the worker learns the read completed
  queueHost(BlockEvent::Kind::HostReleased, 1);
  queueHost(BlockEvent::Kind::HostAcquired, 2);
  queueBlock(BlockEvent::Kind::Allocated, 2, BlockB, 5);
  queueHost(BlockEvent::Kind::HostReleased, 2);
  drain();
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(AnnotatedAllocatorsTest, AccessEventsReachTheEngine) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  drain();
  BlockEvent Use;
  Use.What = BlockEvent::Kind::Accessed;
  Use.Ptr = BlockA;
  Use.Size = 16;
  Use.Stream = ComputeHandle; // never ordered after anything on ag
  Use.Site = 2;
  Annotated.push(Use);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 4);
  push(BlockEvent::Kind::Allocated, BlockB, AgHandle, 5);
  drain();
  ASSERT_EQ(Sink.Findings.size(), 1u);
  EXPECT_EQ(Sink.Findings.front().Unordered.Op, 2u);
}

TEST_F(AnnotatedAllocatorsTest, EventsOfAnUnknownAllocatorAreDropped) {
  BlockEvent Ev;
  Ev.Allocator = 42;
  Ev.Ptr = BlockA;
  Ev.Size = Bytes;
  Annotated.push(Ev);
  drain();
  EXPECT_FALSE(E.isTracked(BlockA));
}

TEST_F(AnnotatedAllocatorsTest, OneBlockCycledByFreeBeforeTheNextAllocation) {
  for (int Layer = 0; Layer < 4; ++Layer) {
    push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 100 + Layer); // one site
    push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 7);
    push(BlockEvent::Kind::Released, BlockA, AgHandle, 7);
  }
  drain();
  std::vector<BlockAccount> Accounts = Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 1u);
  EXPECT_EQ(Accounts[0].SiteKey, 100u);
  EXPECT_EQ(Accounts[0].Allocations, 4u);
  EXPECT_EQ(Accounts[0].DistinctBlocks, 1u);
  EXPECT_EQ(Accounts[0].PeakLiveBlocks, 1u);
  EXPECT_EQ(Accounts[0].PeakHeldBackBytes, 0u) << "completed in the same breath";
}

TEST_F(AnnotatedAllocatorsTest, KeepaliveAlternatesTwoBlocks) {
  Addr Blocks[2] = {BlockA, BlockB};
  for (int Layer = 0; Layer < 4; ++Layer) {
    push(BlockEvent::Kind::Allocated, Blocks[Layer % 2], AgHandle, 100);
    if (Layer > 0) {
      push(BlockEvent::Kind::ReleaseRequested, Blocks[(Layer - 1) % 2], AgHandle, 7);
      push(BlockEvent::Kind::Released, Blocks[(Layer - 1) % 2], AgHandle, 7);
    }
  }
  drain();
  std::vector<BlockAccount> Accounts = Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 1u);
  EXPECT_EQ(Accounts[0].DistinctBlocks, 2u);
  EXPECT_EQ(Accounts[0].PeakLiveBlocks, 2u);
  EXPECT_EQ(Accounts[0].PeakHeldBackBytes, 0u);
}

TEST_F(AnnotatedAllocatorsTest, HeldBackBlocksCountUntilTheAllocatorTakesThemBack) {
  const Addr Blocks[4] = {0x100000, 0x200000, 0x300000, 0x400000};
  for (Addr Block : Blocks) {
    push(BlockEvent::Kind::Allocated, Block, AgHandle, 100);
    push(BlockEvent::Kind::ReleaseRequested, Block, AgHandle, 7); // parked on events
  }
  for (Addr Block : Blocks)
    push(BlockEvent::Kind::Released, Block, AgHandle, 8);
  push(BlockEvent::Kind::Allocated, Blocks[0], AgHandle, 100);
  drain();
  std::vector<BlockAccount> Accounts = Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 1u);
  EXPECT_EQ(Accounts[0].DistinctBlocks, 4u);
  EXPECT_EQ(Accounts[0].PeakLiveBlocks, 4u);
  EXPECT_EQ(Accounts[0].PeakHeldBackBytes, 3 * Bytes) << "sampled at the 4th allocation";
}

TEST_F(AnnotatedAllocatorsTest, DistinctBlocksStopCountingAtTheCap) {
  constexpr std::size_t Cap = 1 << 16;
  for (std::size_t I = 0; I < Cap + 8; ++I) {
    const Addr Block = 0x10000000 + Bytes * I;
    push(BlockEvent::Kind::Allocated, Block, AgHandle, 100);
    push(BlockEvent::Kind::Released, Block, AgHandle, 7);
  }
  // Counted addresses handed out again are not counted twice.
  push(BlockEvent::Kind::Allocated, 0x10000000, AgHandle, 100);
  push(BlockEvent::Kind::Allocated, 0x10000000 + Bytes * (Cap + 1), AgHandle, 100);
  drain();
  std::vector<BlockAccount> Accounts = Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 1u);
  EXPECT_EQ(Accounts[0].Allocations, Cap + 10);
  EXPECT_EQ(Accounts[0].DistinctBlocks, Cap);
  EXPECT_EQ(Accounts[0].PeakLiveBlocks, 2u);
}

TEST_F(AnnotatedAllocatorsTest, AnAddressHandedOutBySeveralSitesCountsForEach) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 7);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 7);
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 2);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 7); // held back...
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);        // ...until a missed release
  push(BlockEvent::Kind::Allocated, BlockB, AgHandle, 1);
  drain();
  std::vector<BlockAccount> Accounts = Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 2u);
  EXPECT_EQ(Accounts[0].Allocations, 3u);
  EXPECT_EQ(Accounts[0].DistinctBlocks, 2u);
  EXPECT_EQ(Accounts[0].PeakLiveBlocks, 2u);
  EXPECT_EQ(Accounts[1].DistinctBlocks, 1u);
  EXPECT_EQ(Accounts[1].PeakLiveBlocks, 1u);
  EXPECT_EQ(Accounts[1].PeakHeldBackBytes, 0u) << "the missed release ended the hold";
}

TEST_F(AnnotatedAllocatorsTest, SitesAreKeptApart) {
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  push(BlockEvent::Kind::Allocated, BlockB, ComputeHandle, 2);
  drain();
  std::vector<BlockAccount> Accounts = Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 2u);
  EXPECT_EQ(Accounts[0].Site, 1u);
  EXPECT_EQ(Accounts[1].Site, 2u);
  EXPECT_EQ(Accounts[0].PeakLiveBlocks, 1u);
}

} // namespace

namespace {

/// What the timeline would be told, in order.
class Lifecycle : public BlockObserver {
public:
  void blockAllocated(ThreadId, Range Bytes, StreamId Stream, OpId Site) override {
    Seen.push_back("allocated " + std::to_string(Bytes.Begin) + " s" + std::to_string(Stream) +
                   " op" + std::to_string(Site));
  }
  void blockReleaseRequested(ThreadId, Addr Base, StreamId Stream, OpId Site) override {
    Seen.push_back("requested " + std::to_string(Base) +
                   (Stream == NoStream ? " unresolved" : " s" + std::to_string(Stream)) + " op" +
                   std::to_string(Site));
  }
  void blockReleased(ThreadId, Addr Base, OpId Site) override {
    Seen.push_back("released " + std::to_string(Base) + " op" + std::to_string(Site));
  }
  void blockAccessed(ThreadId, StreamId Stream, Range Bytes, OpId) override {
    Seen.push_back("accessed " + std::to_string(Bytes.Begin) + " s" + std::to_string(Stream));
  }
  std::vector<std::string> Seen;
};

TEST_F(AnnotatedAllocatorsTest, TheObserverSeesTheLifecycleInOrderAfterTheEngine) {
  Lifecycle O;
  Annotated.setObserver(&O);
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 2);
  push(BlockEvent::Kind::Released, BlockA, AgHandle, 3);
  EXPECT_TRUE(O.Seen.empty()); // queued only
  drain();
  // A SAME_STREAM block's release stream is not resolved (its handle may be
  // a destroyed stream's); the release reported is the requested one.
  std::vector<std::string> Want = {"allocated " + std::to_string(BlockA) + " s" + std::to_string(Ag) + " op1",
                                   "requested " + std::to_string(BlockA) + " unresolved op2",
                                   "released " + std::to_string(BlockA) + " op2"};
  EXPECT_EQ(O.Seen, Want);
  EXPECT_EQ(E.stats().LiveAllocations, 0u);
}

} // namespace

// Replay finds an allocation's site by a table of ops (OpTable's dense
// indices), ops beyond the table by a map: either way the site key is asked
// once per op, and every allocation counts at its op's site.
TEST(AnnotatedAllocatorsSites, EachOpIsAskedOnceAndCountsAtItsSite) {
  CollectingSink Sink;
  Engine E(Sink);
  std::map<OpId, int> Asked;
  AnnotatedAllocators Annotated(E, [&Asked](OpId Op) {
    ++Asked[Op];
    return std::uint64_t(Op % 3);
  });
  const StreamId S = E.stream(0, StreamDesc{AgHandle, 0, StreamFlavor::NonBlocking, 0});
  const int Caching = Annotated.registerAllocator("test caching allocator", 1);
  const OpId Ops[] = {1, 2, 3, (1u << 20) - 1, 1u << 20, (1u << 20) + 4, 0xfffffff0u};
  std::map<std::uint64_t, std::size_t> Expected; // by site key
  for (int Round = 0; Round < 5; ++Round)
    for (std::size_t I = 0; I < std::size(Ops); ++I) {
      if ((Round + I) % 2)
        continue; // the ops in a changing order
      BlockEvent Ev;
      Ev.Allocator = Caching;
      Ev.Ptr = BlockA + 0x10000 * (Round * std::size(Ops) + I);
      Ev.Size = Bytes;
      Ev.Stream = AgHandle;
      Ev.Site = Ops[I];
      Ev.What = BlockEvent::Kind::Allocated;
      Annotated.push(Ev);
      ++Expected[Ops[I] % 3];
    }
  Annotated.drain([S](ThreadId, Handle) { return S; });
  for (OpId Op : Ops)
    EXPECT_EQ(Asked[Op], 1) << "op " << Op;
  std::map<std::uint64_t, std::size_t> Got;
  for (const BlockAccount &A : Annotated.accounts())
    Got[A.SiteKey] += A.Allocations;
  EXPECT_EQ(Got, Expected);
}

namespace {

// A drain that finds another thread applying its batch waits for it, and the
// wait is counted and timed (intercept_stats' "replays that waited"): the
// replay thread's batch is what a program thread that needs the engine waits
// for. The first drainer's resolver holds its batch open until the second
// thread is on its way in.
TEST_F(AnnotatedAllocatorsTest, ADrainThatWaitsForAnotherThreadsBatchIsCountedAndTimed) {
  EXPECT_EQ(Annotated.drainWaits().Count, 0u);
  push(BlockEvent::Kind::Allocated, BlockA, AgHandle, 1);
  std::atomic<bool> Inside{false};
  std::thread First([&] {
    Annotated.drain([&](ThreadId, Handle H) {
      Inside.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return H == AgHandle ? Ag : Compute;
    });
  });
  while (!Inside.load())
    std::this_thread::yield();
  drain(); // the first batch is still being applied: pending, and DrainLock held
  First.join();
  AnnotatedAllocators::DrainWaits Waits = Annotated.drainWaits();
  EXPECT_EQ(Waits.Count, 1u);
  EXPECT_GE(Waits.Nanoseconds, 10u * 1000 * 1000);
  // A drain with nobody else applying does not wait.
  push(BlockEvent::Kind::ReleaseRequested, BlockA, AgHandle, 2);
  drain();
  EXPECT_EQ(Annotated.drainWaits().Count, 1u);
}

} // namespace
