//===- EngineTestSupport.h - a fake sink and a call-sequence DSL -*- C++ -*-===//
//
// Tests describe a program as the calls the intercept layer would make
// ("alloc on A, launch on B, free on A") and assert on the findings collected
// by a fake FindingSink.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TEST_UNIT_ENGINE_ENGINETESTSUPPORT_H
#define STREAMLIFE_TEST_UNIT_ENGINE_ENGINETESTSUPPORT_H

#include "engine/Engine.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace streamlife {
namespace rt {
namespace test {

class CollectingSink : public FindingSink {
public:
  void report(const Finding &F) override { Findings.push_back(F); }
  std::size_t count(FindingKind K) const {
    std::size_t N = 0;
    for (const Finding &F : Findings)
      N += F.Kind == K;
    return N;
  }
  const Finding *first(FindingKind K) const {
    for (const Finding &F : Findings)
      if (F.Kind == K)
        return &F;
    return nullptr;
  }
  std::vector<Finding> Findings;
};

/// Op ids the tests use to name the things a finding points at.
enum : OpId {
  AllocSite = 1,
  FreeSite,
  ProducerKernel,
  ConsumerKernel,
  OtherKernel,
  ReuseSite, ///< the allocation that could be handed a released block
  FirstLoopOp = 100,
};

class EngineTest : public ::testing::Test {
protected:
  EngineTest() : E(std::make_unique<Engine>(Sink)) {}

  void useOptions(const EngineOptions &O) { E = std::make_unique<Engine>(Sink, O); }

  StreamId stream(Handle H, StreamFlavor Flavor = StreamFlavor::NonBlocking, int Device = 0,
                  ThreadId T = 0) {
    StreamDesc D;
    D.StreamHandle = H;
    D.Device = Device;
    D.Flavor = Flavor;
    return E->stream(T, D);
  }
  StreamId legacy(int Device = 0) { return stream(0, StreamFlavor::LegacyDefault, Device); }

  void alloc(Range R, StreamId S, AllocKind K = AllocKind::CachingAllocator, int Device = 0,
             ThreadId T = 0) {
    E->allocated(T, R, K, S, AllocSite, Device);
  }
  void freeOn(Addr Base, StreamId S, ReleaseKind K = ReleaseKind::CachingAllocator,
              ThreadId T = 0) {
    E->released(T, Base, K, S, FreeSite);
  }
  /// The allocator's next allocation on S (a fresh range that never overlaps
  /// Block): the reuse opportunity where a release on S (caching allocator),
  /// or on S's device (stream-ordered pool), is judged. Kind follows the
  /// release kind by default: a stream-ordered allocation for a pool.
  Range reuseOn(StreamId S, AllocKind K = AllocKind::CachingAllocator, ThreadId T = 0) {
    Range R{NextFresh, 256};
    NextFresh += 0x1000;
    E->allocated(T, R, K, S, ReuseSite, E->streamInfo(S).Desc.Device);
    return R;
  }
  /// A release followed at once by the release stream's next allocation: the
  /// verdict on the release is what it was before deferral, the strictest case.
  void freeAndReuse(Addr Base, StreamId S, ReleaseKind K = ReleaseKind::CachingAllocator,
                    ThreadId T = 0) {
    freeOn(Base, S, K, T);
    reuseOn(S, K == ReleaseKind::StreamOrdered ? AllocKind::StreamOrdered
                                               : AllocKind::CachingAllocator,
            T);
  }
  void launch(StreamId S, Range R, OpId Op, ThreadId T = 0) {
    E->launched(T, S, std::vector<Range>{R}, Op);
  }
  void record(Handle Event, StreamId S, ThreadId T = 0) { E->eventRecorded(T, Event, S); }
  void wait(StreamId S, Handle Event, ThreadId T = 0) { E->streamWaitsEvent(T, S, Event); }

  std::size_t count(FindingKind K) const { return Sink.count(K); }
  std::size_t total() const { return Sink.Findings.size(); }

  CollectingSink Sink;
  std::unique_ptr<Engine> E;

  static constexpr Range Block{0x7f0000000000, 4096};
  Addr NextFresh = 0x7e0000000000; ///< reuseOn's ranges, far below Block's
};

} // namespace test
} // namespace rt
} // namespace streamlife

#endif
