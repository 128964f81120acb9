//===- ReporterTest.cpp - queueing, dedup by call-site pair, finish -------===//
#include "report/Reporter.h"

#include "report/CallSiteNames.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>
#include <sstream>

using namespace streamlife::rt;

namespace {

class FixedNames : public StreamNamer {
public:
  std::string streamName(StreamId S) override { return "stream #" + std::to_string(S); }
};

// Two distinct call sites in this (non-runtime) binary.
__attribute__((noinline)) void *siteA() { return __builtin_return_address(0); }
__attribute__((noinline)) void *siteB() { return __builtin_return_address(0); }

struct ReporterFixture : ::testing::Test {
  ReporterFixture() {
    Out = open_memstream(&Buffer, &Size);
    void *A = siteA();
    void *B = siteB();
    AddrB = B;
    KernelAtA = Ops.intern("kernel 'consume'", &A, 1);
    KernelAtB = Ops.intern("kernel 'consume'", &B, 1);
    FreeAtA = Ops.intern("cuMemFreeAsync", &A, 1);
    FreeAtB = Ops.intern("cuMemFreeAsync", &B, 1);
  }
  ~ReporterFixture() override {
    std::fclose(Out);
    std::free(Buffer);
  }
  std::string text() {
    std::fflush(Out);
    return std::string(Buffer, Size);
  }
  Finding unsafeFree(OpId Access, OpId Release, Addr Base = 0x1000) {
    Finding F{};
    F.Kind = FindingKind::UnsafeFree;
    F.Bytes = Range{Base, 64};
    F.Allocation = F.Bytes;
    F.Alloc = AllocKind::StreamOrdered;
    F.Allocated = AccessPoint{1, Release};
    F.Unordered = AccessPoint{2, Access};
    F.Released = AccessPoint{1, Release};
    return F;
  }
  static std::size_t count(const std::string &Text, const std::string &What) {
    std::size_t N = 0;
    for (std::size_t P = Text.find(What); P != std::string::npos; P = Text.find(What, P + 1))
      ++N;
    return N;
  }

