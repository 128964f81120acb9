//===--- WordingTest.cpp - streamlife -------------------------------------===//
//
// The findings' sentences (Wording.h) and the rule catalog (Rules.h), on IR
// programs: what both front ends print, tested once.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
#include "Wording.h"
#include "gtest/gtest.h"
#include <set>

namespace streamlife {
namespace core {
namespace test {
namespace {

std::vector<std::string> texts(const Story &S) {
  std::vector<std::string> Out;
  for (const StoryNote &N : S.Notes)
    Out.push_back(N.Text);
  return Out;
}

TEST(WordingTest, FreeBeforeWaitTellsAllocationUseAndAdvice) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  SiteId Alloc = F.alloc("p", "ag");
  SiteId Use = F.use("p", "compute");
  SiteId Free = F.release("p", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  Story S = tell(P.module(), R.FreeBeforeWait[0]);
  EXPECT_EQ(S.Id, Rule::FreeBeforeWait);
  EXPECT_EQ(S.Site, Free);
  EXPECT_EQ(S.Message,
            "'p' is released on stream 'ag' while stream 'compute' may still "
            "use it");
  EXPECT_EQ(texts(S),
            (std::vector<std::string>{
                "'p' allocated on stream 'ag' here", "used on stream 'compute' here",
                "record an event on 'compute' after this use and make 'ag' wait "
                "on it before the release"}));
  EXPECT_EQ(S.Notes[0].Site, Alloc);
  EXPECT_EQ(S.Notes[1].Site, Use);
  EXPECT_FALSE(S.Notes[1].IsAdvice);
  EXPECT_TRUE(S.Notes[2].IsAdvice);
  // No wait after the release: nothing to move, no fix.
  EXPECT_TRUE(S.FixNote.empty());
}

TEST(WordingTest, ALateWaitIsToldAndHasAFix) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "e"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.release("p", "ag");
  F.record("e", "compute");
  SiteId Late = F.wait("ag", "e");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  Story S = tell(P.module(), R.FreeBeforeWait[0]);
  ASSERT_EQ(S.Notes.size(), 4u);
  EXPECT_EQ(S.Notes[2].Site, Late);
  EXPECT_EQ(S.Notes[2].Text, "stream 'ag' waits for 'compute' only after the release");
  EXPECT_EQ(S.FixNote, "fix: move the release after this wait");
}

TEST(WordingTest, TheUnnamedCurrentStreamIsTheCurrentStream) {
  Program P;
  auto &F = P.function("f", {std::string(UnnamedCurrentStream), "side"});
  F.alloc("p", std::string(UnnamedCurrentStream));
  F.use("p", "side");
  F.release("p", std::string(UnnamedCurrentStream));
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  Story S = tell(P.module(), R.FreeBeforeWait[0]);
  EXPECT_EQ(S.Message,
            "'p' is released on the current stream while stream 'side' may "
            "still use it");
  EXPECT_EQ(S.Notes.back().Text,
            "record an event on 'side' after this use and make the current "
            "stream wait on it before the release");
}

TEST(WordingTest, AStaleEventTellsTheRacingReleaseAfterTheAdvice) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  F.alloc("p", "ag");
  SiteId Record = F.record("done", "compute");
  SiteId Use = F.use("p", "compute");
  SiteId Wait = F.wait("ag", "done");
  SiteId Free = F.release("p", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.MissingConsumerEvent.size(), 1u);
  Story S = tell(P.module(), R.MissingConsumerEvent[0]);
  EXPECT_EQ(S.Id, Rule::MissingConsumerEvent);
  EXPECT_EQ(S.Site, Wait);
  EXPECT_EQ(S.Message, "stream 'ag' waits on event 'done' recorded on 'compute' "
                       "before its last use of 'p'");
  EXPECT_EQ(texts(S),
            (std::vector<std::string>{
                "event 'done' recorded here", "last use on stream 'compute' here",
                "record the event on 'compute' after this use, then make 'ag' "
                "wait on it",
                "'p' released on stream 'ag' here while stream 'compute' may "
                "still use it"}));
  EXPECT_EQ(S.Notes[0].Site, Record);
  EXPECT_EQ(S.Notes[1].Site, Use);
  EXPECT_TRUE(S.Notes[2].IsAdvice);
  EXPECT_EQ(S.Notes[3].Site, Free);
  EXPECT_EQ(S.FixNote, "fix: move the record after this statement");
}

TEST(WordingTest, UseBeforeAllocAdvisesAnEventAfterTheAllocation) {
  Program P;
  auto &F = P.function("f", {"ag", "side"});
  F.alloc("p", "ag");
  SiteId Use = F.use("p", "side");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.UseBeforeAlloc.size(), 1u);
  Story S = tell(P.module(), R.UseBeforeAlloc[0]);
  EXPECT_EQ(S.Id, Rule::UseBeforeAlloc);
  EXPECT_EQ(S.Site, Use);
  EXPECT_EQ(S.Message, "'p' is used on stream 'side' before 'side' is ordered "
                       "after its allocation on stream 'ag'");
  EXPECT_EQ(S.Notes.back().Text,
            "record an event on 'ag' after the allocation and make 'side' wait "
            "on it before this use");
}

TEST(WordingTest, RecordStreamInLoopNamesTheBuffer) {
  RecordStreamInLoopWords W = recordStreamInLoop("params[i]");
  EXPECT_EQ(W.Message.rfind("record_stream on 'params[i]' inside a loop", 0), 0u);
  EXPECT_EQ(W.LoopNote, "inside this loop");
  EXPECT_NE(W.Advice.find("keep 'params[i]' with an event"), std::string::npos);
}

TEST(WordingTest, RecordStreamReachedThroughCallsNamesTheRecorderAndTheCallee) {
  RecordStreamInLoopWords Direct = recordStreamInLoop("t");
  RecordStreamInLoopWords One =
      recordStreamInLoopThroughCall("t", "keep", "keep");
  EXPECT_EQ(One.Message.rfind("record_stream on 't' in 'keep', called inside a "
                              "loop, hands buffer reuse",
                              0),
            0u);
  RecordStreamInLoopWords Two =
      recordStreamInLoopThroughCall("t", "keep", "Group.transfer");
  EXPECT_EQ(Two.Message.rfind("record_stream on 't' in 'keep', reached from a "
                              "call of 'Group.transfer' inside a loop, hands",
                              0),
            0u);
  // The rest of the sentence, the loop note and the advice are the direct
  // finding's.
  llvm::StringRef Tail = " hands buffer reuse";
  EXPECT_EQ(One.Message.substr(One.Message.find(Tail.str())),
            Direct.Message.substr(Direct.Message.find(Tail.str())));
  EXPECT_EQ(Two.LoopNote, Direct.LoopNote);
  EXPECT_EQ(Two.Advice, Direct.Advice);
  EXPECT_EQ(recordStreamCalledHere("keep", "t"),
            "'keep' calls record_stream on 't' here");
  EXPECT_EQ(callsHere("Group.transfer", "keep"),
            "'Group.transfer' calls 'keep' here");
}

TEST(RulesTest, TheCatalogIsOneRowPerRule) {
  std::set<std::string> Names;
  for (const RuleInfo &Info : rules()) {
    EXPECT_EQ(&ruleInfo(Info.Id), &Info);
    EXPECT_TRUE(Names.insert(Info.Name.str()).second) << Info.Name.str();
    EXPECT_EQ(Info.Name.substr(0, 11), "streamlife-");
    EXPECT_FALSE(Info.Summary.empty());
    EXPECT_FALSE(Info.Description.empty());
    EXPECT_EQ(ruleNamed(Info.Name), Info.Id);
  }
  EXPECT_EQ(Names.size(), 4u);
  EXPECT_EQ(ruleName(Rule::UseBeforeAlloc), "streamlife-use-before-alloc");
  EXPECT_FALSE(ruleNamed("clang-diagnostic-error"));
}

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
