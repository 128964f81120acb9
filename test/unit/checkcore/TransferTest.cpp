//===--- TransferTest.cpp - streamlife ------------------------------------===//
//
// Transfer functions, joins and loops on IR programs.
//
//===----------------------------------------------------------------------===//

#include "CoreTestSupport.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace test {
namespace {

TEST(TransferTest, FreeBeforeWaitWarnsWithTheStory) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  SiteId Alloc = F.alloc("p", "ag");
  SiteId Use = F.use("p", "compute");
  SiteId Free = F.release("p", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  const auto &W = R.FreeBeforeWait[0];
  EXPECT_EQ(W.ReleaseSite, Free);
  EXPECT_EQ(P.spelling(W.Buffer), "p");
  EXPECT_EQ(P.spelling(W.ReleaseStream.Name), "ag");
  EXPECT_EQ(W.AllocSite, Alloc);
  ASSERT_EQ(W.Uses.size(), 1u);
  EXPECT_EQ(W.Uses[0].Site, Use);
  EXPECT_EQ(P.spelling(W.Uses[0].Stream.Name), "compute");
  EXPECT_FALSE(W.Uses[0].FromEarlierIteration);
}

TEST(TransferTest, WaitBeforeFreeIsClean) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "e"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.record("e", "compute");
  F.wait("ag", "e");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(TransferTest, WaitOnTheWrongStreamStillWarns) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "other", "e"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.record("e", "compute");
  SiteId Wait = F.wait("other", "e");
  F.release("p", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  ASSERT_EQ(R.FreeBeforeWait[0].Uses[0].WrongStreamWaits.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses[0].WrongStreamWaits[0].first, Wait);
}

TEST(TransferTest, SyncsOrderTheUse) {
  for (int Kind = 0; Kind < 4; ++Kind) {
    Program P;
    auto &F = P.function("f", {"ag", "compute", "e"});
    F.alloc("p", "ag");
    F.use("p", "compute");
    switch (Kind) {
    case 0: F.syncStream("compute"); break;
    case 1: F.syncDevice(); break;
    case 2: F.record("e", "compute"); F.syncEvent("e"); break;
    case 3: F.waitStream("ag", "compute"); break;
    }
    F.release("p", "ag");
    EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty()) << "sync kind " << Kind;
  }
}

TEST(TransferTest, LegacyStreamOrdersBlockingStreamsOnly) {
  Program P;
  auto &F = P.function("f", {"ag"});
  F.createStream("side", /*NonBlocking=*/false);
  F.alloc("p", "ag");
  F.use("p", "side");
  F.use("q", "0"); // any legacy-stream work
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());

  Program Q;
  auto &G = Q.function("g", {"ag"});
  G.createStream("side", /*NonBlocking=*/true);
  G.alloc("p", "ag");
  G.use("p", "side");
  G.use("q", "0");
  G.release("p", "ag");
  EXPECT_EQ(Q.findings(G).FreeBeforeWait.size(), 1u);
}

TEST(TransferTest, UnknownStreamSkipsTheOperation) {
  Program P;
  auto &F = P.function("f", {"ag"});
  F.alloc("p", "ag");
  F.use("p", "?");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(TransferTest, UseBeforeAllocWarnsOncePerStream) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "e"});
  SiteId Alloc = F.alloc("p", "ag");
  SiteId First = F.use("p", "compute");
  F.use("p", "compute");
  F.syncDevice();
  F.release("p", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.UseBeforeAlloc.size(), 1u);
  EXPECT_EQ(R.UseBeforeAlloc[0].UseSite, First);
  EXPECT_EQ(R.UseBeforeAlloc[0].AllocSite, Alloc);

  Program Q;
  auto &G = Q.function("g", {"ag", "compute", "e"});
  G.alloc("p", "ag");
  G.record("e", "ag");
  G.wait("compute", "e");
  G.use("p", "compute");
  EXPECT_TRUE(Q.findings(G).UseBeforeAlloc.empty());
}

TEST(TransferTest, UseOnOneBranchStillWarns) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.branch([&] { F.use("p", "compute"); });
  F.release("p", "ag");
  EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), 1u);
}

