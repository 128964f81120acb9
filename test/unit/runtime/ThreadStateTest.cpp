//===- ThreadStateTest.cpp - the thread state block's fast paths -----------===//
//
// A dropped release looks at the event queue's length only once in
// DroppedReleasesPerQueueCheck of its thread's (ThreadState.h), where it
// looked every time before: the test plays a thread's dropped releases
// through the countdown and through the slow path it fronts (a look at every
// release) and checks that every run of DroppedReleasesPerQueueCheck
// consecutive dropped releases holds exactly one look, from the thread's
// first, so that a long queue is drained at most that many releases later.
//
//===----------------------------------------------------------------------===//
#include "intercept/ThreadState.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {
namespace {

using detail::DroppedReleasesPerQueueCheck;

TEST(ThreadStateTest, ADroppedReleaseLooksAtTheQueueOnceInEveryRun) {
  detail::ThreadState T; // a fresh thread's state
  constexpr std::uint32_t Releases = 100 * DroppedReleasesPerQueueCheck + 17;
  std::vector<std::uint32_t> Looks;
  for (std::uint32_t I = 0; I < Releases; ++I) {
    // The slow path looked at every release; the fast path must look at
    // the one that ends each run.
    if (detail::droppedReleaseChecksQueue(T))
      Looks.push_back(I);
  }
  ASSERT_EQ(Looks.size(), Releases / DroppedReleasesPerQueueCheck);
  for (std::size_t K = 0; K < Looks.size(); ++K)
    EXPECT_EQ(Looks[K], (K + 1) * DroppedReleasesPerQueueCheck - 1) << "look " << K;
}

TEST(ThreadStateTest, TheThreadLocalBlockStartsCounting) {
  // The runtime's thread-local block is constant-initialized with the same
  // countdown as a fresh state: its first look comes within one run.
  detail::ThreadState &T = detail::ThisThreadState;
  std::uint32_t Until = 0;
  while (!detail::droppedReleaseChecksQueue(T))
    ASSERT_LT(++Until, DroppedReleasesPerQueueCheck);
}

TEST(ThreadStateTest, TheScalarsEveryEventReadsShareTheFirstLine) {
  // The depth, the number, the word and the countdown, then the filter
  // (32-byte aligned, for its cache's entries), whose scalars come first and
  // take 24 bytes (RedundantSyncFilter.h).
  detail::ThreadState T;
  EXPECT_EQ(alignof(detail::ThreadState), 64u);
  EXPECT_LE(reinterpret_cast<const char *>(&T.Filter) - reinterpret_cast<const char *>(&T), 32);
}

} // namespace
} // namespace rt
} // namespace streamlife
