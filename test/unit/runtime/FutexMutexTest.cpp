//===- FutexMutexTest.cpp - the block-event queue's lock ------------------===//
#include "engine/FutexMutex.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace streamlife::rt;

namespace {

// Contended often enough that every path runs (the spin, the sleep, the
// wake): a lost update or a sleeper never woken fails or hangs the test.
TEST(FutexMutexTest, ExcludesAcrossThreadsAndWakesSleepers) {
  FutexMutex M;
  long Counter = 0;
  constexpr int Threads = 4, Rounds = 20000;
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&] {
      for (int I = 0; I < Rounds; ++I) {
        std::lock_guard<FutexMutex> Guard(M);
        long Seen = Counter;
        if (I % 1000 == 0)
          std::this_thread::yield(); // preempted inside: the others sleep
        Counter = Seen + 1;
      }
    });
  for (std::thread &W : Workers)
    W.join();
  EXPECT_EQ(Counter, long(Threads) * Rounds);
}

TEST(FutexMutexTest, LockWaitsForTheHolder) {
  FutexMutex M;
  std::atomic<bool> Entered{false};
  M.lock();
  std::thread Other([&] {
    std::lock_guard<FutexMutex> Guard(M);
    Entered.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Entered.load());
  M.unlock();
  Other.join();
  EXPECT_TRUE(Entered.load());
}

} // namespace
