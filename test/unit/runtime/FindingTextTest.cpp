//===- FindingTextTest.cpp - wording of findings, fixes, JSON, summary ----===//
#include "report/FindingText.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

SiteView site(const char *Stream, const char *What, std::vector<std::string> Frames = {"main (app+0x10)"}) {
  SiteView S;
  S.Present = true;
  S.Stream = Stream;
  S.What = What;
  S.Frames = std::move(Frames);
  return S;
}

ReportedFinding unsafeFree() {
  ReportedFinding F;
  F.Kind = FindingKind::UnsafeFree;
  F.Alloc = AllocKind::StreamOrdered;
  F.Bytes = Range{0x1000, 256};
  F.Allocation = Range{0x1000, 256};
  F.Allocated = site("stream #1 (0xa1)", "cuMemAllocAsync");
  F.Access = site("stream #2 (0xb2)", "kernel 'consume'");
  F.Release = site("stream #1 (0xa1)", "cuMemFreeAsync");
  F.ReusedBy = site("stream #3 (0xc3)", "cuMemAllocAsync", {"next (app+0x20)"});
  return F;
}

TEST(FindingTextTest, FirstLineNamesKindBytesAndStreams) {
  std::string Text = formatText(unsafeFree());
  std::string First = Text.substr(0, Text.find('\n'));
  EXPECT_EQ(First, "streamlife: error: unsafe-free: stream-ordered allocation 256 bytes at "
                   "[0x1000, 0x1100) released on stream #1 (0xa1) while stream #2 (0xb2) may "
                   "still access it");
}

TEST(FindingTextTest, SitesAndFixFollowInOrder) {
  std::string Text = formatText(unsafeFree());
  std::size_t Access = Text.find("  unordered access: kernel 'consume' on stream #2 (0xb2)\n    #0 main (app+0x10)\n");
  std::size_t Release = Text.find("  release: cuMemFreeAsync on stream #1 (0xa1)\n");
  std::size_t Alloc = Text.find("  allocation: cuMemAllocAsync on stream #1 (0xa1)\n");
  std::size_t Fix = Text.find("  fix: record an event on stream #2 (0xb2) after its last use of the "
                              "buffer and make stream #1 (0xa1) wait on it before the release");
  ASSERT_NE(Access, std::string::npos) << Text;
  ASSERT_NE(Release, std::string::npos) << Text;
  ASSERT_NE(Alloc, std::string::npos) << Text;
  std::size_t Reuse = Text.find("  could be reused by: cuMemAllocAsync on stream #3 (0xc3)\n"
                                "    #0 next (app+0x20)\n");
  ASSERT_NE(Fix, std::string::npos) << Text;
  ASSERT_NE(Reuse, std::string::npos) << Text;
  EXPECT_LT(Access, Release);
  EXPECT_LT(Release, Reuse);
  EXPECT_LT(Reuse, Alloc);
  EXPECT_LT(Alloc, Fix);
}

TEST(FindingTextTest, MissingStacksAreSaidNotHidden) {
  ReportedFinding F = unsafeFree();
  F.Access.Frames.clear();
  EXPECT_NE(formatText(F).find("(no call stack"), std::string::npos);
}

TEST(FindingTextTest, ReuseRaceNamesTheNewAccessAndItsCause) {
  ReportedFinding F = unsafeFree();
  F.Kind = FindingKind::ReuseRace;
  F.AfterUnsafeFree = true;
  F.NewAccess = site("stream #1 (0xa1)", "kernel 'fill'");
  std::string Text = formatText(F);
  EXPECT_EQ(Text.rfind("streamlife: error: reuse-race: 256 bytes at [0x1000, 0x1100) of a reused "
                       "stream-ordered allocation accessed on stream #1 (0xa1) without being "
                       "ordered after stream #2 (0xb2)\n", 0), 0u) << Text;
  EXPECT_NE(Text.find("caused by the unsafe free"), std::string::npos);
  EXPECT_NE(Text.find("  new access: kernel 'fill' on stream #1 (0xa1)"), std::string::npos);
}

