//===- StreamResolverTest.cpp - canonical stream handles -------------------===//
//
// The special handles (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) and real
// handles, resolved against a real engine and fake driver entry points.
//
//===----------------------------------------------------------------------===//
#include "intercept/StreamResolver.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace streamlife::rt;

namespace {

int CurrentDevice = 0;
std::map<CUstream, unsigned> Flags;

CUresult fakeCtxGetDevice(CUdevice *D) {
  *D = CurrentDevice;
  return CUDA_SUCCESS;
}
CUresult fakeStreamGetFlags(CUstream S, unsigned *F) {
  auto It = Flags.find(S);
  if (It == Flags.end())
    return CUDA_ERROR_INVALID_HANDLE;
  *F = It->second;
  return CUDA_SUCCESS;
}

class NoFindings : public FindingSink {
public:
  void report(const Finding &) override {}
};

struct StreamResolverTest : ::testing::Test {
  StreamResolverTest() : E(Sink), Resolver(E, Driver) {
    CurrentDevice = 0;
    Flags.clear();
  }
  static DriverApi makeDriver() {
    DriverApi D;
    D.CtxGetDevice = fakeCtxGetDevice;
    D.StreamGetFlags = fakeStreamGetFlags;
    return D;
  }
  CUcontext ctx(int Device) { return reinterpret_cast<CUcontext>(0xc000 + Device); }

