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
    Out << "200\t1\t0\tpython3\n"
        << "300\t0\t1\tpython3\n"
        << "200\t3\t0\tpython3\n"
        << "garbage line\n"
        << "400\t2\t\tbug"; // torn: no newline, ignored
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
