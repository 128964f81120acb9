//===- ProcessTallyTest.cpp - the launcher's per-process finding counts ---===//
#include "support/ProcessTally.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

using namespace streamlife;

namespace {

TEST(ProcessTallyTest, LastLineOfEachProcessWinsInFirstSeenOrder) {
  std::string Path = ::testing::TempDir() + "tally.XXXXXX";
  int Fd = mkstemp(Path.data());
  ASSERT_GE(Fd, 0);
  close(Fd);
  {
    std::ofstream Out(Path);
    Out << "200\ta1\t1\t0\tpython3\n"
        << "300\tb1\t0\t1\tpython3\n"
        << "200\ta1\t3\t0\tpython3\n"
        << "garbage line\n"
        << "400\tc1\t2\t\tbug"; // torn: no newline, ignored
  }
  std::vector<ProcessCount> Tally = readTally(Path);
  ASSERT_EQ(Tally.size(), 2u);
  EXPECT_EQ(Tally[0].Pid, 200);
  EXPECT_EQ(Tally[0].Findings, 3u);
  EXPECT_EQ(Tally[0].Rank, "0");
  EXPECT_EQ(Tally[1].Pid, 300);
  EXPECT_EQ(Tally[1].Findings, 0u);
  EXPECT_EQ(Tally[1].Command, "python3");
  std::remove(Path.c_str());
}

// exec() keeps the pid: the new image's last line (0 findings at its exit)
// must not replace the old image's count.
TEST(ProcessTallyTest, ProgramImagesOfOnePidCountApart) {
  std::string Path = ::testing::TempDir() + "tally.XXXXXX";
  int Fd = mkstemp(Path.data());
  ASSERT_GE(Fd, 0);
  close(Fd);
  {
    std::ofstream Out(Path);
    Out << "200\ta1\t1\t\tbash\n"
        << "200\tb2\t0\t\tpython3\n";
  }
  std::vector<ProcessCount> Tally = readTally(Path);
  ASSERT_EQ(Tally.size(), 2u);
  EXPECT_EQ(Tally[0].Findings, 1u);
  EXPECT_EQ(Tally[0].Command, "bash");
  EXPECT_EQ(Tally[1].Findings, 0u);
  EXPECT_EQ(Tally[1].Image, "b2");
  std::remove(Path.c_str());
}

// A nested launcher names its own tally first and keeps the outer one: each
// process appends to both, so the outer launcher still sees the findings.
TEST(ProcessTallyTest, AppendsToEveryLaunchersTallyOfANestedRun) {
  std::string Error;
  std::string Outer = createTallyFile(::testing::TempDir(), Error);
  ASSERT_FALSE(Outer.empty()) << Error;
  std::string Inner = createTallyFile(::testing::TempDir(), Error);
  ASSERT_FALSE(Inner.empty()) << Error;
  std::string List = tallyList(Inner, Outer.c_str());
  EXPECT_EQ(List, Inner + ":" + Outer);
  setenv(TallyEnvironmentVariable, List.c_str(), 1);
  EXPECT_TRUE(appendToTally(describeThisProcess(4)));
  unsetenv(TallyEnvironmentVariable);
  for (const std::string &Path : {Inner, Outer}) {
    std::vector<ProcessCount> Tally = readTally(Path);
    ASSERT_EQ(Tally.size(), 1u) << Path;
    EXPECT_EQ(Tally[0].Findings, 4u);
    EXPECT_EQ(Tally[0].Image.size(), 16u);
    std::remove(Path.c_str());
  }
}

TEST(ProcessTallyTest, AppendsOnlyToAnExistingTallyNamedByTheEnvironment) {
  std::string Path = ::testing::TempDir() + "tally.XXXXXX";
  int Fd = mkstemp(Path.data());
  ASSERT_GE(Fd, 0);
  close(Fd);
  setenv(TallyEnvironmentVariable, Path.c_str(), 1);
  setenv("RANK", "5", 1);
  appendToTally(describeThisProcess(2));
  std::vector<ProcessCount> Tally = readTally(Path);
  ASSERT_EQ(Tally.size(), 1u);
  EXPECT_EQ(Tally[0].Pid, getpid());
  EXPECT_EQ(Tally[0].Findings, 2u);
  EXPECT_EQ(Tally[0].Rank, "5");
  EXPECT_EQ(Tally[0].Command, "SupportTests");
  std::remove(Path.c_str());
  // Gone: never re-created.
  appendToTally(describeThisProcess(1));
  EXPECT_NE(access(Path.c_str(), F_OK), 0);
  unsetenv(TallyEnvironmentVariable);
  unsetenv("RANK");
}

} // namespace
