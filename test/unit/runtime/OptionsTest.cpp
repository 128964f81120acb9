//===- OptionsTest.cpp - the option table and STREAMLIFE_OPTIONS ----------===//
#include "config/Options.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

TEST(OptionsTest, DefaultsComeFromTheTable) {
  Options O;
  EXPECT_EQ(O.error_exitcode, 0);
  EXPECT_EQ(O.report, "");
  EXPECT_TRUE(O.dedup);
  EXPECT_GT(O.stack_depth, 0);
}

TEST(OptionsTest, ParsesColonSeparatedPairs) {
  Options O;
  std::vector<std::string> Errors;
  EXPECT_TRUE(parseOptionString(O, "error_exitcode=66:report=/tmp/r.json:dedup=0", Errors));
  EXPECT_TRUE(Errors.empty());
  EXPECT_EQ(O.error_exitcode, 66);
  EXPECT_EQ(O.report, "/tmp/r.json");
  EXPECT_FALSE(O.dedup);
}

TEST(OptionsTest, LaterValuesWin) {
  Options O;
  std::vector<std::string> Errors;
  EXPECT_TRUE(parseOptionString(O, "error_exitcode=3:error_exitcode=4", Errors));
  EXPECT_EQ(O.error_exitcode, 4);
}

TEST(OptionsTest, EmptyItemsAreSkipped) {
  Options O;
  std::vector<std::string> Errors;
  EXPECT_TRUE(parseOptionString(O, "::verbosity=1:", Errors));
  EXPECT_EQ(O.verbosity, 1);
}

TEST(OptionsTest, UnknownNameIsAnErrorAndTheRestStillApplies) {
  Options O;
  std::vector<std::string> Errors;
  EXPECT_FALSE(parseOptionString(O, "bogus=1:error_exitcode=9", Errors));
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "unknown option 'bogus'");
  EXPECT_EQ(O.error_exitcode, 9);
}

TEST(OptionsTest, BadValuesKeepThePreviousValue) {
  Options O;
  std::vector<std::string> Errors;
  EXPECT_FALSE(parseOptionString(O, "error_exitcode=x:dedup=maybe:stack_depth", Errors));
  ASSERT_EQ(Errors.size(), 3u);
  EXPECT_EQ(Errors[0], "option 'error_exitcode' expects an integer, got 'x'");
  EXPECT_EQ(Errors[1], "option 'dedup' expects 0, 1, true or false, got 'maybe'");
  EXPECT_EQ(Errors[2], "expected name=value, got 'stack_depth'");
  EXPECT_EQ(O.error_exitcode, 0);
  EXPECT_TRUE(O.dedup);
}

TEST(OptionsTest, IntegersRejectTrailingGarbage) {
  Options O;
  std::string Error;
  EXPECT_FALSE(setOption(O, "error_exitcode", "12abc", Error));
  EXPECT_FALSE(setOption(O, "error_exitcode", " 5", Error));
  EXPECT_FALSE(setOption(O, "error_exitcode", "+5", Error));
  EXPECT_FALSE(setOption(O, "error_exitcode", "-", Error));
  EXPECT_TRUE(setOption(O, "error_exitcode", "5", Error));
  EXPECT_EQ(O.error_exitcode, 5);
}

// An exit status is taken mod 256: 256 would exit 0 with findings, -1 255.
TEST(OptionsTest, ErrorExitcodeIsAnExitStatus) {
  Options O;
  std::string Error;
  for (const char *Bad : {"-1", "256", "300", "99999"}) {
    EXPECT_FALSE(setOption(O, "error_exitcode", Bad, Error)) << Bad;
    EXPECT_EQ(Error, std::string("option 'error_exitcode' expects an exit status, 1-255 (0: keep "
                                 "the program's own), got '") + Bad + "'");
  }
  EXPECT_EQ(O.error_exitcode, 0);
  EXPECT_TRUE(setOption(O, "error_exitcode", "255", Error));
  EXPECT_EQ(O.error_exitcode, 255);
  EXPECT_TRUE(setOption(O, "error_exitcode", "1", Error));
  EXPECT_TRUE(setOption(O, "error_exitcode", "0", Error));
  EXPECT_FALSE(setOption(O, "stack_depth", "-3", Error));
  EXPECT_EQ(O.replay_thread_nap_ns, 50000);
  EXPECT_FALSE(setOption(O, "replay_thread_nap_ns", "-1", Error));
  EXPECT_FALSE(setOption(O, "replay_thread_nap_ns", "1000001", Error));
  EXPECT_TRUE(setOption(O, "replay_thread_nap_ns", "0", Error));
  EXPECT_EQ(O.replay_thread_nap_ns, 0);
  EXPECT_FALSE(setOption(O, "replay_batch", "-1", Error));
  EXPECT_TRUE(setOption(O, "replay_batch", "0", Error));
  EXPECT_EQ(O.replay_batch, 0);
}

TEST(OptionsTest, FlagNamesAreGeneratedFromTheTable) {
  const OptionInfo *Info = findOption("error_exitcode");
  ASSERT_NE(Info, nullptr);
  EXPECT_EQ(flagName(*Info), "--error-exitcode");
  EXPECT_EQ(findOption("error-exitcode"), nullptr);
}

TEST(OptionsTest, TheHelpListHasEveryOptionWithItsDefault) {
  // STREAMLIFE_OPTIONS=help=1: name=default per option, the value in effect
  // only where it differs.
  Options O;
  std::string List = renderOptionList(O);
  for (const OptionInfo &Row : optionTable())
    EXPECT_NE(List.find("\n  " + std::string(Row.Name) + "="), std::string::npos) << Row.Name;
  EXPECT_NE(List.find("\n  stack_depth=32\n"), std::string::npos) << List;
  EXPECT_NE(List.find("\n  cxx=g++\n"), std::string::npos) << List;
  EXPECT_NE(List.find("\n  report=\n"), std::string::npos) << List;
  EXPECT_EQ(List.find("(now"), std::string::npos) << List;
  std::string Error;
  ASSERT_TRUE(setOption(O, "stack_depth", "8", Error));
  ASSERT_TRUE(setOption(O, "dedup", "0", Error));
  List = renderOptionList(O);
  EXPECT_NE(List.find("\n  stack_depth=32 (now 8)\n"), std::string::npos) << List;
  EXPECT_NE(List.find("\n  dedup=true (now false)\n"), std::string::npos) << List;
}

} // namespace
