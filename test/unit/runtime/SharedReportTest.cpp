//===- SharedReportTest.cpp - one report for a process tree ---------------===//
#include "report/SharedReport.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

ReportPart part(int Pid, const char *Run, std::vector<std::string> Findings,
                std::vector<std::string> Notes = {}, const char *Image = "a1") {
  ReportPart P;
  P.RunId = Run;
  P.Pid = Pid;
  P.Image = Image;
  P.Rank = std::to_string(Pid % 10);
  P.Command = "app";
  P.FindingObjects = std::move(Findings);
  P.Notes = std::move(Notes);
  return P;
}

std::size_t count(const std::string &Text, const std::string &What) {
  std::size_t N = 0;
  for (std::size_t At = Text.find(What); At != std::string::npos; At = Text.find(What, At + 1))
    ++N;
  return N;
}

TEST(SharedReportTest, ProcessesOfOneRunMerge) {
  std::string A = mergedReportText("", part(11, "run-1", {"{\"kind\":\"unsafe-free\"}"}, {"n1"}));
  std::string B = mergedReportText(A, part(22, "run-1", {"{\"kind\":\"reuse-race\"}"}, {"n1", "n2"}));
  EXPECT_NE(B.find("{\"pid\":11,\"image\":\"a1\",\"rank\":\"1\",\"kind\":\"unsafe-free\"}"), std::string::npos) << B;
  EXPECT_NE(B.find("{\"pid\":22,\"image\":\"a1\",\"rank\":\"2\",\"kind\":\"reuse-race\"}"), std::string::npos) << B;
  EXPECT_NE(B.find("\"summary\":{\"findings\":2,\"processes\":2}}"), std::string::npos) << B;
  EXPECT_EQ(count(B, "\"n1\""), 1u); // notes once
  EXPECT_EQ(count(B, "\"n2\""), 1u);
}

TEST(SharedReportTest, AProcessRewriteReplacesOnlyItsOwnPart) {
  std::string A = mergedReportText("", part(11, "run-1", {"{\"kind\":\"unsafe-free\"}"}));
  std::string B = mergedReportText(A, part(22, "run-1", {"{\"kind\":\"reuse-race\"}"}));
  std::string C = mergedReportText(
      B, part(11, "run-1", {"{\"kind\":\"unsafe-free\"}", "{\"kind\":\"use-after-free\"}"}));
  EXPECT_EQ(count(C, "\"kind\":\"unsafe-free\""), 1u) << C;
  EXPECT_EQ(count(C, "\"kind\":\"use-after-free\""), 1u);
  EXPECT_EQ(count(C, "\"kind\":\"reuse-race\""), 1u);
  EXPECT_EQ(count(C, "{\"pid\":11,\"image\":\"a1\",\"rank\":\"1\",\"command\":\"app\",\"findings\":2}"), 1u);
  EXPECT_NE(C.find("\"summary\":{\"findings\":3,\"processes\":2}}"), std::string::npos) << C;
}

// A process that exec()s keeps its pid: the new image's part (here clean)
// is added, and the old image's finding stays in the report.
TEST(SharedReportTest, ANewProgramImageOfTheSamePidKeepsTheOldImagesPart) {
  std::string A = mergedReportText("", part(11, "run-1", {"{\"kind\":\"unsafe-free\"}"}, {}, "a1"));
  std::string B = mergedReportText(A, part(11, "run-1", {}, {}, "b2"));
  EXPECT_EQ(count(B, "\"kind\":\"unsafe-free\""), 1u) << B;
  EXPECT_EQ(count(B, "{\"pid\":11,\"image\":\"a1\",\"rank\":\"1\",\"command\":\"app\",\"findings\":1}"), 1u);
  EXPECT_EQ(count(B, "{\"pid\":11,\"image\":\"b2\",\"rank\":\"1\",\"command\":\"app\",\"findings\":0}"), 1u);
  EXPECT_NE(B.find("\"summary\":{\"findings\":1,\"processes\":2}}"), std::string::npos) << B;
}

TEST(SharedReportTest, AnEarlierRunOrAForeignFileIsReplaced) {
  std::string Old = mergedReportText("", part(11, "run-1", {"{\"kind\":\"unsafe-free\"}"}));
  std::string New = mergedReportText(Old, part(33, "run-2", {}));
  EXPECT_EQ(New.find("unsafe-free"), std::string::npos) << New;
  EXPECT_NE(New.find("\"summary\":{\"findings\":0,\"processes\":1}}"), std::string::npos);
  std::string FromJunk = mergedReportText("{\"findings\":[{\"pid\":5}]}\n", part(33, "run-2", {}));
  EXPECT_EQ(FromJunk, New);
}

TEST(SharedReportTest, EscapesWhatItWrites) {
  ReportPart P = part(11, "run\"1", {}, {"a \"quoted\"\nnote"});
  P.Command = "we\"ird";
  std::string Text = mergedReportText("", P);
  EXPECT_NE(Text.find("\"run\":\"run\\\"1\""), std::string::npos) << Text;
  EXPECT_NE(Text.find("\"a \\\"quoted\\\"\\nnote\""), std::string::npos) << Text;
  // Merging our own escaped output again keeps one copy of the note.
  EXPECT_EQ(count(mergedReportText(Text, P), "quoted"), 1u);
}

} // namespace
