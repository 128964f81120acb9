//===- ConcurrencyTest.cpp - host threads calling the engine at once ------===//
//
// The intercept layer calls the engine from every thread of the program. Each
// thread here runs its own pipeline on its own streams and blocks, so the
// findings are the same whatever the interleaving: the engine's lock must keep
// every per-thread verdict intact (and nothing may crash).
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include <thread>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

constexpr unsigned Threads = 4;
constexpr unsigned Steps = 2000;

class ConcurrencyTest : public EngineTest {
protected:
  /// One thread's pipeline; Buggy releases without waiting for the consumer.
  void pipeline(ThreadId T, bool Buggy) {
    StreamId A = stream(0x100 + T * 2, StreamFlavor::NonBlocking, 0, T);
    StreamId B = stream(0x101 + T * 2, StreamFlavor::NonBlocking, 0, T);
    Range X{Block.Begin + T * 0x1000000, 4096};
    Handle Produced = 0x500 + T * 2, Consumed = 0x501 + T * 2;
    for (unsigned I = 0; I < Steps; ++I) {
      E->allocated(T, X, AllocKind::CachingAllocator, A, AllocSite, 0);
      E->launched(T, A, {X}, ProducerKernel);
      E->eventRecorded(T, Produced, A);
      E->streamWaitsEvent(T, B, Produced);
      E->launched(T, B, {X}, ConsumerKernel);
      if (!Buggy) {
        E->eventRecorded(T, Consumed, B);
        E->streamWaitsEvent(T, A, Consumed);
      }
      E->released(T, X.Begin, ReleaseKind::CachingAllocator, A, FreeSite);
    }
  }
};

TEST_F(ConcurrencyTest, UnsafeFreeAndReuseRaceCountsDoNotDependOnThreadInterleaving) {
  std::vector<std::thread> Workers;
  for (ThreadId T = 0; T < Threads; ++T)
    Workers.emplace_back([this, T] { pipeline(T, /*Buggy=*/T % 2 == 1); });
  for (std::thread &W : Workers)
    W.join();
  const std::size_t BuggyThreads = Threads / 2;
  // Each buggy release is judged at the thread's next allocation on A; the
  // last one has none, so it is counted, not reported.
  EXPECT_EQ(count(FindingKind::UnsafeFree), BuggyThreads * (Steps - 1));
  EXPECT_EQ(E->stats().DeferredPending, BuggyThreads);
  EXPECT_EQ(count(FindingKind::ReuseRace), BuggyThreads * (Steps - 1));
  EXPECT_EQ(count(FindingKind::UseAfterFree), 0u);
  EXPECT_EQ(E->stats().Streams, 2u * Threads);
  EXPECT_EQ(E->stats().Findings, total());
}

TEST_F(ConcurrencyTest, IsTrackedIsSafeWhileAnotherThreadAllocatesAndFrees) {
  std::thread Writer([this] { pipeline(0, /*Buggy=*/false); });
  std::size_t Hits = 0;
  for (unsigned I = 0; I < 100000; ++I)
    Hits += E->isTracked(Block.Begin + (I % 4096));
  Writer.join();
  EXPECT_TRUE(E->isTracked(Block.Begin)); // released but remembered
  EXPECT_FALSE(E->isTracked(Block.Begin - 1));
  (void)Hits;
}

} // namespace