TEST(FindingTextTest, UseBeforeAllocAndUseAfterFreeFixes) {
  ReportedFinding F = unsafeFree();
  F.Kind = FindingKind::UseBeforeAlloc;
  F.Access = SiteView();
  F.NewAccess = site("stream #3 (0xc3)", "kernel 'early'");
  EXPECT_EQ(fixSentence(F), "make stream #3 (0xc3) wait on an event recorded on stream #1 (0xa1) "
                            "after the allocation before it uses the buffer");
  F.Kind = FindingKind::UseAfterFree;
  EXPECT_EQ(fixSentence(F), "enqueue the release after the last use: record an event on stream #3 "
                            "(0xc3) after this use and make stream #1 (0xa1) wait on it before the free");
  EXPECT_NE(formatText(F).find("streamlife: error: use-after-free: "), std::string::npos);
}

TEST(FindingTextTest, SyncFreeHasNoReleaseStream) {
  ReportedFinding F = unsafeFree();
  F.Alloc = AllocKind::Device;
  F.Release.Stream.clear();
  EXPECT_NE(formatText(F).find("released on the host (synchronous free)"), std::string::npos);
}

TEST(FindingTextTest, JsonCarriesEveryPart) {
  std::string Json = formatJson({unsafeFree()}, {"not analysed: x"});
  EXPECT_EQ(Json.rfind("{\"findings\":[{\"kind\":\"unsafe-free\",\"range\":{\"begin\":\"0x1000\","
                       "\"end\":\"0x1100\",\"size\":256},\"allocation\":{\"kind\":\"stream-ordered\"", 0),
            0u) << Json;
  EXPECT_NE(Json.find("\"access\":{\"stream\":\"stream #2 (0xb2)\",\"operation\":\"kernel 'consume'\","
                      "\"site\":\"main (app+0x10)\""), std::string::npos) << Json;
  EXPECT_NE(Json.find("\"release\":{\"stream\":\"stream #1 (0xa1)\""), std::string::npos);
  EXPECT_NE(Json.find("\"reused_by\":{\"stream\":\"stream #3 (0xc3)\",\"operation\":"
                      "\"cuMemAllocAsync\",\"site\":\"next (app+0x20)\""),
            std::string::npos)
      << Json;
  EXPECT_NE(Json.find("\"fix\":\"record an event"), std::string::npos);
  EXPECT_NE(Json.find("\"notes\":[\"not analysed: x\"]"), std::string::npos);
  EXPECT_NE(Json.find("\"summary\":{\"findings\":1}}"), std::string::npos);
}

TEST(FindingTextTest, EmptyJsonReport) {
  EXPECT_EQ(formatJson({}, {}), "{\"findings\":[],\"notes\":[],\"summary\":{\"findings\":0}}\n");
}

TEST(FindingTextTest, SyncFreeSaysNoReuseSite) {
  ReportedFinding F = unsafeFree();
  F.ReusedBy = SiteView();
  EXPECT_EQ(formatText(F).find("could be reused by"), std::string::npos);
  EXPECT_EQ(formatFindingJson(F).find("reused_by"), std::string::npos);
}

TEST(FindingTextTest, DeferredSummaryLine) {
  EXPECT_EQ(deferredSummaryLine(3, 1),
            "streamlife: deferred: 3 unordered accesses at a release not reported: no allocation "
            "that could reuse the block came while they were unordered (1 still unordered at exit)");
  EXPECT_EQ(deferredSummaryLine(1, 0),
            "streamlife: deferred: 1 unordered access at a release not reported: no allocation "
            "that could reuse the block came while it was unordered (0 still unordered at exit)");
}

TEST(FindingTextTest, SummaryPluralization) {
  EXPECT_EQ(summaryLine(0), "streamlife: summary: 0 findings");
  EXPECT_EQ(summaryLine(1), "streamlife: summary: 1 finding");
  EXPECT_EQ(summaryLine(2), "streamlife: summary: 2 findings");
}

} // namespace