  Options Opts;
  OpTable Ops;
  FixedNames Names;
  char *Buffer = nullptr;
  std::size_t Size = 0;
  std::FILE *Out = nullptr;
  OpId KernelAtA, KernelAtB, FreeAtA, FreeAtB;
  void *AddrB = nullptr;
};

TEST_F(ReporterFixture, ReportOnlyQueuesUntilDrained) {
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  EXPECT_TRUE(R.hasPending());
  EXPECT_EQ(text(), "");
  R.drain(Names);
  EXPECT_FALSE(R.hasPending());
  EXPECT_EQ(count(text(), "streamlife: error: unsafe-free:"), 1u);
  EXPECT_NE(text().find("stream #2"), std::string::npos);
}

TEST_F(ReporterFixture, SameCallSitePairIsReportedOnce) {
  Reporter R(Opts, Ops, Out);
  // A loop: the same access and release sites, different blocks.
  for (Addr Base : {0x1000, 0x2000, 0x3000})
    R.report(unsafeFree(KernelAtA, FreeAtA, Base));
  R.drain(Names);
  EXPECT_EQ(R.findingCount(), 1u);
  EXPECT_EQ(count(text(), "streamlife: error:"), 1u);
  // Each later drain's repeat (a training step's finding, step after step)
  // is dropped before its sites are named.
  EXPECT_EQ(R.resolvedByDrain(), 1u);
  R.report(unsafeFree(KernelAtA, FreeAtA, 0x4000));
  R.drain(Names);
  EXPECT_EQ(R.resolvedByDrain(), 1u);
  EXPECT_EQ(count(text(), "streamlife: error:"), 1u);
}

TEST_F(ReporterFixture, DifferentSitesAreDifferentFindings) {
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.report(unsafeFree(KernelAtB, FreeAtA));
  R.report(unsafeFree(KernelAtA, FreeAtB));
  R.drain(Names);
  EXPECT_EQ(R.findingCount(), 3u);
}

TEST_F(ReporterFixture, DedupCanBeSwitchedOff) {
  Opts.dedup = false;
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.drain(Names);
  EXPECT_EQ(R.findingCount(), 2u);
}

TEST_F(ReporterFixture, CallSiteIsSymbolizedIntoThisBinary) {
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.drain(Names);
  EXPECT_NE(text().find("    #0 "), std::string::npos) << text();
  EXPECT_NE(text().find("RuntimeReportTests+0x"), std::string::npos) << text();
}

TEST_F(ReporterFixture, NotesArePrintedOncePerKind) {
  Reporter R(Opts, Ops, Out);
  R.noteNotAnalysed(NotAnalysed::GraphLaunches);
  R.noteNotAnalysed(NotAnalysed::GraphLaunches);
  R.noteNotAnalysed(NotAnalysed::HostFunctions);
  EXPECT_EQ(count(text(), "streamlife: note: not analysed: "), 2u);
  EXPECT_EQ(count(text(), "cuGraphLaunch"), 1u);
}

TEST_F(ReporterFixture, FinishPrintsSummaryOnceAndWritesJson) {
  std::string Path = ::testing::TempDir() + "streamlife-reporter-test.json";
  Opts.report = Path;
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.finish(Names, true);
  R.finish(Names, true);
  EXPECT_EQ(count(text(), "streamlife: summary: 1 finding\n"), 1u);
  std::ifstream In(Path);
  std::stringstream Json;
  Json << In.rdbuf();
  EXPECT_NE(Json.str().find("\"kind\":\"unsafe-free\""), std::string::npos) << Json.str();
  EXPECT_NE(Json.str().find("\"summary\":{\"findings\":1,\"processes\":1}"), std::string::npos);
  std::remove(Path.c_str());
}

// A wrapper process (bash, a Python launcher) attaches but makes no CUDA call:
// it must not replace its CUDA child's report with an empty one.
TEST_F(ReporterFixture, ProcessWithoutCudaWritesNoReport) {
  std::string Path = ::testing::TempDir() + "streamlife-reporter-nocuda.json";
  std::remove(Path.c_str());
  Opts.report = Path;
  Reporter R(Opts, Ops, Out);
  R.finish(Names, false, /*UsedCuda=*/false);
  EXPECT_FALSE(std::ifstream(Path).good());
  Reporter Used(Opts, Ops, Out);
  Used.finish(Names, false, /*UsedCuda=*/true);
  EXPECT_TRUE(std::ifstream(Path).good());
  std::remove(Path.c_str());
}

TEST_F(ReporterFixture, FinishWithoutSummaryStaysSilentWhenClean) {
  Reporter R(Opts, Ops, Out);
  R.finish(Names, false);
  EXPECT_EQ(text(), "");
}

TEST_F(ReporterFixture, UnwritableReportIsOneErrorLine) {
  Opts.report = "/nonexistent-dir/r.json";
  Reporter R(Opts, Ops, Out);
  R.finish(Names, true);
  EXPECT_NE(text().find("streamlife: error: cannot write the report '/nonexistent-dir/r.json': "),
            std::string::npos);
}

} // namespace

