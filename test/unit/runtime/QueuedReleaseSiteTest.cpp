//===- QueuedReleaseSiteTest.cpp - releases queued without their own site ===//
//
// AnnotatedAllocators::pushReleaseNamedByRequest lets the annotation entry
// point skip capturing a release's call site when replay would name the
// release by its request's site anyway (PyTorch's FREE_COMPLETED after
// FREE_REQUESTED: a third of the captures). It must accept exactly when
// replay will find a request with a site for the block, whatever came
// before in the queue: a release it accepts reaches the engine with the
// request's site; one it refuses is captured and pushed as before.
//
//===----------------------------------------------------------------------===//
#include "allocators/AnnotatedAllocators.h"

#include "../engine/EngineTestSupport.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;

namespace {

/// The release sites replay hands on, in order.
class Releases : public BlockObserver {
public:
  void blockAllocated(ThreadId, Range, StreamId, OpId) override {}
  void blockReleaseRequested(ThreadId, Addr, StreamId, OpId) override {}
  void blockReleased(ThreadId, Addr Base, OpId Site) override {
    Seen.push_back(std::to_string(Base) + " op" + std::to_string(Site));
  }
  void blockAccessed(ThreadId, StreamId, Range, OpId) override {}
  std::vector<std::string> Seen;
};

constexpr Handle AgHandle = 0xa000, ComputeHandle = 0xc000;
constexpr Addr BlockA = 0x100000, BlockB = 0x200000;
constexpr std::uint64_t Bytes = 4096;
constexpr OpId ReleasedHere = 40; ///< the site a captured release would have

struct Subject {
  Subject() : Annotated(E, nullptr) {
    Ag = E.stream(0, StreamDesc{AgHandle, 0, StreamFlavor::NonBlocking, 0});
    Compute = E.stream(0, StreamDesc{ComputeHandle, 0, StreamFlavor::NonBlocking, 0});
    Caching = Annotated.registerAllocator("caching", 1);
    Annotated.setObserver(&Seen);
  }
  BlockEvent event(BlockEvent::Kind What, Addr Ptr, OpId Site, int Allocator = 0) const {
    BlockEvent Ev;
    Ev.What = What;
    Ev.Allocator = Allocator ? Allocator : Caching;
    Ev.Ptr = Ptr;
    Ev.Size = What == BlockEvent::Kind::Allocated ? Bytes : 0;
    Ev.Stream = AgHandle;
    Ev.Site = Site;
    return Ev;
  }
  void push(BlockEvent::Kind What, Addr Ptr, OpId Site) { Annotated.push(event(What, Ptr, Site)); }
  /// What Annotations.cpp does for a release: the site is captured only when refused.
  bool release(Addr Ptr, int Allocator = 0) {
    BlockEvent Ev = event(BlockEvent::Kind::Released, Ptr, NoOp, Allocator);
    if (Annotated.pushReleaseNamedByRequest(Ev))
      return true;
    Ev.Site = ReleasedHere;
    Annotated.push(Ev);
    return false;
  }
  void drain() {
    Annotated.drain([this](ThreadId, Handle H) { return H == AgHandle ? Ag : Compute; });
  }
  CollectingSink Sink;
  Engine E{Sink};
  AnnotatedAllocators Annotated;
  Releases Seen;
  StreamId Ag = 0, Compute = 0;
  int Caching = 0;
};

TEST(QueuedReleaseSiteTest, ARequestedReleaseIsReportedAtTheRequestWithoutItsOwnSite) {
  Subject S;
  S.push(BlockEvent::Kind::Allocated, BlockA, 1);
  S.drain();
  S.E.eventRecorded(0, 0xe0, S.Ag);
  S.E.streamWaitsEvent(0, S.Compute, 0xe0);
  S.E.accessed(0, S.Compute, Range{BlockA, Bytes}, 2); // never ordered before ag's reuse
  S.push(BlockEvent::Kind::ReleaseRequested, BlockA, 3);
  EXPECT_TRUE(S.release(BlockA)) << "the request has a site: no capture needed";
  S.push(BlockEvent::Kind::Allocated, BlockB, 5);
  S.drain();
  ASSERT_EQ(S.Sink.Findings.size(), 1u);
  EXPECT_EQ(S.Sink.Findings.front().Kind, FindingKind::UnsafeFree);
  EXPECT_EQ(S.Sink.Findings.front().Released.Op, 3u);
  EXPECT_EQ(S.Seen.Seen, std::vector<std::string>{std::to_string(BlockA) + " op3"});
}

TEST(QueuedReleaseSiteTest, AReleaseWithoutARequestIsRefusedAndQueuesNothing) {
  Subject S;
  S.push(BlockEvent::Kind::Allocated, BlockA, 1);
  std::size_t Queued = S.Annotated.unapplied();
  EXPECT_FALSE(S.Annotated.pushReleaseNamedByRequest(
      S.event(BlockEvent::Kind::Released, BlockA, NoOp)));
  EXPECT_EQ(S.Annotated.unapplied(), Queued);
}

TEST(QueuedReleaseSiteTest, ARequestReplayIgnoresDoesNotCount) {
  Subject S;
  // Allocated before the allocator was attached: replay ignores its request.
  S.push(BlockEvent::Kind::ReleaseRequested, BlockA, 3);
  EXPECT_FALSE(S.release(BlockA));
  // A request without a site, then one with: replay keeps the first.
  S.push(BlockEvent::Kind::Allocated, BlockB, 1);
  S.push(BlockEvent::Kind::ReleaseRequested, BlockB, NoOp);
  S.push(BlockEvent::Kind::ReleaseRequested, BlockB, 4);
  EXPECT_FALSE(S.release(BlockB));
  S.drain();
  EXPECT_EQ(S.Seen.Seen, (std::vector<std::string>{std::to_string(BlockA) + " op40",
                                                   std::to_string(BlockB) + " op40"}));
}

TEST(QueuedReleaseSiteTest, AnAllocationOverALiveBlockForgetsItsRequest) {
  Subject S;
  S.push(BlockEvent::Kind::Allocated, BlockA, 1);
  S.push(BlockEvent::Kind::ReleaseRequested, BlockA, 3);
  S.push(BlockEvent::Kind::Allocated, BlockA, 1); // a release we missed
  EXPECT_FALSE(S.release(BlockA));
  S.drain();
  EXPECT_EQ(S.Seen.Seen, std::vector<std::string>{std::to_string(BlockA) + " op40"});
}

TEST(QueuedReleaseSiteTest, TheDecisionFollowsTheQueueAcrossDrains) {
  Subject S;
  S.push(BlockEvent::Kind::Allocated, BlockA, 1);
  S.drain();
  S.push(BlockEvent::Kind::ReleaseRequested, BlockA, 3);
  S.drain();
  EXPECT_TRUE(S.release(BlockA));
  EXPECT_FALSE(S.release(BlockA)) << "released already: replay finds no live block";
  S.drain();
  EXPECT_EQ(S.Seen.Seen, (std::vector<std::string>{std::to_string(BlockA) + " op3",
                                                   std::to_string(BlockA) + " op40"}));
}

TEST(QueuedReleaseSiteTest, AnUnknownAllocatorIsRefused) {
  Subject S;
  S.push(BlockEvent::Kind::Allocated, BlockA, 1);
  S.push(BlockEvent::Kind::ReleaseRequested, BlockA, 3);
  EXPECT_FALSE(S.release(BlockA, /*Allocator=*/42));
  EXPECT_TRUE(S.release(BlockA));
}

// Random event sequences (allocations over live blocks, requests of unknown
// blocks, requests without a site, repeated requests and releases, events
// of an unregistered allocator, drains anywhere) through a subject that
// always captures the release's site and one that asks first: replay must
// hand the engine and the observer the same release sites, and the engines
// must end alike.
TEST(QueuedReleaseSiteTest, SkippingTheCaptureNeverChangesTheSiteReported) {
  std::mt19937 Rng(1234);
  for (int Round = 0; Round < 200; ++Round) {
    Subject Always, Asks;
    std::size_t Accepted = 0;
    for (int Step = 0; Step < 60; ++Step) {
      const Addr Ptr = 0x100000 * (1 + Rng() % 3);
      const int Allocator = Rng() % 8 ? 0 : 42;
      const OpId Site = Rng() % 5 ? 10 + Rng() % 5 : NoOp;
      switch (Rng() % 4) {
      case 0:
        for (Subject *S : {&Always, &Asks})
          S->Annotated.push(S->event(BlockEvent::Kind::Allocated, Ptr, Site, Allocator));
        break;
      case 1:
        for (Subject *S : {&Always, &Asks})
          S->Annotated.push(S->event(BlockEvent::Kind::ReleaseRequested, Ptr, Site, Allocator));
        break;
      case 2: {
        BlockEvent Captured = Always.event(BlockEvent::Kind::Released, Ptr, ReleasedHere, Allocator);
        Always.Annotated.push(Captured);
        Accepted += Asks.release(Ptr, Allocator);
        break;
      }
      case 3:
        Always.drain();
        Asks.drain();
        break;
      }
    }
    Always.drain();
    Asks.drain();
    ASSERT_EQ(Always.Seen.Seen, Asks.Seen.Seen) << "round " << Round;
    EXPECT_EQ(Always.E.stats().LiveAllocations, Asks.E.stats().LiveAllocations);
    if (Round == 0)
      EXPECT_GT(Accepted, 0u) << "the sequence never takes the fast path";
  }
}

// The queue keeps released blocks so that a block handed out again costs no
// allocation under the allocator's lock, but forgets them once they are most
// of what it keeps; the decisions stay right across that.
TEST(QueuedReleaseSiteTest, ReleasedBlocksAreForgottenAndDecisionsStayRight) {
  Subject S;
  constexpr unsigned Blocks = 20000;
  for (unsigned I = 0; I < Blocks; ++I) {
    const Addr Ptr = 0x10000000 + 0x1000 * Addr(I);
    S.push(BlockEvent::Kind::Allocated, Ptr, 1);
    S.push(BlockEvent::Kind::ReleaseRequested, Ptr, 3);
    ASSERT_TRUE(S.release(Ptr)) << I;
    if (I % 1000 == 0)
      S.drain();
  }
  EXPECT_LT(S.Annotated.queuedBlocksKnown(), std::size_t(10000));
  // A forgotten block is unknown again: its request is ignored, its release captured.
  S.push(BlockEvent::Kind::ReleaseRequested, 0x10000000, 3);
  EXPECT_FALSE(S.release(0x10000000));
  S.push(BlockEvent::Kind::Allocated, 0x10000000, 1);
  S.push(BlockEvent::Kind::ReleaseRequested, 0x10000000, 3);
  EXPECT_TRUE(S.release(0x10000000));
  S.drain();
  EXPECT_EQ(S.Seen.Seen.size(), Blocks + 2);
  EXPECT_EQ(S.Seen.Seen[Blocks], std::to_string(0x10000000) + " op40");
  EXPECT_EQ(S.Seen.Seen[Blocks + 1], std::to_string(0x10000000) + " op3");
}

// The random sequences again, over enough addresses that released blocks are
// forgotten many times over.
TEST(QueuedReleaseSiteTest, ForgettingReleasedBlocksNeverChangesTheSiteReported) {
  std::mt19937 Rng(77);
  Subject Always, Asks;
  std::size_t Accepted = 0;
  for (int Step = 0; Step < 200000; ++Step) {
    const Addr Ptr = 0x100000 * (1 + Rng() % 12000);
    const OpId Site = Rng() % 5 ? 10 + Rng() % 5 : NoOp;
    switch (Rng() % 4) {
    case 0:
      for (Subject *S : {&Always, &Asks})
        S->Annotated.push(S->event(BlockEvent::Kind::Allocated, Ptr, Site));
      break;
    case 1:
      for (Subject *S : {&Always, &Asks})
        S->Annotated.push(S->event(BlockEvent::Kind::ReleaseRequested, Ptr, Site));
      break;
    case 2:
      Always.Annotated.push(Always.event(BlockEvent::Kind::Released, Ptr, ReleasedHere));
      Accepted += Asks.release(Ptr);
      break;
    case 3:
      if (Rng() % 64 == 0) {
        Always.drain();
        Asks.drain();
      }
      break;
    }
  }
  Always.drain();
  Asks.drain();
  EXPECT_EQ(Always.Seen.Seen, Asks.Seen.Seen);
  EXPECT_GT(Accepted, 1000u);
}

} // namespace

