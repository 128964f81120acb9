//===- TraceEventWriterTest.cpp - the streamed trace file -----------------===//
#include "timeline/TraceEventWriter.h"

#include "TimelineTestSupport.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <set>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

TEST(TraceEventWriterTest, WritesUnderThePartialNameUntilFinished) {
  ScratchDir Dir;
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 0, Error)) << Error;
  W.append("{\"a\":1}");
  W.append("{\"b\":2}");
  EXPECT_FALSE(exists(Dir.file("t.json")));
  EXPECT_TRUE(exists(Dir.file("t.json.partial")));
  ASSERT_TRUE(W.finish("{\"end\":3}", Error)) << Error;
  EXPECT_FALSE(exists(Dir.file("t.json.partial")));
  EXPECT_EQ(readFile(Dir.file("t.json")), "[\n{\"a\":1},\n{\"b\":2},\n{\"end\":3}\n]\n");
}

TEST(TraceEventWriterTest, AnEmptyTraceIsAnEmptyArray) {
  ScratchDir Dir;
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 0, Error));
  ASSERT_TRUE(W.finish("", Error));
  EXPECT_EQ(readFile(Dir.file("t.json")), "[\n\n]\n");
}

TEST(TraceEventWriterTest, TheLimitDropsEverythingFromTheFirstEventThatCrossesIt) {
  ScratchDir Dir;
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 40, Error));
  EXPECT_TRUE(W.append("{\"n\":1}"));
  EXPECT_TRUE(W.append("{\"n\":2}"));
  EXPECT_TRUE(W.append("{\"n\":3}"));
  EXPECT_FALSE(W.append("{\"n\":4,\"long\":true}"));
  EXPECT_FALSE(W.append("{\"n\":5}")); // would fit, but the trace has a hole now
  EXPECT_TRUE(W.limitReached());
  EXPECT_EQ(W.droppedEvents(), 2u);
  // The closing events are written beyond the limit: they say what happened.
  ASSERT_TRUE(W.finish("{\"note\":\"dropped\"}", Error));
  std::string Text = readFile(Dir.file("t.json"));
  EXPECT_EQ(count(Text, "\"n\":"), 3u);
  EXPECT_NE(Text.find("\"note\":\"dropped\""), std::string::npos);
}

TEST(TraceEventWriterTest, TheLimitKeepsAnArrowWholeOrDropsIt) {
  // An arrow: a slice, the flow's start in it, a second slice, the flow's end
  // in it (each end appended after its slice), then an event after it.
  const char *Slice1 = "{\"ph\":\"X\",\"tid\":1}";
  const char *Start = "{\"ph\":\"s\",\"tid\":1,\"id\":7}";
  const char *Slice2 = "{\"ph\":\"X\",\"tid\":2}";
  const char *Finish = "{\"ph\":\"f\",\"tid\":2,\"id\":7}";
  const char *After = "{\"ph\":\"i\"}";
  auto Write = [&](TraceEventWriter &W) {
    W.append(Slice1);
    W.appendFlowEnd(7, Start);
    W.append(Slice2);
    W.appendFlowEnd(7, Finish);
    W.append(After);
  };
  ScratchDir Dir;
  std::string Error;
  TraceEventWriter Whole;
  ASSERT_TRUE(Whole.open(Dir.file("whole.json"), 0, Error)) << Error;
  Write(Whole);
  std::uint64_t Size = Whole.bytes();
  ASSERT_TRUE(Whole.finish("", Error)) << Error;
  // Every cap from the bare "[" to the whole trace, byte by byte.
  std::set<std::string> Kept;
  for (std::uint64_t Limit = 2; Limit <= Size; ++Limit) {
    TraceEventWriter W;
    ASSERT_TRUE(W.open(Dir.file("t.json"), Limit, Error)) << Error;
    Write(W);
    EXPECT_EQ(W.heldFlowEnds(), 0u);
    EXPECT_EQ(W.writtenEvents() + W.droppedEvents(), 5u) << "limit " << Limit;
    ASSERT_TRUE(W.finish("", Error)) << Error;
    std::string Text = readFile(Dir.file("t.json"));
    bool Starts = Text.find(Start) != std::string::npos;
    bool Ends = Text.find(Finish) != std::string::npos;
    EXPECT_EQ(Starts, Ends) << "limit " << Limit << ":\n" << Text;
    if (Starts) {
      EXPECT_NE(Text.find(Slice1), std::string::npos) << Text;
      EXPECT_NE(Text.find(Slice2), std::string::npos) << Text;
    }
    Kept.insert(std::to_string(count(Text, "\"ph\":\"X\"")) +
                (Starts ? " slices, arrow" : " slices"));
  }
  // The cut fell before the arrow, between its slices, between its second
  // slice and its end (the pair dropped), and after it.
  EXPECT_EQ(Kept, (std::set<std::string>{"0 slices", "1 slices", "2 slices", "2 slices, arrow"}));
}