namespace {

std::string writeRules(const std::string &Text) {
  std::string Path = ::testing::TempDir() + "streamlife-suppressions-test.txt";
  std::ofstream(Path) << Text;
  return Path;
}

TEST_F(ReporterFixture, SuppressedFindingsAreNotReportedButCountedPerRule) {
  Opts.suppressions = writeRules("# the consume kernel is known\nunsafe-free:kernel:*'consume'*\n");
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.report(unsafeFree(KernelAtB, FreeAtB));
  R.finish(Names, true);
  EXPECT_EQ(R.findingCount(), 0u);
  EXPECT_EQ(count(text(), "streamlife: error:"), 0u) << text();
  EXPECT_NE(text().find("streamlife: suppressed 2 findings with rule 'unsafe-free:kernel:*'consume'*' ("),
            std::string::npos)
      << text();
  EXPECT_NE(text().find("streamlife: summary: 0 findings"), std::string::npos) << text();
}

TEST_F(ReporterFixture, ARuleOfAnotherKindOrNameSuppressesNothing) {
  Opts.suppressions = writeRules("reuse-race:kernel:*consume*\n*:kernel:*produce*\n");
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.finish(Names, true);
  EXPECT_EQ(R.findingCount(), 1u);
  EXPECT_EQ(text().find("streamlife: suppressed"), std::string::npos) << text();
}

TEST_F(ReporterFixture, FrameRulesMatchTheCallSitesStack) {
  // Site B's frame as a report prints it: "function (module+0xOFFSET)".
  std::string FrameB = formatFrame(symbolize(AddrB));
  std::string Pattern = "*" + FrameB.substr(FrameB.rfind('+'));
  Opts.suppressions = writeRules("*:frame:" + Pattern + "\n");
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA)); // stacks at siteA only: kept
  R.report(unsafeFree(KernelAtB, FreeAtA)); // the access at siteB: suppressed
  R.finish(Names, true);
  EXPECT_EQ(R.findingCount(), 1u);
  EXPECT_NE(text().find("streamlife: suppressed 1 finding with rule '*:frame:" + Pattern + "'"), std::string::npos)
      << text();
}

TEST_F(ReporterFixture, AnUnreadableSuppressionsFileIsSaidAndSuppressesNothing) {
  Opts.suppressions = "/nonexistent/streamlife.supp";
  Reporter R(Opts, Ops, Out);
  R.report(unsafeFree(KernelAtA, FreeAtA));
  R.finish(Names, true);
  EXPECT_EQ(R.findingCount(), 1u);
  EXPECT_NE(text().find("streamlife: error: cannot read suppressions file '/nonexistent/streamlife.supp'"),
            std::string::npos)
      << text();
}

TEST(SuppressionsTest, ParsesRulesCommentsAndBlankLines) {
  Suppressions S;
  std::string Error;
  ASSERT_TRUE(S.parse("# c\n\n  use-after-free : kernel : *foo*  \n*:frame:bar*\n", "f", Error)) << Error;
  ASSERT_EQ(S.rules().size(), 2u);
  EXPECT_EQ(S.rules()[0].Kind, "use-after-free");
  EXPECT_EQ(S.rules()[0].Pattern, "*foo*");
  EXPECT_EQ(S.rules()[0].Origin, "f:3");
  EXPECT_TRUE(S.needsFrames());
}

TEST(SuppressionsTest, RejectsMalformedLinesWithTheirPlace) {
  std::string Error;
  EXPECT_FALSE(Suppressions().parse("unsafe-free:*foo*\n", "f", Error));
  EXPECT_EQ(Error, "f:1: expected KIND:FIELD:PATTERN, got 'unsafe-free:*foo*'");
  EXPECT_FALSE(Suppressions().parse("\nrace:kernel:x\n", "f", Error));
  EXPECT_EQ(Error.rfind("f:2: unknown finding kind 'race'", 0), 0u) << Error;
  EXPECT_FALSE(Suppressions().parse("*:stack:x\n", "f", Error));
  EXPECT_EQ(Error, "f:1: unknown field 'stack' (kernel or frame)");
  EXPECT_FALSE(Suppressions().parse("*:kernel:\n", "f", Error));
  EXPECT_EQ(Error, "f:1: empty pattern");
}

TEST(SuppressionsTest, MatchesByKindNameAndFrame) {
  Suppressions S;
  std::string Error;
  ASSERT_TRUE(S.parse("use-after-free:kernel:*multi_tensor_apply*\n*:frame:*fsdp*\n", "f", Error));
  FindingView UseAfterFree{"use-after-free", {"kernel 'multi_tensor_apply_kernel<X>'"}, {}};
  FindingView UnsafeFree{"unsafe-free", {"kernel 'multi_tensor_apply_kernel<X>'"}, {}};
  FindingView InFsdp{"unsafe-free", {"cuMemFreeAsync"}, {"foo (/x/_fsdp_collectives.so+0x10)"}};
  EXPECT_NE(S.match(UseAfterFree), nullptr);
  EXPECT_EQ(S.match(UnsafeFree), nullptr);
  EXPECT_NE(S.match(InFsdp), nullptr);
  EXPECT_EQ(S.rules()[0].Hits, 1u);
  EXPECT_EQ(S.rules()[1].Hits, 1u);
}

} // namespace

