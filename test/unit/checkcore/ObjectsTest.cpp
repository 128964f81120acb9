//===--- ObjectsTest.cpp - streamlife -------------------------------------===//
//
// Names and objects: copies share one object, moves transfer it, an owned
// object is released when its last name goes.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace test {
namespace {

TEST(ObjectsTest, CopySharesTheObject) {
  // A use through the copy is seen at the release through the original
  // (part 1 copied the state and missed this).
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("cur", "ag");
  F.bind("keep", "cur");
  SiteId Use = F.use("keep", "compute");
  F.release("cur", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses[0].Site, Use);
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].AllocName), "cur");
}

TEST(ObjectsTest, ReallocationInALoopKeepsTheOlderObject) {
  // prev = cur; cur = alloc: the recency abstraction keeps prev's object
  // (with its pending use) apart from the fresh one.
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("cur", "ag");
  SiteId Free = 0;
  F.loop([&] {
    F.use("cur", "compute");
    F.bind("prev", "cur");
    F.alloc("cur", "ag");
    Free = F.release("prev", "ag");
  });
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Free);
}

TEST(ObjectsTest, OwnedObjectIsReleasedAtItsLastOwner) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("t", "ag", Ownership::Owned);
  F.bind("keep", "t");
  F.use("t", "compute");
  F.kill("t"); // keep still owns it: no release
  SiteId Last = F.kill("keep");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Last);
  EXPECT_TRUE(R.FreeBeforeWait[0].ByLastOwner);
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].ReleaseStream.Name), "ag");
}

TEST(ObjectsTest, RawObjectIsNotReleasedByScopeExit) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.kill("p");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ObjectsTest, ReassignmentReleasesTheOldOwnedObject) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("w", "ag", Ownership::Owned);
  F.use("w", "compute");
  SiteId Realloc = F.alloc("w", "ag", Ownership::Owned);
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Realloc);
}

TEST(ObjectsTest, MoveTransfersWithoutRelease) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "e"});
  F.alloc("a", "ag", Ownership::Owned);
  F.use("a", "compute");
  F.move("b", "a");
  F.kill("a"); // moved from: nothing to release
  F.record("e", "compute");
  F.wait("ag", "e");
  F.kill("b");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ObjectsTest, SetReleaseStreamMovesTheRelease) {
  Program P;
  auto &F = P.function("f", {"side", "main"});
  F.alloc("buf", "side", Ownership::Owned);
  F.use("buf", "main");
  F.setReleaseStream("buf", "main");
  F.kill("buf");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ObjectsTest, EscapedObjectsAreNotJudged) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.escape("p");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

// for ...: cur = alloc on ag; use on compute; done = record on compute;
// if (keep.defined()) ag waits on done [else: keep holds nothing];
// keep = cur (the old keepalive is released on ag).
void guardedKeepalive(FunctionBuilder &F, bool Forget) {
  F.loop([&] {
    F.alloc("cur", "ag", Ownership::Owned);
    F.use("cur", "compute");
    F.branch([&] { F.wait("ag", "done"); },
             [&] {
               if (Forget)
                 F.forget("keep");
             });
    F.record("done", "compute");
    F.bind("keep", "cur");
    F.kill("cur");
  });
}

TEST(ObjectsTest, ForgottenNamesReleaseNothing) {
  // The branch where the keepalive is undefined waits on nothing, and on
  // that path it holds nothing either: no release races there.
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  guardedKeepalive(F, /*Forget=*/true);
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
  // Without the refinement the join of the loop says the keepalive may
  // hold the previous object on the unwaited path.
  Program Q;
  auto &G = Q.function("f", {"ag", "compute", "done"});
  guardedKeepalive(G, /*Forget=*/false);
  EXPECT_EQ(Q.findings(G).FreeBeforeWait.size(), 1u);
}

TEST(ObjectsTest, ForgetReleasesNothingAndKeepsOtherNamesChecked) {
  // Forgetting one name of an object releases nothing ...
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag", Ownership::Owned);
  F.bind("q", "p");
  F.use("p", "compute");
  F.forget("p");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
  // ... and its other name still releases it, checked.
  Program Q;
  auto &G = Q.function("f", {"ag", "compute"});
  G.alloc("p", "ag", Ownership::Owned);
  G.bind("q", "p");
  G.use("p", "compute");
  G.forget("p");
  SiteId Kill = G.kill("q");
  const auto &R = Q.findings(G);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Kill);
}

TEST(ObjectsTest, EventCopiesDenoteTheSameRecord) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.record("e", "compute");
  F.bind("e2", "e", ValueKind::Event);
  F.wait("ag", "e2");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ObjectsTest, StreamCopiesDenoteTheSameStream) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.bind("s", "compute", ValueKind::Stream);
  F.alloc("p", "ag");
  F.use("p", "s");
  F.syncStream("compute");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
