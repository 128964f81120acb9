//===- SelfProfileTest.cpp - per-callback timing of the validator ---------===//
#include "intercept/SelfProfile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace streamlife::rt;

namespace {

std::string printed(const SelfProfile &P) {
  char *Text = nullptr;
  std::size_t Size = 0;
  std::FILE *Out = open_memstream(&Text, &Size);
  P.print(Out);
  std::fclose(Out);
  std::string Printed(Text, Size);
  free(Text);
  return Printed;
}

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
  EXPECT_EQ(Rows[0].Kind, SelfProfile::RowKind::Call);
  EXPECT_EQ(Rows[1].Name, "cuEventRecord");
  EXPECT_EQ(Rows[2].Name, "engine");
  EXPECT_EQ(Rows[2].Kind, SelfProfile::RowKind::Phase);
  EXPECT_EQ(Rows[3].Name, "call-site capture");
  EXPECT_GT(Rows[0].TotalNs, Rows[1].TotalNs);
}

TEST(SelfProfileTest, CallbacksBetweenCallsAndPhases) {
  SelfProfile P;
  P.enable();
  P.add(SelfProfile::phaseSlot(ProfilePhase::Engine), 9000);
  P.add(SelfProfile::callbackSlot(ProfileCallback::HostSync), 5000);
  P.add(SelfProfile::callbackSlot(ProfileCallback::BlockEvents), 7000);
  P.add(P.slot("cuLaunchKernel"), 10);
  std::vector<SelfProfile::Row> Rows = P.rows();
  ASSERT_EQ(Rows.size(), 4u);
  EXPECT_EQ(Rows[0].Name, "cuLaunchKernel");
  EXPECT_EQ(Rows[1].Name, "allocator block events");
  EXPECT_EQ(Rows[1].Kind, SelfProfile::RowKind::Callback);
  EXPECT_EQ(Rows[2].Name, "host synchronization");
  EXPECT_EQ(Rows[3].Kind, SelfProfile::RowKind::Phase);
  // A call named like a callback gets a slot of its own, not the callback's.
  EXPECT_NE(P.slot("host synchronization"), SelfProfile::callbackSlot(ProfileCallback::HostSync));
  EXPECT_NE(P.slot("engine"), SelfProfile::phaseSlot(ProfilePhase::Engine));
}

TEST(SelfProfileTest, CallbackTimerTakesItsFixedSlot) {
  SelfProfile P;
  P.enable();
  {
    ProfileTimer T(P, ProfileCallback::BlockEvents);
  }
  std::vector<SelfProfile::Row> Rows = P.rows();
  ASSERT_EQ(Rows.size(), 1u);
  EXPECT_EQ(Rows[0].Name, "allocator block events");
  EXPECT_EQ(Rows[0].Calls, 1u);
}

TEST(SelfProfileTest, CallbackTimerWithoutAProfileTimesIntoTheActiveOne) {
  {
    ProfileTimer T(ProfileCallback::HostSync); // nothing enabled: a no-op
  }
  SelfProfile P;
  {
    ProfileTimer T(ProfileCallback::HostSync);
  }
  EXPECT_TRUE(P.rows().empty()); // not enabled yet
  P.enable();
  {
    ProfileTimer T(ProfileCallback::HostSync);
  }
  std::vector<SelfProfile::Row> Rows = P.rows();
  ASSERT_EQ(Rows.size(), 1u);
  EXPECT_EQ(Rows[0].Name, "host synchronization");
}

TEST(SelfProfileTest, ADestroyedProfileIsNoLongerActive) {
  {
    SelfProfile P;
    P.enable();
    EXPECT_EQ(SelfProfile::active(), &P);
  }
  EXPECT_EQ(SelfProfile::active(), nullptr);
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
  std::string Printed = printed(P);
  EXPECT_NE(Printed.find("streamlife: self-profile: the validator's own time"), std::string::npos);
  EXPECT_NE(Printed.find("streamlife: self-profile: intercepted call / phase"), std::string::npos);
  EXPECT_NE(Printed.find("streamlife: self-profile: cuLaunchKernel"), std::string::npos);
  EXPECT_EQ(Printed.find("callbacks outside CUDA calls"), std::string::npos);
}

TEST(SelfProfileTest, PrintsCallbacksUnderTheirOwnHeading) {
  SelfProfile P;
  P.enable();
  P.add(P.slot("cuLaunchKernel"), 5000);
  P.add(SelfProfile::callbackSlot(ProfileCallback::HostSync), 300);
  P.add(SelfProfile::phaseSlot(ProfilePhase::Engine), 100);
  std::string Printed = printed(P);
  std::size_t Launch = Printed.find("self-profile: cuLaunchKernel");
  std::size_t Heading = Printed.find("self-profile: callbacks outside CUDA calls:");
  std::size_t Sync = Printed.find("self-profile: host synchronization");
  std::size_t Phases = Printed.find("self-profile: phases, inside the calls and callbacks above:");
  std::size_t Engine = Printed.find("self-profile: engine");
  ASSERT_NE(Engine, std::string::npos);
  EXPECT_LT(Launch, Heading);
  EXPECT_LT(Heading, Sync);
  EXPECT_LT(Sync, Phases);
  EXPECT_LT(Phases, Engine);
}

} // namespace
