//===- DeferredOperationsTest.cpp - a deferred call meets the engine as a direct one ===//
//
// defer_cuda_ops (allocators/AnnotatedAllocators.h) queues a launch's words,
// a copy's ranges, an event record, a stream wait and the stream-ordered
// pool's allocations and frees behind the events already queued, and replay
// makes the engine calls the runtime would have made at the call. This test
// plays random programs of caching-allocator block events and CUDA calls into
// two engines: one replays the queue before each call and makes it directly
// (the runtime with deferral off), the other queues every such call that
// finds events queued and replays only at random points (deferral on, any
// replay_batch). Every finding and the statistics must be the same.
//
//===----------------------------------------------------------------------===//
#include "allocators/AnnotatedAllocators.h"

#include "../engine/EngineDigest.h"
#include "../engine/EngineTestSupport.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;
using streamlife::rt::test::describe;

namespace {

constexpr int Caching = 1;
constexpr Handle StreamHandles[] = {0x5100, 0x5200, 0x5300};
constexpr unsigned Blocks = 8;

Range block(unsigned B) { return Range{0x7f0000000000 + Addr(B) * 0x10000, 0x8000}; }
Range poolBlock(unsigned B) { return Range{0x7e0000000000 + Addr(B) * 0x10000, 0x8000}; }

struct Side {
  Side()
      : E(Sink), Annotated(E, [](OpId Op) { return std::uint64_t(Op); }),
        Pool(E, AllocKind::StreamOrdered, ReleaseKind::StreamOrdered) {
    EXPECT_EQ(Annotated.registerAllocator("caching", 1), Caching);
    Annotated.setStreamOrderedPool(&Pool);
    for (Handle H : StreamHandles) {
      StreamDesc D;
      D.StreamHandle = H;
      D.Flavor = StreamFlavor::NonBlocking;
      Ids[H] = E.stream(0, D);
    }
  }
  void replay() {
    Annotated.drain([this](ThreadId, Handle H) { return Ids.count(H) ? Ids[H] : NoStream; });
  }
  CollectingSink Sink;
  Engine E;
  AnnotatedAllocators Annotated;
  EngineBlockEvents Pool;
  std::map<Handle, StreamId> Ids;
};

void play(unsigned Seed) {
  std::mt19937 Rng(Seed);
  Side Direct, Deferred;
  std::vector<bool> Live(Blocks, false), PoolLive(Blocks, false);
  std::size_t DeferredCalls = 0;
  std::map<const Side *, std::size_t> IgnoredAtCall; ///< generic words the calls made directly ignored
  for (unsigned Step = 0; Step < 3000; ++Step) {
    const ThreadId T = 1 + Rng() % 2;
    const Handle H = StreamHandles[Rng() % 3];
    const unsigned B = Rng() % Blocks;
    const Handle Ev = 0xe000 + Rng() % 3;
    const unsigned Pick = Rng() % 100;
    if (Pick < 30) { // a caching allocator's block event, queued on both sides
      BlockEvent E;
      E.Allocator = Caching;
      E.Thread = T;
      E.Ptr = block(B).Begin;
      E.Stream = H;
      E.Site = 500 + B;
      if (!Live[B]) {
        E.What = BlockEvent::Kind::Allocated;
        E.Size = block(B).Size;
      } else {
        E.What = BlockEvent::Kind::Released;
      }
      Live[B] = !Live[B];
      Direct.Annotated.push(E);
      Deferred.Annotated.push(E);
      continue;
    }
    if (Pick < 35) { // a call that needs the engine: both replay
      Direct.replay();
      Deferred.replay();
      Direct.E.hostSyncsEvent(T, Ev);
      Deferred.E.hostSyncsEvent(T, Ev);
      continue;
    }
    // A deferrable call: direct on one side (after a replay), queued on the
    // other when events wait there (InterceptContext::deferring).
    Direct.replay();
    const bool Defer = Deferred.Annotated.hasPending();
    if (!Defer)
      Deferred.replay();
    DeferredCalls += Defer;
    const PointerWord Words[] = {{block(B).Begin + 0x40, false}, {poolBlock(B).Begin, false},
                                 {block((B + 1) % Blocks).Begin, true}};
    const Range Touched[] = {Range{block(B).Begin + 0x100, 0x200}};
    for (Side *S : {&Direct, &Deferred}) {
      const bool Queue = S == &Deferred && Defer;
      const StreamId Id = S->Ids[H];
      if (Pick < 55) {
        if (Queue)
          S->Annotated.pushLaunch(T, Id, Words, 3, 100, 101);
        else
          IgnoredAtCall[S] += S->E.launchedWithPointerWords(T, Id, Words, 3, 100, 101);
      } else if (Pick < 65) {
        if (Queue)
          S->Annotated.pushTouched(T, Id, Touched, 1, 102);
        else
          S->E.launched(T, Id, {Touched[0]}, 102);
      } else if (Pick < 75) {
        if (Queue)
          S->Annotated.pushEventRecorded(T, Ev, Id);
        else
          S->E.eventRecorded(T, Ev, Id);
      } else if (Pick < 81) {
        if (Queue)
          S->Annotated.pushStreamWaited(T, Id, Ev);
        else
          S->E.streamWaitsEvent(T, Id, Ev);
      } else if (Pick < 85) { // the handle comes back with the next record
        if (Queue)
          S->Annotated.pushEventDestroyed(T, Ev);
        else
          S->E.eventDestroyed(T, Ev);
      } else if (!PoolLive[B]) {
        if (Queue)
          S->Annotated.pushPoolAllocated(T, poolBlock(B).Begin, poolBlock(B).Size, Id, 103, 0);
        else
          S->Pool.blockAllocated(T, poolBlock(B), Id, 103, 0);
      } else {
        if (Queue)
          S->Annotated.pushPoolFreed(T, poolBlock(B).Begin, Id, 104);
        else
          S->Pool.blockReleased(T, poolBlock(B).Begin, Id, 104);
      }
    }
    if (Pick >= 85)
      PoolLive[B] = !PoolLive[B];
    if (Rng() % 16 == 0) // a replay the deferred side met (a batch filled, a long lock queue)
      Deferred.replay();
  }
  Direct.replay();
  Deferred.replay();
  ASSERT_GT(DeferredCalls, 200u) << "seed " << Seed;
  ASSERT_GT(Direct.Sink.Findings.size(), 0u) << "seed " << Seed;
  ASSERT_EQ(Direct.Sink.Findings.size(), Deferred.Sink.Findings.size()) << "seed " << Seed;
  for (std::size_t I = 0; I < Direct.Sink.Findings.size(); ++I)
    ASSERT_EQ(describe(Direct.Sink.Findings[I]), describe(Deferred.Sink.Findings[I]))
        << "finding " << I << ", seed " << Seed;
  ASSERT_EQ(describe(Direct.E.stats()), describe(Deferred.E.stats())) << "seed " << Seed;
  // The generic-scan words ignored for pointing into released memory: at the
  // call, or counted by the replay for the deferred launches.
  ASSERT_EQ(IgnoredAtCall[&Direct], IgnoredAtCall[&Deferred] + Deferred.Annotated.ignoredGenericWords())
      << "seed " << Seed;
}

TEST(DeferredOperationsTest, RandomProgramsMeetTheEngineAsDirectCalls) {
  for (unsigned Seed = 1; Seed <= 20 && !::testing::Test::HasFailure(); ++Seed)
    play(Seed);
}

} // namespace
