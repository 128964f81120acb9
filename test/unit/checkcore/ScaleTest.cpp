//===--- ScaleTest.cpp - streamlife ---------------------------------------===//
//
// Inputs that broke part 1 (reliability sweep 1e): deep call chains must not
// recurse on the native stack; many branches on one buffer must stay cheap.
// Timing goals live in bench/checker; these only check the answers.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
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

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
