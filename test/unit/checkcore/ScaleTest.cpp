//===--- ScaleTest.cpp - streamlife ---------------------------------------===//
//
// Inputs that broke part 1 (reliability sweep 1e): deep call chains must not
// recurse on the native stack; many branches on one buffer must stay cheap.
// Timing goals live in bench/checker; these only check the answers.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
#include "UseGroups.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace test {
namespace {

// h0 -> h1 -> ... -> hN, the last one launching; callers built first (so a
// recursive summariser would descend N frames deep).
TEST(ScaleTest, DeepCallChainDoesNotOverflow) {
  constexpr int Depth = 50000;
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  std::vector<FunctionBuilder *> Chain;
  for (int I = 0; I < Depth; ++I)
    Chain.push_back(&P.function("h" + std::to_string(I), {"data", "s"}));
  for (int I = 0; I + 1 < Depth; ++I)
    Chain[I]->call(*Chain[I + 1], {"data", "s"});
  Chain.back()->use("data", "s");
  F.alloc("buf", "ag");
  F.call(*Chain[0], {"buf", "compute"});
  F.release("buf", "ag");
  EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), 1u);
}

TEST(ScaleTest, ManyBranchesOnOneBuffer) {
  constexpr int Branches = 4000;
  Program P;
  auto &F = P.function("f", {"a", "b", "e"});
  F.alloc("p", "a");
  F.record("e", "a");
  F.wait("b", "e");
  for (int I = 0; I < Branches; ++I)
    F.branch([&] { F.use("p", "b"); });
  F.record("e", "b");
  F.wait("a", "e");
  F.release("p", "a");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(ScaleTest, ManyBranchesOnOneBufferBuggy) {
  constexpr int Branches = 2000;
  Program P;
  auto &F = P.function("f", {"a", "b"});
  F.alloc("p", "a");
  for (int I = 0; I < Branches; ++I)
    F.branch([&] { F.use("p", "b"); });
  F.release("p", "a");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses.size(), static_cast<size_t>(Branches));
}

/// The use groups of \p Buffer's objects in \p F's exit state.
size_t useGroupsAtExit(Program &P, FunctionBuilder &F, const std::string &Buffer) {
  const LifetimeState *Exit = P.exitState(F);
  if (!Exit)
    return ~size_t(0);
  size_t Groups = 0;
  auto Held = Exit->Names.find(F.name(Buffer));
  if (Held == Exit->Names.end())
    return 0;
  for (ObjectId Id : Held->second)
    if (auto Object = Exit->Objects.find(Id); Object != Exit->Objects.end())
      Groups += Object->second.Uses.size();
  return Groups;
}

// N x `if (c) use(p, b); else { record(e, b); wait(a, e); }`: each else
// waits at its own site, which part 1 kept apart, one group per wait site:
// N groups per state, memory quadratic in N (reliability sweep #117, 475 MB
// at N = 1000). The groups are keyed by ordering now: two at the exit (the
// uses not yet waited for, and those waited for on some path).
TEST(ScaleTest, IfElseBranchesKeepFewGroups) {
  constexpr int Branches = 4000;
  Program P;
  auto &F = P.function("f", {"a", "b", "e"});
  F.alloc("p", "a");
  F.record("e", "a");
  F.wait("b", "e");
  SiteId LastUse = NoId;
  for (int I = 0; I < Branches; ++I)
    F.branch([&] { LastUse = F.use("p", "b"); },
             [&] {
               F.record("e", "b");
               F.wait("a", "e");
             });
  const auto &R = P.findings(F);
  EXPECT_TRUE(R.Limits.empty());
  EXPECT_LE(useGroupsAtExit(P, F, "p"), 2u);

  // The same with the release at the end: one warning naming every use,
  // the last one included.
  Program Q;
  auto &G = Q.function("g", {"a", "b", "e"});
  G.alloc("p", "a");
  G.record("e", "a");
  G.wait("b", "e");
  for (int I = 0; I < Branches; ++I)
    G.branch([&] { LastUse = G.use("p", "b"); },
             [&] {
               G.record("e", "b");
               G.wait("a", "e");
             });
  G.release("p", "a");
  const auto &RG = Q.findings(G);
  ASSERT_EQ(RG.FreeBeforeWait.size(), 1u);
  ASSERT_EQ(RG.FreeBeforeWait[0].Uses.size(), static_cast<size_t>(Branches));
  EXPECT_EQ(RG.FreeBeforeWait[0].Uses.back().Site, LastUse);
}

// N x `if (c) use(p, b); else record(eI, b);` with a distinct event per
// branch: keyed by ordering alone the groups would double per branch (every
// subset of the events); a group whose sites are all in a weaker group is
// dropped, so one stays, and the finding is unchanged.
TEST(ScaleTest, DistinctEventsPerBranchStayLinear) {
  constexpr int Branches = 200;
  Program P;
  auto &F = P.function("f", {"a", "b"});
  F.alloc("p", "a");
  F.use("p", "b");
  for (int I = 0; I < Branches; ++I)
    F.branch([&] { F.use("p", "b"); },
             [&] { F.record("e" + std::to_string(I), "b"); });
  const auto &R = P.findings(F);
  EXPECT_TRUE(R.Limits.empty());
  EXPECT_EQ(useGroupsAtExit(P, F, "p"), 1u);
}

// Straight-line uses each followed by their own event make incomparable
// groups (u1 covered by e1..eN, u2 by e2..eN, ...): past the bound they are
// met into one and the function gets a note; the uses are all still
// pending, so the release without a wait is still reported.
TEST(ScaleTest, GroupBoundIsSaidInANote) {
  Program P;
  auto &F = P.function("f", {"a", "b"});
  F.alloc("p", "a");
  int Uses = static_cast<int>(MaxUseGroupsPerStream) + 1;
  for (int I = 0; I < Uses; ++I) {
    F.use("p", "b");
    F.record("e" + std::to_string(I), "b");
  }
  F.release("p", "a");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.Limits.size(), 1u);
  EXPECT_NE(R.Limits[0].Message.find("may be false alarms"), std::string::npos);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses.size(), static_cast<size_t>(Uses));

  // Within the bound: no note.
  Program Q;
  auto &G = Q.function("g", {"a", "b"});
  G.alloc("p", "a");
  for (int I = 0; I + 1 < Uses; ++I) {
    G.use("p", "b");
    G.record("e" + std::to_string(I), "b");
  }
  G.release("p", "a");
  EXPECT_TRUE(Q.findings(G).Limits.empty());
}

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