TEST(TransferTest, SyncOnOneBranchDoesNotCount) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.branch([&] { F.syncStream("compute"); });
  F.release("p", "ag");
  EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), 1u);

  Program Q;
  auto &G = Q.function("g", {"ag", "compute"});
  G.alloc("p", "ag");
  G.use("p", "compute");
  G.branch([&] { G.syncStream("compute"); }, [&] { G.syncDevice(); });
  G.release("p", "ag");
  EXPECT_TRUE(Q.findings(G).FreeBeforeWait.empty());
}

TEST(TransferTest, UseInAnEarlierIterationIsMarked) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  SiteId Free = 0, Use = 0;
  F.loop([&] {
    Free = F.release("p", "ag");
    F.alloc("p", "ag");
    Use = F.use("p", "compute");
  });
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Free);
  ASSERT_EQ(R.FreeBeforeWait[0].Uses.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].Uses[0].Site, Use);
  EXPECT_TRUE(R.FreeBeforeWait[0].Uses[0].FromEarlierIteration);
}

// Part 1 capped the fixpoint at 32 rounds and lost this finding for nests
// 32 deep or more (reliability sweep #114).
TEST(TransferTest, DeepLoopNestKeepsItsFinding) {
  for (int Depth : {1, 31, 32, 40, 80}) {
    Program P;
    auto &F = P.function("f", {"ag", "compute"});
    F.alloc("p", "ag");
    std::function<void(int)> Nest = [&](int Level) {
      if (Level == 0) {
        F.use("p", "compute");
        return;
      }
      F.loop([&] { Nest(Level - 1); });
    };
    Nest(Depth);
    F.release("p", "ag");
    const auto &R = P.findings(F);
    EXPECT_EQ(R.FreeBeforeWait.size(), 1u) << "depth " << Depth;
    EXPECT_TRUE(R.Limits.empty()) << "depth " << Depth;
  }
}

TEST(TransferTest, HittingTheVisitLimitIsSaid) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.loop([&] { F.loop([&] { F.use("p", "compute"); }); });
  F.release("p", "ag");
  AnalysisOptions Tight;
  Tight.MaxVisitsPerBlock = 1;
  const auto &R = P.findings(F, Tight);
  ASSERT_EQ(R.Limits.size(), 1u);
  EXPECT_NE(R.Limits[0].Message.find("stopped before its fixpoint"),
            std::string::npos);
}

TEST(TransferTest, LateWaitIsNoted) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "e"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.release("p", "ag");
  F.record("e", "compute");
  SiteId Late = F.wait("ag", "e");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  ASSERT_EQ(R.FreeBeforeWait[0].LateWaits.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].LateWaits[0].WaitSite, Late);
}

// One bug, one warning: the stale wait is owned by missing-consumer-event,
// which names the racing release; the release's finding says it is
// explained (the check shell then drops it).
TEST(TransferTest, StaleEventIsOneFinding) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  F.alloc("buf", "ag");
  SiteId Record = F.record("done", "compute");
  SiteId Use = F.use("buf", "compute");
  SiteId Wait = F.wait("ag", "done");
  SiteId Free = F.release("buf", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.MissingConsumerEvent.size(), 1u);
  const auto &Stale = R.MissingConsumerEvent[0];
  EXPECT_EQ(Stale.WaitSite, Wait);
  EXPECT_EQ(Stale.RecordSite, Record);
  EXPECT_EQ(Stale.LastUseSite, Use);
  ASSERT_EQ(Stale.RacingReleases.size(), 1u);
  EXPECT_EQ(Stale.RacingReleases[0].first, Free);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ExplainedByStaleWaits,
            std::vector<SiteId>{Wait});
  ASSERT_EQ(R.FreeBeforeWait[0].Uses[0].StaleWaits.size(), 1u);
}

// A release that races for another reason as well is not explained away.
TEST(TransferTest, StaleEventAndAnotherRaceKeepBothWarnings) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "other", "done"});
  F.alloc("buf", "ag");
  F.record("done", "compute");
  F.use("buf", "compute");
  F.use("buf", "other");
  F.wait("ag", "done");
  F.release("buf", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_TRUE(R.FreeBeforeWait[0].ExplainedByStaleWaits.empty());
  ASSERT_EQ(R.MissingConsumerEvent.size(), 1u);
  // The stale wait still made this release racy for the use on 'compute'.
  EXPECT_EQ(R.MissingConsumerEvent[0].RacingReleases.size(), 1u);
}

