//===- ReplayThreadTest.cpp - the replay thread's batching rule -----------===//
#include "intercept/ReplayThread.h"

#include <gtest/gtest.h>

#include <vector>

using namespace streamlife::rt;

namespace {

/// Plays the rule against a queue that gains Arrivals[I] events before look I,
/// as the thread's loop does (a replay empties the queue and forgets what the
/// last look saw); returns the batch sizes replayed, in order.
std::vector<std::size_t> batchesOf(const std::vector<std::size_t> &Arrivals, std::size_t WakeAt) {
  std::vector<std::size_t> Batches;
  std::size_t Pending = 0, SeenLastLook = 0;
  for (std::size_t Arrived : Arrivals) {
    Pending += Arrived;
    switch (afterLook(Pending, SeenLastLook, WakeAt)) {
    case ReplayLook::Replay:
      Batches.push_back(Pending);
      Pending = 0;
      SeenLastLook = 0;
      break;
    case ReplayLook::LookSoon:
      SeenLastLook = Pending;
      break;
    case ReplayLook::Idle:
      break;
    }
  }
  return Batches;
}

TEST(ReplayThreadTest, AnEmptyQueueIsIdle) {
  EXPECT_EQ(afterLook(0, 0, 32), ReplayLook::Idle);
  EXPECT_EQ(afterLook(0, 5, 32), ReplayLook::Idle);
}

TEST(ReplayThreadTest, AGrowingQueueBelowTheWakeCountIsLeftToGrow) {
  EXPECT_EQ(afterLook(1, 0, 32), ReplayLook::LookSoon);
  EXPECT_EQ(afterLook(7, 3, 32), ReplayLook::LookSoon);
  EXPECT_EQ(afterLook(31, 30, 32), ReplayLook::LookSoon);
}

TEST(ReplayThreadTest, AQueueAtTheWakeCountOrNoLongerGrowingIsReplayed) {
  EXPECT_EQ(afterLook(32, 31, 32), ReplayLook::Replay);
  EXPECT_EQ(afterLook(500, 0, 32), ReplayLook::Replay);
  EXPECT_EQ(afterLook(7, 7, 32), ReplayLook::Replay);
}

// A launch-bound loop queues an event between every two looks: the thread
// takes them WakeAt at a time, not one by one (which is what moved every
// event's cache lines between the two cores).
TEST(ReplayThreadTest, ASteadyStreamIsReplayedInBatchesOfTheWakeCount) {
  std::vector<std::size_t> Arrivals(32 * 10, 1);
  std::vector<std::size_t> Batches = batchesOf(Arrivals, 32);
  ASSERT_EQ(Batches.size(), 10u);
  for (std::size_t Batch : Batches)
    EXPECT_EQ(Batch, 32u);
}

// A burst's rest is replayed at the first look that finds it over, not left
// for the program's next call that needs the engine.
TEST(ReplayThreadTest, ABurstIsReplayedOnceItStops) {
  std::vector<std::size_t> Batches = batchesOf({2, 3, 1, 0, 0, 4, 0, 0}, 32);
  EXPECT_EQ(Batches, (std::vector<std::size_t>{6, 4}));
}

// replay_thread_wake=1 (test/cli/run-deferred-ops.test): every event is
// replayed at the look that finds it.
TEST(ReplayThreadTest, AWakeCountOfOneReplaysEveryLookThatFindsEvents) {
  std::vector<std::size_t> Batches = batchesOf({1, 2, 0, 1}, 1);
  EXPECT_EQ(Batches, (std::vector<std::size_t>{1, 2, 1}));
}

} // namespace