namespace {

/// What the timeline would be told.
class Recorded : public FindingObserver {
public:
  void observed(const Finding &F, const std::string &Headline) override {
    Bases.push_back(F.Bytes.Begin);
    Headlines.push_back(Headline);
  }
  std::vector<Addr> Bases;
  std::vector<std::string> Headlines;
};

TEST_F(ReporterFixture, TheObserverSeesEachOccurrenceWithItsHeadline) {
  Reporter R(Opts, Ops, Out);
  Recorded O;
  R.setObserver(&O);
  R.report(unsafeFree(KernelAtA, FreeAtA, 0x1000));
  R.report(unsafeFree(KernelAtA, FreeAtA, 0x2000)); // the same sites again: printed once
  R.drain(Names);
  EXPECT_EQ(count(text(), "streamlife: error:"), 1u);
  ASSERT_EQ(O.Bases.size(), 2u);
  EXPECT_EQ(O.Bases[0], 0x1000u);
  EXPECT_EQ(O.Bases[1], 0x2000u);
  EXPECT_EQ(O.Headlines[0].rfind("unsafe-free: stream-ordered allocation 64 bytes", 0), 0u)
      << O.Headlines[0];
  EXPECT_EQ(O.Headlines[0].find('\n'), std::string::npos);
}

TEST_F(ReporterFixture, TheObserverIsNotToldOfSuppressedFindings) {
  Opts.suppressions = writeRules("unsafe-free:kernel:*'consume'*\n");
  Reporter R(Opts, Ops, Out);
  Recorded O;
  R.setObserver(&O);
  R.report(unsafeFree(KernelAtA, FreeAtA, 0x1000));
  R.report(unsafeFree(KernelAtA, FreeAtA, 0x2000));
  R.drain(Names);
  EXPECT_TRUE(O.Bases.empty());
}



/// Names streams for the first drainer slowly: holds its first name until the
/// second drainer is done (or 300 ms passed), as a symbolizer or a busy
/// engine lock would.
class SlowFirstNames : public StreamNamer {
public:
  std::string streamName(StreamId S) override {
    if (!Held.exchange(true)) {
      FirstNaming.store(true);
      std::unique_lock<std::mutex> Guard(Mu);
      Go.wait_for(Guard, std::chrono::milliseconds(300), [this] { return SecondDone; });
    }
    return "stream #" + std::to_string(S);
  }
  void secondDone() {
    {
      std::lock_guard<std::mutex> Guard(Mu);
      SecondDone = true;
    }
    Go.notify_all();
  }
  std::atomic<bool> Held{false}, FirstNaming{false};

private:
  std::mutex Mu;
  std::condition_variable Go;
  bool SecondDone = false;
};

TEST_F(ReporterFixture, ConcurrentDrainsPrintInQueueOrder) {
  // Thread A drains the first finding and is slow to name it; meanwhile the
  // engine queues a second one and thread B drains. B must not print the
  // second before A printed the first.
  Opts.symbolize = false; // B's naming is quick; only A's is slow
  Reporter R(Opts, Ops, Out);
  SlowFirstNames Slow;
  R.report(unsafeFree(KernelAtA, FreeAtA, 0x1000));
  std::thread A([&] { R.drain(Slow); });
  while (!Slow.FirstNaming.load())
    std::this_thread::yield();
  R.report(unsafeFree(KernelAtB, FreeAtB, 0x9000));
  std::thread B([&] {
    R.drain(Slow);
    Slow.secondDone();
  });
  A.join();
  B.join();
  std::string Text = text();
  std::size_t First = Text.find("0x1000"), Second = Text.find("0x9000");
  ASSERT_NE(First, std::string::npos);
  ASSERT_NE(Second, std::string::npos);
  EXPECT_LT(First, Second);
}

} // namespace