// A wait on an older record that guards an older buffer is right, even
// though a newer buffer's use on the consumer comes after that record
// (keepalive with one reused event): no release relies on the stale part.
TEST(TransferTest, StaleWaitWithoutARacingReleaseIsNotReported) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  F.alloc("old", "ag");
  F.use("old", "compute");
  F.record("done", "compute");
  F.alloc("cur", "ag");
  F.use("cur", "compute");
  F.wait("ag", "done"); // covers 'old', not 'cur'
  F.release("old", "ag");
  const auto &R = P.findings(F);
  EXPECT_TRUE(R.MissingConsumerEvent.empty());
  EXPECT_TRUE(R.FreeBeforeWait.empty());
}

// The same, but the newer buffer is released after that wait: the bug,
// told once, at the wait.
TEST(TransferTest, StaleWaitGuardingTheNewerBufferIsReported) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "done"});
  F.alloc("old", "ag");
  F.use("old", "compute");
  F.record("done", "compute");
  F.alloc("cur", "ag");
  F.use("cur", "compute");
  F.wait("ag", "done");
  F.release("old", "ag");
  F.release("cur", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.MissingConsumerEvent.size(), 1u);
  EXPECT_EQ(P.spelling(R.MissingConsumerEvent[0].Buffer), "cur");
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_FALSE(R.FreeBeforeWait[0].ExplainedByStaleWaits.empty());
}

TEST(TransferTest, CurrentStreamFollowsPushAndPop) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.push("ag");
  F.alloc("t", "@current");
  F.push("compute");
  F.use("t", "@current");
  F.pop();
  F.release("t", "@current");
  F.pop();
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].ReleaseStream.Name), "ag");
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].Uses[0].Stream.Name), "compute");
}

TEST(TransferTest, RecordStreamDefersTheRelease) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.use("p", "compute");
  F.recordStream("p", "compute");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(TransferTest, RecordStreamCoversLaterUsesOnItsStreamOnly) {
  Program P;
  auto &F = P.function("f", {"ag", "compute", "other"});
  F.alloc("p", "ag");
  F.recordStream("p", "compute");
  F.use("p", "compute");
  F.use("p", "other");
  F.release("p", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  ASSERT_EQ(R.FreeBeforeWait[0].Uses.size(), 1u);
  EXPECT_EQ(P.spelling(R.FreeBeforeWait[0].Uses[0].Stream.Name), "other");
}

TEST(TransferTest, RecordStreamOnOnePathDoesNotCoverLaterUses) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.branch([&] { F.recordStream("p", "compute"); });
  F.use("p", "compute");
  F.release("p", "ag");
  EXPECT_EQ(P.findings(F).FreeBeforeWait.size(), 1u);
}

TEST(TransferTest, ACalleesRecordStreamCoversTheCallersLaterUses) {
  Program P;
  auto &Hand = P.function("hand", {"t", "s"});
  Hand.recordStream("t", "s");
  auto &F = P.function("f", {"ag", "compute"});
  F.alloc("p", "ag");
  F.call(Hand, {"p", "compute"});
  F.use("p", "compute");
  F.release("p", "ag");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

// A caching allocator's release that races is judged where the block could
// be handed out again: an allocation on the release stream, a call that
// allocates there, the next iteration, the return.
TEST(TransferTest, CachingReleaseIsJudgedAtTheNextAllocationThere) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.allocCaching("p", "ag");
  F.use("p", "compute");
  SiteId Drop = F.kill("p");
  F.allocCaching("other", "compute"); // another stream's pool: no reuse
  SiteId Reuse = F.allocCaching("q", "ag");
  F.syncDevice();
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReleaseSite, Drop);
  EXPECT_EQ(R.FreeBeforeWait[0].ReuseSite, Reuse);
}

TEST(TransferTest, CachingReleaseCompletedOrOrderedBeforeReuseIsClean) {
  for (bool HostWait : {true, false}) {
    Program P;
    auto &F = P.function("f", {"ag", "compute"});
    F.allocCaching("p", "ag");
    F.use("p", "compute");
    F.kill("p");
    if (HostWait)
      F.syncStream("compute");
    else
      F.waitStream("ag", "compute"); // the release stream waits, late
    F.allocCaching("q", "ag");
    EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty()) << HostWait;
    // "Wait before free": judged at the release.
    EXPECT_EQ(P.findings(F, AnalysisOptions{10000, /*WaitBeforeFree=*/true})
                  .FreeBeforeWait.size(),
              1u)
        << HostWait;
  }
}