TEST(TraceEventWriterTest, AFlowEndHeldAtTheCutIsDroppedWithItsPair) {
  ScratchDir Dir;
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 30, Error)) << Error;
  EXPECT_TRUE(W.append("{\"n\":1}"));
  EXPECT_TRUE(W.appendFlowEnd(3, "{\"ph\":\"s\",\"id\":3}")); // held
  EXPECT_EQ(W.heldFlowEnds(), 1u);
  EXPECT_FALSE(W.append("{\"n\":2,\"long\":\"crosses the limit\"}"));
  EXPECT_EQ(W.heldFlowEnds(), 0u); // let go at the cut
  EXPECT_FALSE(W.appendFlowEnd(3, "{\"ph\":\"f\",\"id\":3}"));
  EXPECT_EQ(W.droppedEvents(), 3u);
  ASSERT_TRUE(W.finish("", Error)) << Error;
  EXPECT_EQ(readFile(Dir.file("t.json")), "[\n{\"n\":1}\n]\n");
}

TEST(TraceEventWriterTest, AFlowEndWithoutItsPairIsNotWritten) {
  ScratchDir Dir;
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 0, Error)) << Error;
  W.appendFlowEnd(1, "{\"ph\":\"s\",\"id\":1}");
  W.appendFlowEnd(2, "{\"ph\":\"s\",\"id\":2}");
  W.appendFlowEnd(1, "{\"ph\":\"f\",\"id\":1}");
  ASSERT_TRUE(W.finish("", Error)) << Error;
  EXPECT_EQ(readFile(Dir.file("t.json")),
            "[\n{\"ph\":\"s\",\"id\":1},\n{\"ph\":\"f\",\"id\":1}\n]\n");
}

TEST(TraceEventWriterTest, RefusesALinkAsTheTarget) {
  ScratchDir Dir;
  ASSERT_EQ(symlink("/etc/passwd", Dir.file("link.json").c_str()), 0);
  TraceEventWriter W;
  std::string Error;
  EXPECT_FALSE(W.open(Dir.file("link.json"), 0, Error));
  EXPECT_NE(Error.find("symbolic link"), std::string::npos) << Error;
}

TEST(TraceEventWriterTest, ReplacesAStalePartialButNotALiveOne) {
  ScratchDir Dir;
  {
    std::ofstream Stale(Dir.file("t.json.partial"));
    Stale << "[\n{\"old\":1}";
  }
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 0, Error)) << Error;
  TraceEventWriter Second;
  EXPECT_FALSE(Second.open(Dir.file("t.json"), 0, Error));
  EXPECT_NE(Error.find("another process is writing"), std::string::npos) << Error;
  ASSERT_TRUE(W.finish("", Error));
  EXPECT_EQ(readFile(Dir.file("t.json")).find("old"), std::string::npos);
}

TEST(TraceEventWriterTest, FinishingADeadProcessesTraceKeepsEveryCompleteEvent) {
  ScratchDir Dir;
  {
    std::ofstream Partial(Dir.file("t.json.partial"));
    Partial << "[\n{\"a\":1},\n{\"b\":\"x}y\"}";
  }
  std::string Error;
  ASSERT_TRUE(finishPartialTrace(Dir.file("t.json.partial"), "the program died", Error)) << Error;
  std::string Text = readFile(Dir.file("t.json"));
  EXPECT_NE(Text.find("{\"b\":\"x}y\"},\n{\"ph\":\"i\""), std::string::npos) << Text;
  EXPECT_NE(Text.find("the program died"), std::string::npos);
  EXPECT_EQ(Text.substr(Text.size() - 3), "\n]\n");
}

TEST(TraceEventWriterTest, FinishingADeadProcessesTraceDropsAHalfWrittenEvent) {
  ScratchDir Dir;
  {
    std::ofstream Partial(Dir.file("t.json.partial"));
    Partial << "[\n{\"a\":1},\n{\"b\":2,\"c";
  }
  std::string Error;
  ASSERT_TRUE(finishPartialTrace(Dir.file("t.json.partial"), "cut", Error)) << Error;
  std::string Text = readFile(Dir.file("t.json"));
  EXPECT_EQ(Text.find("\"b\":2"), std::string::npos) << Text;
  EXPECT_NE(Text.find("[\n{\"a\":1},\n{\"ph\":\"i\""), std::string::npos) << Text;
}

TEST(TraceEventWriterTest, FinishingRefusesATraceStillBeingWritten) {
  ScratchDir Dir;
  TraceEventWriter W;
  std::string Error;
  ASSERT_TRUE(W.open(Dir.file("t.json"), 0, Error));
  EXPECT_FALSE(finishPartialTrace(Dir.file("t.json.partial"), "x", Error));
  EXPECT_NE(Error.find("still being written"), std::string::npos) << Error;
}

TEST(TraceEventWriterTest, MicrosecondsHaveNanosecondDigits) {
  std::string Out;
  appendMicros(Out, 0);
  Out += ' ';
  appendMicros(Out, 1234567);
  Out += ' ';
  appendMicros(Out, 5);
  EXPECT_EQ(Out, "0.000 1234.567 0.005");
}

} // namespace
