//===- StreamResolverTest.cpp - canonical stream handles -------------------===//
//
// The special handles (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) and real
// handles, resolved against a real engine and fake driver entry points.
//
//===----------------------------------------------------------------------===//
#include "intercept/StreamResolver.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>
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

TEST_F(StreamResolverTest, ARealHandleIsOneCacheEntryWhateverTheContextVariantAndThread) {
  // A stream-ordered allocation comes through CUPTI with its context, a
  // launch through the driver's entry point with none: the thread's entry
  // for a real handle answers both. Random calls on real and special handles,
  // contexts, variants and threads, streams destroyed and their handles
  // reused: each answer is the stream the handle was created as (the slow
  // path's answer), or, for a special handle, the one it resolved to the
  // first time for that thread.
  std::vector<CUstream> Real = {reinterpret_cast<CUstream>(0x5000), reinterpret_cast<CUstream>(0x6000),
                                reinterpret_cast<CUstream>(0xa000)}; // no slot of a special handle's
  std::map<CUstream, StreamId> Created;
  for (CUstream H : Real)
    Created[H] = Resolver.created(0, H, CU_STREAM_NON_BLOCKING, 0, ctx(0));
  const CUcontext Contexts[] = {nullptr, ctx(0), reinterpret_cast<CUcontext>(0xc0)};
  const CUstream Special[] = {nullptr, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD};
  // The calls name three threads (a queued block event's stream is resolved
  // for its owner): a special handle's per-thread stream is the thread's own,
  // a real handle's stream is everyone's.
  std::map<std::tuple<CUstream, bool, ThreadId>, StreamId> FirstSeen;
  std::set<StreamId> PerThreadStreams;
  std::mt19937 Rng(3);
  std::uint64_t RealCalls = 0, RealMisses = 0;
  for (int Call = 0; Call < 3000; ++Call) {
    CUcontext Ctx = Contexts[Rng() % 3];
    bool PerThread = Rng() % 2;
    ThreadId T = Rng() % 3;
    if (Rng() % 4 == 0) {
      CUstream H = Special[Rng() % 3];
      bool ThreadsOwn = H == CU_STREAM_PER_THREAD || (H == nullptr && PerThread);
      StreamId Got = Resolver.resolve(T, H, PerThread, Ctx);
      auto [It, New] =
          FirstSeen.emplace(std::make_tuple(H == CU_STREAM_PER_THREAD ? nullptr : H, ThreadsOwn, T), Got);
      ASSERT_EQ(Got, It->second) << "call " << Call;
      if (New && ThreadsOwn)
        ASSERT_TRUE(PerThreadStreams.insert(Got).second) << "two threads share a per-thread stream";
      continue;
    }
    CUstream H = Real[Rng() % Real.size()];
    if (Rng() % 500 == 0) {
      Resolver.destroyed(T, H);
      Created[H] = Resolver.created(T, H, CU_STREAM_NON_BLOCKING, 0, ctx(0));
    }
    const std::uint64_t MissesBefore = Resolver.misses();
    ASSERT_EQ(Resolver.resolve(T, H, PerThread, Ctx), Created[H]) << "call " << Call;
    RealMisses += Resolver.misses() - MissesBefore;
    ++RealCalls;
  }
  // Without the shared entry nearly every other call on a real handle missed.
  // (a miss each after creation; the special handles use other slots).
  EXPECT_LT(RealMisses, RealCalls / 50);
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