TEST(TransferTest, CachingReleaseIsJudgedAtTheReturn) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  F.allocCaching("p", "ag");
  F.use("p", "compute");
  F.kill("p");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReuseSite, NoId);
}

// No one can name a private stream after the return: no allocation can be
// handed the block, so the return is no reuse opportunity for it.
TEST(TransferTest, CachingReleaseOnAPrivateStreamIsNotJudgedAtTheReturn) {
  Program P;
  auto &F = P.function("f", {"compute"});
  F.createStream("ag", true);
  F.privateStream("ag");
  F.allocCaching("p", "ag");
  F.use("p", "compute");
  F.kill("p");
  EXPECT_TRUE(P.findings(F).FreeBeforeWait.empty());
}

TEST(TransferTest, CachingReleaseOnAPrivateStreamIsJudgedWhereItIsReused) {
  Program P;
  auto &F = P.function("f", {"compute"});
  F.createStream("ag", true);
  F.privateStream("ag");
  F.allocCaching("p", "ag");
  F.use("p", "compute");
  F.kill("p");
  SiteId Reuse = F.allocCaching("q", "ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReuseSite, Reuse);
}

// Left current, the private stream is where the caller allocates next.
TEST(TransferTest, CachingReleaseOnAPrivateStreamLeftCurrentIsJudgedAtTheReturn) {
  Program P;
  auto &F = P.function("f", {"compute"});
  F.createStream("ag", true);
  F.privateStream("ag");
  F.allocCaching("p", "ag");
  F.use("p", "compute");
  F.kill("p");
  F.push("ag");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReuseSite, NoId);
}

TEST(TransferTest, CachingReleaseIsJudgedAtTheNextIterationsAllocation) {
  Program P;
  auto &F = P.function("f", {"ag", "compute"});
  SiteId Alloc = NoId;
  F.loop([&] {
    Alloc = F.allocCaching("p", "ag");
    F.use("p", "compute");
    F.kill("p");
  });
  F.syncDevice();
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReuseSite, Alloc);
  EXPECT_FALSE(R.FreeBeforeWait[0].Uses[0].FromEarlierIteration);
}

TEST(TransferTest, CachingReleaseIsJudgedAtACallThatAllocatesThere) {
  Program P;
  auto &Scratch = P.function("scratch", {"s"});
  Scratch.allocCaching("t", "s");
  Scratch.syncDevice();
  auto &F = P.function("f", {"ag", "compute"});
  F.allocCaching("p", "ag");
  F.use("p", "compute");
  F.kill("p");
  F.call(Scratch, {"compute"}); // allocates on another stream
  SiteId Call = F.call(Scratch, {"ag"});
  const auto &R = P.findings(F);
  ASSERT_EQ(R.FreeBeforeWait.size(), 1u);
  EXPECT_EQ(R.FreeBeforeWait[0].ReuseSite, Call);
}

// --- A caching pool's last release point (PoolSince) ----------------------

TEST(TransferTest, AWaitBeforeAnAllocationThatEnqueuesNothingCoversIt) {
  Program P;
  auto &F = P.function("f", {"side"});
  F.waitStream("side", "@current");
  F.allocEmpty("out", "@current");
  F.use("out", "side");
  EXPECT_TRUE(P.findings(F).UseBeforeAlloc.empty());
}

TEST(TransferTest, AnAllocationThatWritesIsNotCoveredByAnEarlierWait) {
  Program P;
  auto &F = P.function("f", {"side"});
  F.waitStream("side", "@current");
  F.allocCaching("out", "@current");
  SiteId Use = F.use("out", "side");
  const auto &R = P.findings(F);
  ASSERT_EQ(R.UseBeforeAlloc.size(), 1u);
  EXPECT_EQ(R.UseBeforeAlloc[0].UseSite, Use);
}

