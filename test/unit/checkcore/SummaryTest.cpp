//===--- SummaryTest.cpp - streamlife -------------------------------------===//
//
// Summaries: the callee's exit state projected onto the caller.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace test {
namespace {

TEST(SummaryTest, HelperUseIsAUseAtTheCall) {
  Program P;
  auto &Launch = P.function("launchOn", {"data", "stream"});
  Launch.use("data", "stream");
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("buf", "ag");
  SiteId Call = F.call(Launch, {"buf", "compute"});
  F.release("buf", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses[0].Site, Call);
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].Uses[0].Stream.Name), "compute");
}

TEST(SummaryTest, HelperReleaseIsCheckedAtTheCall) {
  Program P;
  auto &Release = P.function("release", {"data", "stream"});
  Release.release("data", "stream");
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("buf", "ag");
  F.use("buf", "compute");
  SiteId Call = F.call(Release, {"buf", "ag"});
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Call);
}

TEST(SummaryTest, HelperHandOffOrdersInTheRightDirectionOnly) {
  for (bool Right : {true, false}) {
    Program P;
    auto &HandOff = P.function("handOff", {"from", "to", "event"});
    HandOff.record("event", "from");
    HandOff.wait("to", "event");
    auto &F = P.function("f", {"ag", "compute", "e"});
    F.alloc("buf", "ag");
    F.use("buf", "compute");
    if (Right)
      F.call(HandOff, {"compute", "ag", "e"});
    else
      F.call(HandOff, {"ag", "compute", "e"});
    F.release("buf", "ag");
    EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), Right ? 0u : 1u);
  }
}

TEST(SummaryTest, ConditionalSyncInAHelperIsNotASync) {
  Program P;
  auto &Drain = P.function("maybeDrain", {"s"});
  Drain.branch([&] { Drain.syncStream("s"); });
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("buf", "ag");
  F.use("buf", "compute");
  F.call(Drain, {"compute"});
  F.release("buf", "ag");
  EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), 1u);

  Program Q;
  auto &Always = Q.function("drain", {"s"});
  Always.syncStream("s");
  auto &G = Q.function("g", {"ag", "compute"});
  G.alloc("buf", "ag");
  G.use("buf", "compute");
  G.call(Always, {"compute"});
  G.release("buf", "ag");
  EXPECT_TRUE(Q.findings(G).FreeBeforeWait.empty());
}

TEST(SummaryTest, ReturnedBufferKeepsItsPendingUse) {
  Program P;
  auto &Make = P.function("make", {"ag", "compute"});
  Make.alloc("t", "ag");
  Make.use("t", "compute");
  Make.ret("t");
  auto &F = P.function("f", {"ag", "compute"});
  SiteId Call = F.call(Make, {"ag", "compute"}, "buf");
  SiteId Free = F.release("buf", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Free);
  EXPECT_EQ(R.FreeBeforeWait[0].AllocSite, Call);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses[0].Site, Call);
}

TEST(SummaryTest, OutParameterAllocationAndNestedHelpers) {
  Program P;
  auto &Allocate = P.function("allocate", {"out", "stream"});
  Allocate.alloc("*out", "stream");
  auto &Launch = P.function("launchOn", {"data", "stream"});
  Launch.use("data", "stream");
  auto &Produce = P.function("produce", {"data", "stream"});
  Produce.call(Launch, {"data", "stream"});
  auto &F = P.function("f", {"ag", "compute"});
  SiteId Alloc = F.call(Allocate, {"&buf", "ag"});
  SiteId Use = F.call(Produce, {"buf", "compute"});
  F.release("buf", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].AllocSite, Alloc);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses[0].Site, Use);
}

TEST(SummaryTest, RecursionTerminates) {
  Program P;
  auto &Rec = P.function("recurse", {"data", "stream"});
  Rec.branch([&] { Rec.call(Rec, {"data", "stream"}); });
  Rec.use("data", "stream");
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("buf", "ag");
  F.call(Rec, {"buf", "compute"});
  F.release("buf", "ag");
  EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), 1u);
}

TEST(SummaryTest, SelfContainedHelperSaysNothing) {
  Program P;
  auto &Own = P.function("selfContained");
  Own.createStream("own", false);
  Own.alloc("scratch", "own");
  Own.use("scratch", "own");
  Own.release("scratch", "own");
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("buf", "ag");
  F.call(Own, {});
  F.release("buf", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(SummaryTest, HelperWithLocalEventHandOff) {
  for (bool Right : {true, false}) {
    Program P;
    auto &HandOff = P.function("handOff", {"from", "to"});
    HandOff.record("local", "from");
    HandOff.wait("to", "local");
    auto &F = P.function("f", {"ag", "compute"});
    F.alloc("buf", "ag");
    F.use("buf", "compute");
    F.call(HandOff, Right ? std::vector<std::string>{"compute", "ag"}
                          : std::vector<std::string>{"ag", "compute"});
    F.release("buf", "ag");
    EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), Right ? 0u : 1u);
  }
}

TEST(SummaryTest, EventRecordedByHelperIsRecordedAtTheCall) {
  Program P;
  auto &Rec = P.function("mark", {"e", "s"});
  Rec.record("e", "s");
  auto &F = P.function("f", {"ag", "compute", "e"});
  F.alloc("buf", "ag");
  F.use("buf", "compute");
  F.call(Rec, {"e", "compute"});
  F.wait("ag", "e");
  F.release("buf", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
