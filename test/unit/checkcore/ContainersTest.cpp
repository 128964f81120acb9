//===--- ContainersTest.cpp - streamlife ----------------------------------===//
//
// Container entries (a deque of in-flight buffers): an entry lives until it
// is taken out; taking the oldest entry and dropping it is its release, so
// the allocation stream must wait on the entry's consumer before the pop.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace test {
namespace {

// for ...: [if full: pop the oldest]; w = alloc on ag; use on compute;
// q.append(w); del w.
void queueLoop(FunctionBuilder &F, bool WaitBeforePop, SiteId &Pop) {
  F.loop([&] {
    F.branch([&] {
      if (WaitBeforePop) {
        F.wait("ag", "done");
        Pop = F.take("oldest", "q");
        F.kill("oldest");
      } else {
        Pop = F.take("oldest", "q");
        F.kill("oldest");
        F.wait("ag", "done");
      }
    });
    F.alloc("w", "ag", Ownership::Owned);
    F.use("w", "compute");
    F.record("done", "compute");
    F.store("q", "w");
    F.kill("w");
  });
}

TEST(ContainersTest, AnEntryLivesUntilItIsTakenOut) {
  // Dropping the name of a stored tensor releases nothing: the queue holds it.
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("w", "ag", Ownership::Owned);
  F.use("w", "compute");
  F.store("q", "w");
  F.kill("w");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ContainersTest, PopBeforeWaitIsFlaggedAtThePop) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  SiteId Pop = 0;
  queueLoop(F, /*WaitBeforePop=*/false, Pop);
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  // The release is the kill of the popped temporary, right after the pop.
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Pop + 1);
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].Uses[0].Stream.Name), "compute");
}

TEST(ContainersTest, WaitThenPopIsClean) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  SiteId Pop = 0;
  queueLoop(F, /*WaitBeforePop=*/true, Pop);
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ContainersTest, PopTakesTheOldestEntryNotTheNewest) {
  // Two generations in the queue; the newest is still in use on compute with
  // no wait, the oldest was waited for: popping the oldest is clean, popping
  // the newest (LIFO) is the bug.
  for (bool Oldest : {true, false}) {
    Program P;
    auto &F = P.function("f", {"ag", "compute", "done"});
    F.loop([&] {
      F.alloc("w", "ag", Ownership::Owned);
      F.use("w", "compute");
      F.store("q", "w");
      F.kill("w");
    });
    F.record("done", "compute"); // covers every use so far
    F.wait("ag", "done");
    F.alloc("w", "ag", Ownership::Owned);
    F.use("w", "compute");       // not waited for
    F.store("q", "w");
    F.kill("w");
    F.take("x", "q", Oldest);
    F.kill("x");
    EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), Oldest ? 0u : 1u)
        << (Oldest ? "popleft" : "pop");
  }
}

TEST(ContainersTest, EntriesAreNotReleasedWhenTheirNameIsRebound) {
  // Rebinding the loop variable is not a release of the stored tensor.
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.loop([&] {
    F.alloc("w", "ag", Ownership::Owned);
    F.use("w", "compute");
    F.store("q", "w");
  });
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