// The annotation entry points queue through pushOfKnownAllocator and
// pushReleaseOfKnownAllocatorNamedByRequest, which do not ask the registry
// again (the entry point found the allocator known, and a registration is
// never undone). Played against push() and pushReleaseNamedByRequest on the
// same random events, they must decide every release alike, keep the same
// blocks, and leave replay the same block events, sites and accounts.
TEST(QueuedReleaseSiteTest, TheKnownAllocatorPushesQueueAsPushDoes) {
  /// Every block event replay hands on, in order.
  class Everything : public BlockObserver {
  public:
    void blockAllocated(ThreadId, Range R, StreamId S, OpId Site) override {
      Seen.push_back("alloc " + std::to_string(R.Begin) + " " + std::to_string(R.Size) + " s" +
                     std::to_string(S) + " op" + std::to_string(Site));
    }
    void blockReleaseRequested(ThreadId, Addr Base, StreamId S, OpId Site) override {
      Seen.push_back("request " + std::to_string(Base) + " s" + std::to_string(S) + " op" +
                     std::to_string(Site));
    }
    void blockReleased(ThreadId, Addr Base, OpId Site) override {
      Seen.push_back("release " + std::to_string(Base) + " op" + std::to_string(Site));
    }
    void blockAccessed(ThreadId, StreamId, Range, OpId) override {}
    std::vector<std::string> Seen;
  };
  std::mt19937 Rng(2026);
  Subject Generic, Known;
  Everything GenericSeen, KnownSeen;
  Generic.Annotated.setObserver(&GenericSeen);
  Known.Annotated.setObserver(&KnownSeen);
  std::size_t Accepted = 0, Releases = 0;
  for (int Step = 0; Step < 200000; ++Step) {
    // Few addresses at first (requests, re-allocations over live blocks),
    // then thousands (released blocks forgotten many times over).
    const Addr Ptr = 0x100000 * (1 + Rng() % (Step < 20000 ? 4 : 12000));
    const OpId Site = Rng() % 5 ? 10 + Rng() % 5 : NoOp;
    switch (Rng() % 4) {
    case 0:
      Generic.Annotated.push(Generic.event(BlockEvent::Kind::Allocated, Ptr, Site));
      Known.Annotated.pushOfKnownAllocator(Known.event(BlockEvent::Kind::Allocated, Ptr, Site));
      break;
    case 1:
      Generic.Annotated.push(Generic.event(BlockEvent::Kind::ReleaseRequested, Ptr, Site));
      Known.Annotated.pushOfKnownAllocator(Known.event(BlockEvent::Kind::ReleaseRequested, Ptr, Site));
      break;
    case 2: {
      BlockEvent Generic1 = Generic.event(BlockEvent::Kind::Released, Ptr, NoOp);
      BlockEvent Known1 = Known.event(BlockEvent::Kind::Released, Ptr, NoOp);
      const bool GenericNamed = Generic.Annotated.pushReleaseNamedByRequest(Generic1);
      const bool KnownNamed = Known.Annotated.pushReleaseOfKnownAllocatorNamedByRequest(Known1);
      ASSERT_EQ(GenericNamed, KnownNamed) << "step " << Step;
      if (!GenericNamed) {
        Generic1.Site = Known1.Site = ReleasedHere;
        Generic.Annotated.push(Generic1);
        Known.Annotated.pushOfKnownAllocator(Known1);
      }
      Accepted += GenericNamed;
      ++Releases;
      break;
    }
    case 3:
      if (Rng() % 64 == 0) {
        Generic.drain();
        Known.drain();
      }
      break;
    }
    ASSERT_EQ(Generic.Annotated.queuedBlocksKnown(), Known.Annotated.queuedBlocksKnown()) << "step " << Step;
    ASSERT_EQ(Generic.Annotated.unapplied(), Known.Annotated.unapplied()) << "step " << Step;
  }
  Generic.drain();
  Known.drain();
  EXPECT_EQ(GenericSeen.Seen, KnownSeen.Seen);
  const std::vector<BlockAccount> GenericAccounts = Generic.Annotated.accounts();
  const std::vector<BlockAccount> KnownAccounts = Known.Annotated.accounts();
  ASSERT_EQ(GenericAccounts.size(), KnownAccounts.size());
  for (std::size_t I = 0; I < GenericAccounts.size(); ++I) {
    EXPECT_EQ(GenericAccounts[I].Site, KnownAccounts[I].Site) << I;
    EXPECT_EQ(GenericAccounts[I].Allocations, KnownAccounts[I].Allocations) << I;
    EXPECT_EQ(GenericAccounts[I].DistinctBlocks, KnownAccounts[I].DistinctBlocks) << I;
    EXPECT_EQ(GenericAccounts[I].PeakLiveBlocks, KnownAccounts[I].PeakLiveBlocks) << I;
    EXPECT_EQ(GenericAccounts[I].PeakHeldBackBytes, KnownAccounts[I].PeakHeldBackBytes) << I;
  }
  EXPECT_EQ(Generic.E.stats().LiveAllocations, Known.E.stats().LiveAllocations);
  EXPECT_GT(Accepted, 1000u);
  EXPECT_LT(Accepted, Releases) << "every release named by its request: the refused path is not played";
}