TEST(TransferTest, AReleaseOrUnseenWorkAfterTheWaitUncoversTheAllocation) {
  for (int Between = 0; Between < 4; ++Between) {
    Program P;
    auto &F = P.function("f", {"side", "g"});
    auto &G = P.function("g", {});
    G.finish();
    F.allocCaching("tmp", "@current");
    F.waitStream("side", "@current");
    if (Between == 0)
      F.kill("tmp"); // back to the current stream's pool
    else if (Between == 1)
      F.unseen("@current");
    else if (Between == 2)
      F.use("tmp", "@current"); // may free temporaries of its own
    else
      F.call(G, {});
    F.allocEmpty("out", "@current");
    F.use("out", "side");
    EXPECT_EQ(P.findings(F).UseBeforeAlloc.size(), 1u) << "between: " << Between;
  }
}

TEST(TransferTest, UnseenWorkOnAnotherStreamLeavesThePoolPoint) {
  Program P;
  auto &F = P.function("f", {"side", "other"});
  F.waitStream("side", "@current");
  F.unseen("other");
  F.allocEmpty("out", "@current");
  F.use("out", "side");
  EXPECT_TRUE(P.findings(F).UseBeforeAlloc.empty());
}

TEST(TransferTest, APoolPointIsKnownOnlyWhereEveryPathKnowsIt) {
  Program P;
  auto &F = P.function("f", {"side"});
  F.branch([&] { F.waitStream("side", "@current"); });
  F.allocEmpty("out", "@current");
  F.use("out", "side");
  EXPECT_EQ(P.findings(F).UseBeforeAlloc.size(), 1u);
}

TEST(TransferTest, AHostSyncAfterTheLastReleaseCompletesTheAllocation) {
  Program P;
  auto &F = P.function("f", {"side"});
  F.syncDevice();
  F.allocEmpty("out", "@current");
  F.use("out", "side");
  EXPECT_TRUE(P.findings(F).UseBeforeAlloc.empty());
}

// --- Stream parameters every caller passes its current stream for ----------

TEST(CallerStreamsTest, EveryCallPassingTheCurrentStreamMakesTheParameterIt) {
  Program P;
  auto &G = P.function("g", {"s"});
  G.allocCaching("out", "@current");
  G.use("out", "s");
  G.finish();
  auto &F = P.function("f", {});
  F.call(G, {"@current"});
  F.finish();
  P.markCallerStreams();
  EXPECT_TRUE(P.findings(G).UseBeforeAlloc.empty());
}

TEST(CallerStreamsTest, OneCallWithAnotherStreamKeepsTheFinding) {
  Program P;
  auto &G = P.function("g", {"s"});
  G.allocCaching("out", "@current");
  G.use("out", "s");
  G.finish();
  auto &F = P.function("f", {"side"});
  F.call(G, {"@current"});
  F.call(G, {"side"});
  F.finish();
  P.markCallerStreams();
  EXPECT_EQ(P.findings(G).UseBeforeAlloc.size(), 1u);
}

TEST(CallerStreamsTest, AFunctionNobodyCallsMayBeGivenAnyStream) {
  Program P;
  auto &G = P.function("g", {"s"});
  G.allocCaching("out", "@current");
  G.use("out", "s");
  G.finish();
  P.markCallerStreams();
  EXPECT_TRUE(P.module().Functions[G.id()].CurrentStreamParams.empty());
  EXPECT_EQ(P.findings(G).UseBeforeAlloc.size(), 1u);
}

// C++: a function that another translation unit or a function pointer may
// call has calls the front end cannot read, whatever the ones it sees pass.
TEST(CallerStreamsTest, AFunctionWithCallsNotSeenMayBeGivenAnyStream) {
  Program P;
  auto &G = P.function("g", {"s"});
  G.allocCaching("out", "@current");
  G.use("out", "s");
  G.finish();
  auto &F = P.function("f", {});
  F.call(G, {"@current"});
  F.finish();
  P.markCallerStreams(&G);
  EXPECT_TRUE(P.module().Functions[G.id()].CurrentStreamParams.empty());
  EXPECT_EQ(P.findings(G).UseBeforeAlloc.size(), 1u);
}

// `NAME(t)`: allocates on its current stream and uses the block on t.
FunctionBuilder &allocatesAndUsesOnItsParameter(Program &P,
                                                const std::string &Name) {
  auto &F = P.function(Name, {"t"});
  F.allocCaching("out", "@current");
  F.use("out", "t");
  F.finish();
  return F;
}

