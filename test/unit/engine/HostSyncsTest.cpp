//===- HostSyncsTest.cpp - host synchronization events in runs ------------===//
//
// Engine::hostSyncs applies a run of host synchronization events under one
// lock (a replay of the intercept's queue); it must leave every clock as the
// single calls do. Random runs of releases, acquires, destructions and
// thread ends of 4 threads on 5 objects, with CUDA work between the runs,
// through one engine in runs and one call by call.
//
//===----------------------------------------------------------------------===//
#include "EngineTestSupport.h"
#include "engine/EngineImpl.h"

#include <random>

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

bool same(const VectorClock &A, const VectorClock &B) { return A.dominates(B) && B.dominates(A); }

TEST(HostSyncsTest, ARunLeavesTheClocksOfItsCallsOneByOne) {
  CollectingSink SinkA, SinkB;
  Engine InRuns(SinkA), OneByOne(SinkB);
  std::vector<StreamId> Streams;
  for (Engine *E : {&InRuns, &OneByOne})
    for (Handle H = 1; H <= 6; ++H)
      Streams.push_back(E->stream(0, StreamDesc{0x1000 * H, 0, StreamFlavor::NonBlocking, 0}));
  std::mt19937 Rng(5);
  std::vector<Engine::HostSync> Run;
  for (int Round = 0; Round < 3000; ++Round) {
    // CUDA work between runs: the threads' clocks move.
    const ThreadId T = Rng() % 4;
    const StreamId S = Streams[Rng() % 6];
    for (Engine *E : {&InRuns, &OneByOne}) {
      E->launched(T, S, {}, 7);
      if (Round % 3 == 0)
        E->hostSyncsStream(T, S);
    }
    Run.clear();
    for (unsigned I = 0, N = 1 + Rng() % 6; I < N; ++I) {
      Engine::HostSync Sync;
      const unsigned What = Rng() % 20;
      Sync.What = What < 9    ? Engine::HostSync::Kind::Releases
                  : What < 18 ? Engine::HostSync::Kind::Acquires
                  : What < 19 ? Engine::HostSync::Kind::Destroyed
                              : Engine::HostSync::Kind::Finished;
      Sync.Thread = Rng() % 4;
      Sync.Sync = 0x5000 + 64 * (Rng() % 5);
      Run.push_back(Sync);
    }
    InRuns.hostSyncs(Run.data(), Run.size());
    for (const Engine::HostSync &Sync : Run) {
      switch (Sync.What) {
      case Engine::HostSync::Kind::Releases:
        OneByOne.hostReleases(Sync.Thread, Sync.Sync);
        break;
      case Engine::HostSync::Kind::Acquires:
        OneByOne.hostAcquires(Sync.Thread, Sync.Sync);
        break;
      case Engine::HostSync::Kind::Destroyed:
        OneByOne.syncDestroyed(Sync.Sync);
        break;
      case Engine::HostSync::Kind::Finished:
        OneByOne.hostFinished(Sync.Thread);
        break;
      }
    }
    Engine::Impl &A = InRuns.state(), &B = OneByOne.state();
    for (ThreadId Th = 0; Th < 4; ++Th) {
      const HostClock *HA = A.Hosts.find(Th), *HB = B.Hosts.find(Th);
      ASSERT_EQ(HA == nullptr, HB == nullptr);
      if (HA)
        ASSERT_TRUE(same(HA->Clock, HB->Clock)) << "round " << Round << ", thread " << Th;
    }
    for (SyncId Object = 0x5000; Object < 0x5000 + 64 * 5; Object += 64) {
      const SyncClock *CA = A.Syncs.find(Object), *CB = B.Syncs.find(Object);
      ASSERT_EQ(CA == nullptr, CB == nullptr) << "round " << Round;
      if (CA)
        ASSERT_TRUE(same(CA->Clock, CB->Clock)) << "round " << Round;
    }
    ASSERT_TRUE(same(A.Hosts.commonKnowledge(), B.Hosts.commonKnowledge())) << "round " << Round;
  }
}

} // namespace
