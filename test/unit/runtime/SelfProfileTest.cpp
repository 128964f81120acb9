//===- SelfProfileTest.cpp - per-callback timing of the validator ---------===//
#include "intercept/SelfProfile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace streamlife::rt;

namespace {

TEST(SelfProfileTest, OffTimesNothing) {
  SelfProfile P;
  ProfileSlot Launch = P.slot("cuLaunchKernel");
  {
    ProfileTimer T(P, Launch);
  }
  EXPECT_TRUE(P.rows().empty());
}

TEST(SelfProfileTest, SameNameSameSlot) {
  SelfProfile P;
  EXPECT_EQ(P.slot("ncclAllReduce"), P.slot("ncclAllReduce"));
  EXPECT_NE(P.slot("ncclAllReduce"), P.slot("cublasGemmEx"));
  EXPECT_NE(P.slot("cuLaunchKernel"), SelfProfile::phaseSlot(ProfilePhase::Engine));
}

TEST(SelfProfileTest, CallsBeforePhasesEachByTotalTime) {
  SelfProfile P;
  P.enable();
  ProfileSlot Launch = P.slot("cuLaunchKernel"), Record = P.slot("cuEventRecord");
  P.add(Launch, 1000);
  P.add(Launch, 1000);
  P.add(Record, 50);
  P.add(SelfProfile::phaseSlot(ProfilePhase::CallSites), 10);
  P.add(SelfProfile::phaseSlot(ProfilePhase::Engine), 700);
  std::vector<SelfProfile::Row> Rows = P.rows();
  ASSERT_EQ(Rows.size(), 4u);
  EXPECT_EQ(Rows[0].Name, "cuLaunchKernel");
  EXPECT_EQ(Rows[0].Calls, 2u);
  EXPECT_FALSE(Rows[0].Phase);
  EXPECT_EQ(Rows[1].Name, "cuEventRecord");
  EXPECT_EQ(Rows[2].Name, "engine");
  EXPECT_TRUE(Rows[2].Phase);
  EXPECT_EQ(Rows[3].Name, "call-site capture");
  EXPECT_GT(Rows[0].TotalNs, Rows[1].TotalNs);
}

TEST(SelfProfileTest, TimerAddsOneCall) {
  SelfProfile P;
  P.enable();
  ProfileSlot S = P.slot("cuMemcpyAsync");
  {
    ProfileTimer T(P, S);
    ProfileTimer Phase(P, ProfilePhase::Decode);
  }
  std::vector<SelfProfile::Row> Rows = P.rows();
  ASSERT_EQ(Rows.size(), 2u);
  EXPECT_EQ(Rows[0].Calls, 1u);
  EXPECT_EQ(Rows[1].Name, "parameter decoding");
}

TEST(SelfProfileTest, PrintsATable) {
  SelfProfile P;
  P.enable();
  P.add(P.slot("cuLaunchKernel"), 5000);
  char *Text = nullptr;
  std::size_t Size = 0;
  std::FILE *Out = open_memstream(&Text, &Size);
  P.print(Out);
  std::fclose(Out);
  std::string Printed(Text, Size);
  free(Text);
  EXPECT_NE(Printed.find("streamlife: self-profile: the validator's own time"), std::string::npos);
  EXPECT_NE(Printed.find("streamlife: self-profile: intercepted call / phase"), std::string::npos);
  EXPECT_NE(Printed.find("streamlife: self-profile: cuLaunchKernel"), std::string::npos);
}

} // namespace
