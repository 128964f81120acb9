//===- KeptLockCallersTest.cpp - intercept_stats' kept lock events by caller ===//
#include "intercept/KeptLockCallers.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <memory>
#include <thread>
#include <vector>

using namespace streamlife::rt;

namespace {

/// An address inside libc's qsort: dladdr names it "qsort (libc.so.6)".
const char *insideQsort(int Offset) {
  void *Qsort = dlsym(RTLD_DEFAULT, "qsort");
  EXPECT_NE(Qsort, nullptr);
  return static_cast<const char *>(Qsort) + Offset;
}

/// An address no object maps: dladdr knows nothing of it.
const void *unmapped(std::uintptr_t I) { return reinterpret_cast<const void *>(0x10 + I * 16); }

} // namespace

TEST(KeptLockCallersTest, OneFunctionsCallSitesAreMergedAndTheMostComeFirst) {
  auto Callers = std::make_unique<KeptLockCallers>();
  for (int I = 0; I < 3; ++I)
    Callers->count(insideQsort(1));
  for (int I = 0; I < 4; ++I)
    Callers->count(insideQsort(2));
  for (int I = 0; I < 5; ++I)
    Callers->count(unmapped(1));
  std::vector<KeptLockCallers::Named> Most = Callers->mostKept(6);
  ASSERT_EQ(Most.size(), 2u);
  EXPECT_EQ(Most[0].Where, "qsort (libc.so.6)");
  EXPECT_EQ(Most[0].Events, 7u);
  EXPECT_EQ(Most[1].Where, "0x20");
  EXPECT_EQ(Most[1].Events, 5u);
  EXPECT_EQ(keptLockCallersText(Most), "7 qsort (libc.so.6), 5 0x20");
}

TEST(KeptLockCallersTest, AtMostMostAreNamed) {
  auto Callers = std::make_unique<KeptLockCallers>();
  for (std::uintptr_t I = 0; I < 10; ++I)
    for (std::uintptr_t N = 0; N <= I; ++N)
      Callers->count(unmapped(I));
  std::vector<KeptLockCallers::Named> Most = Callers->mostKept(3);
  ASSERT_EQ(Most.size(), 3u);
  EXPECT_EQ(Most[0].Events, 10u);
  EXPECT_EQ(Most[1].Events, 9u);
  EXPECT_EQ(Most[2].Events, 8u);
}

TEST(KeptLockCallersTest, CallersBeyondTheTableAreCountedTogether) {
  auto Callers = std::make_unique<KeptLockCallers>();
  const std::size_t Extra = 10;
  for (std::uintptr_t I = 0; I < KeptLockCallers::Capacity + Extra; ++I)
    Callers->count(unmapped(I));
  std::vector<KeptLockCallers::Named> Most = Callers->mostKept(KeptLockCallers::Capacity + Extra);
  ASSERT_EQ(Most.size(), KeptLockCallers::Capacity + 1);
  EXPECT_EQ(Most.back().Where, "other callers");
  EXPECT_EQ(Most.back().Events, Extra);
  // A caller already placed is still counted in its own slot once the table is full.
  Callers->count(unmapped(0));
  std::uint64_t Total = 0;
  for (const KeptLockCallers::Named &N : Callers->mostKept(KeptLockCallers::Capacity + Extra))
    Total += N.Events;
  EXPECT_EQ(Total, KeptLockCallers::Capacity + Extra + 1);
}

TEST(KeptLockCallersTest, ThreadsCountingAtOnceLoseNoEvent) {
  auto Callers = std::make_unique<KeptLockCallers>();
  const int Threads = 4, Each = 20000;
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&] {
      for (int I = 0; I < Each; ++I)
        Callers->count(unmapped(static_cast<std::uintptr_t>(I % 3)));
    });
  for (std::thread &W : Workers)
    W.join();
  std::uint64_t Total = 0;
  std::vector<KeptLockCallers::Named> Most = Callers->mostKept(10);
  EXPECT_EQ(Most.size(), 3u);
  for (const KeptLockCallers::Named &N : Most)
    Total += N.Events;
  EXPECT_EQ(Total, std::uint64_t(Threads) * Each);
}

TEST(KeptLockCallersTest, CountIfHeldCountsOnlyCallersCountedBefore) {
  // The set of private-function callers that intercept_stats counts
  // (CallerLibraries.h): a caller never counted is not added, one counted
  // before is counted again, as count() would; collisions of the open
  // addressing are walked past.
  auto Callers = std::make_unique<KeptLockCallers>();
  EXPECT_FALSE(Callers->countIfHeld(unmapped(1)));
  EXPECT_TRUE(Callers->mostKept(6).empty());
  for (std::uintptr_t I = 0; I < 2 * KeptLockCallers::Capacity / 3; ++I)
    Callers->count(unmapped(I));
  for (std::uintptr_t I = 0; I < 2 * KeptLockCallers::Capacity / 3; ++I)
    EXPECT_TRUE(Callers->countIfHeld(unmapped(I))) << I;
  EXPECT_FALSE(Callers->countIfHeld(unmapped(KeptLockCallers::Capacity)));
  std::vector<KeptLockCallers::Named> Most = Callers->mostKept(KeptLockCallers::Capacity);
  ASSERT_EQ(Most.size(), 2 * KeptLockCallers::Capacity / 3);
  for (const KeptLockCallers::Named &N : Most)
    EXPECT_EQ(N.Events, 2u) << N.Where;
}