  NoFindings Sink;
  Engine E;
  DriverApi Driver = makeDriver();
  StreamResolver Resolver;
};

TEST_F(StreamResolverTest, NullAndLegacyHandleAreTheLegacyStream) {
  StreamId Null = Resolver.resolve(0, nullptr, false, ctx(0));
  StreamId Legacy = Resolver.resolve(0, CU_STREAM_LEGACY, false, ctx(0));
  EXPECT_EQ(Null, Legacy);
  EXPECT_EQ(E.streamInfo(Null).Desc.Flavor, StreamFlavor::LegacyDefault);
  EXPECT_EQ(Resolver.name(Null), "stream #" + std::to_string(Null) + " (legacy default stream, device 0)");
}

TEST_F(StreamResolverTest, NullInAPerThreadCallIsThePerThreadStream) {
  StreamId Ptsz = Resolver.resolve(3, nullptr, true, ctx(0));
  StreamId PerThread = Resolver.resolve(3, CU_STREAM_PER_THREAD, false, ctx(0));
  StreamId Legacy = Resolver.resolve(3, nullptr, false, ctx(0));
  EXPECT_EQ(Ptsz, PerThread);
  EXPECT_NE(Ptsz, Legacy);
  EXPECT_EQ(E.streamInfo(Ptsz).Desc.Flavor, StreamFlavor::PerThreadDefault);
}

TEST_F(StreamResolverTest, EachThreadHasItsOwnPerThreadStream) {
  StreamId T1 = Resolver.resolve(1, CU_STREAM_PER_THREAD, false, ctx(0));
  StreamId T2 = Resolver.resolve(2, CU_STREAM_PER_THREAD, false, ctx(0));
  EXPECT_NE(T1, T2);
  // The legacy stream is shared by all threads.
  EXPECT_EQ(Resolver.resolve(1, nullptr, false, ctx(0)), Resolver.resolve(2, nullptr, false, ctx(0)));
}

TEST_F(StreamResolverTest, EachDeviceHasItsOwnLegacyStream) {
  StreamId D0 = Resolver.resolve(0, nullptr, false, ctx(0));
  CurrentDevice = 1;
  StreamId D1 = Resolver.resolve(0, nullptr, false, ctx(1));
  EXPECT_NE(D0, D1);
  EXPECT_EQ(E.streamInfo(D1).Desc.Device, 1);
}

TEST_F(StreamResolverTest, UnknownStreamsAreLearntFromTheDriver) {
  CUstream S = reinterpret_cast<CUstream>(0x5000);
  Flags[S] = CU_STREAM_NON_BLOCKING;
  StreamId Id = Resolver.resolve(0, S, false, ctx(0));
  EXPECT_EQ(E.streamInfo(Id).Desc.Flavor, StreamFlavor::NonBlocking);
  EXPECT_EQ(Resolver.name(Id), "stream #" + std::to_string(Id) + " (0x5000, non-blocking)");
  // A real handle means the same stream whichever call variant names it.
  EXPECT_EQ(Resolver.resolve(0, S, true, ctx(0)), Id);
}

TEST_F(StreamResolverTest, CreatedStreamsKeepTheirFlags) {
  CUstream S = reinterpret_cast<CUstream>(0x6000);
  StreamId Id = Resolver.created(0, S, CU_STREAM_DEFAULT, -1, ctx(0));
  EXPECT_EQ(E.streamInfo(Id).Desc.Flavor, StreamFlavor::Blocking);
  EXPECT_EQ(E.streamInfo(Id).Desc.Priority, -1);
  EXPECT_EQ(Resolver.resolve(0, S, false, ctx(0)), Id);
}

TEST_F(StreamResolverTest, AReusedHandleIsANewStream) {
  CUstream S = reinterpret_cast<CUstream>(0x7000);
  StreamId First = Resolver.created(0, S, CU_STREAM_NON_BLOCKING, 0, ctx(0));
  EXPECT_EQ(Resolver.resolve(0, S, false, ctx(0)), First); // now in the thread's cache
  Resolver.destroyed(0, S);
  StreamId Second = Resolver.created(0, S, CU_STREAM_NON_BLOCKING, 0, ctx(0));
  EXPECT_NE(First, Second);
  EXPECT_EQ(Resolver.resolve(0, S, false, ctx(0)), Second);
}

TEST_F(StreamResolverTest, StreamsSharingACacheSlotKeepTheirOwnIds) {
  // The thread's cache of recent answers has a few slots; 64 streams resolved
  // round and round share them, and each must still resolve to its own
  // stream, also once one of them was destroyed and its handle reused.
  std::vector<CUstream> Handles;
  std::vector<StreamId> Ids;
  for (std::uintptr_t I = 0; I < 64; ++I) {
    Handles.push_back(reinterpret_cast<CUstream>(0x100000 + I * 0x40));
    Ids.push_back(Resolver.created(0, Handles.back(), CU_STREAM_NON_BLOCKING, 0, ctx(0)));
  }
  for (int Round = 0; Round < 3; ++Round)
    for (std::size_t I = 0; I < Handles.size(); I += (Round == 1 ? 7 : 1))
      ASSERT_EQ(Resolver.resolve(0, Handles[I], false, ctx(0)), Ids[I]) << "stream " << I << " round " << Round;
  Resolver.destroyed(0, Handles[5]);
  StreamId Reused = Resolver.created(0, Handles[5], CU_STREAM_NON_BLOCKING, 0, ctx(0));
  EXPECT_NE(Reused, Ids[5]);
  Ids[5] = Reused;
  for (std::size_t I = 0; I < Handles.size(); ++I)
    ASSERT_EQ(Resolver.resolve(0, Handles[I], false, ctx(0)), Ids[I]) << "stream " << I;
}

TEST_F(StreamResolverTest, TwoResolversDoNotShareTheirCachedAnswers) {
  // The thread's cache is shared by every resolver in the process; an entry
  // is told apart by its generation, which no two resolvers share. The
  // same handle means different streams to two engines.
  NoFindings OtherSink;
  Engine Other(OtherSink);
  StreamResolver OtherResolver(Other, Driver);
  CUstream H = reinterpret_cast<CUstream>(0x200000);
  OtherResolver.created(0, reinterpret_cast<CUstream>(0x300000), CU_STREAM_NON_BLOCKING, 0, ctx(0));
  StreamId Here = Resolver.created(0, H, CU_STREAM_NON_BLOCKING, 0, ctx(0));
  StreamId There = OtherResolver.created(0, H, CU_STREAM_NON_BLOCKING, 0, ctx(0));
  ASSERT_NE(Here, There);
  for (int Round = 0; Round < 3; ++Round) {
    ASSERT_EQ(Resolver.resolve(0, H, false, ctx(0)), Here) << "round " << Round;
    ASSERT_EQ(OtherResolver.resolve(0, H, false, ctx(0)), There) << "round " << Round;
  }
}

} // namespace