// `g(s)`: the same on s, then calls itself with s.
FunctionBuilder &passesItsParameterBackToItself(Program &P) {
  auto &G = P.function("g", {"s"});
  G.allocCaching("out", "@current");
  G.use("out", "s");
  G.call(G, {"s"});
  G.finish();
  return G;
}

// A helper that hands its own current-stream parameter on: `inner` is given
// what `outer` is given, the current stream at every call of `outer`.
TEST(CallerStreamsTest, AParameterPassedOnCarriesTheCallersCurrentStream) {
  Program P;
  auto &Inner = allocatesAndUsesOnItsParameter(P, "inner");
  auto &Outer = P.function("outer", {"s"});
  Outer.call(Inner, {"s"});
  Outer.finish();
  auto &Top = P.function("top", {});
  Top.call(Outer, {"@current"});
  Top.finish();
  P.markCallerStreams();
  EXPECT_EQ(P.module().Functions[Inner.id()].CurrentStreamParams.size(), 1u);
  EXPECT_TRUE(P.findings(Inner).UseBeforeAlloc.empty());
}

TEST(CallerStreamsTest, APassedOnParameterGivenAnotherStreamKeepsTheFinding) {
  Program P;
  auto &Inner = allocatesAndUsesOnItsParameter(P, "inner");
  auto &Outer = P.function("outer", {"s"});
  Outer.call(Inner, {"s"});
  Outer.finish();
  auto &Top = P.function("top", {"side"});
  Top.call(Outer, {"@current"});
  Top.call(Outer, {"side"});
  Top.finish();
  P.markCallerStreams();
  EXPECT_TRUE(P.module().Functions[Outer.id()].CurrentStreamParams.empty());
  EXPECT_EQ(P.findings(Inner).UseBeforeAlloc.size(), 1u);
}

// Under a pushed stream the callee starts on the pushed one, which the
// caller's parameter is not.
TEST(CallerStreamsTest, APassedOnParameterUnderAPushedStreamIsNotCurrent) {
  Program P;
  auto &Inner = allocatesAndUsesOnItsParameter(P, "inner");
  auto &Outer = P.function("outer", {"s", "side"});
  Outer.push("side");
  Outer.call(Inner, {"s"});
  Outer.pop();
  Outer.finish();
  auto &Top = P.function("top", {"side"});
  Top.call(Outer, {"@current", "side"});
  Top.finish();
  P.markCallerStreams();
  EXPECT_EQ(P.module().Functions[Outer.id()].CurrentStreamParams.size(), 1u);
  EXPECT_EQ(P.findings(Inner).UseBeforeAlloc.size(), 1u);
}

TEST(CallerStreamsTest, AReboundParameterPassedOnIsNotCurrent) {
  Program P;
  auto &Inner = allocatesAndUsesOnItsParameter(P, "inner");
  auto &Outer = P.function("outer", {"s", "side"});
  Outer.bind("s", "side", ValueKind::Stream);
  Outer.call(Inner, {"s"});
  Outer.finish();
  auto &Top = P.function("top", {"side"});
  Top.call(Outer, {"@current", "side"});
  Top.finish();
  P.markCallerStreams();
  EXPECT_EQ(P.findings(Inner).UseBeforeAlloc.size(), 1u);
}

// Recursion that passes the parameter back agrees with itself; the marks
// need a call that spells the current stream out.
TEST(CallerStreamsTest, RecursionAloneGroundsNoMark) {
  Program P;
  auto &G = passesItsParameterBackToItself(P);
  P.markCallerStreams();
  EXPECT_TRUE(P.module().Functions[G.id()].CurrentStreamParams.empty());
  EXPECT_EQ(P.findings(G).UseBeforeAlloc.size(), 1u);
}

TEST(CallerStreamsTest, RecursionEnteredWithTheCurrentStreamKeepsIt) {
  Program P;
  auto &G = passesItsParameterBackToItself(P);
  auto &Top = P.function("top", {});
  Top.call(G, {"@current"});
  Top.finish();
  P.markCallerStreams();
  EXPECT_EQ(P.module().Functions[G.id()].CurrentStreamParams.size(), 1u);
  EXPECT_TRUE(P.findings(G).UseBeforeAlloc.empty());
}

} // namespace
} // namespace test
} // namespace core
} // namespace streamlife
