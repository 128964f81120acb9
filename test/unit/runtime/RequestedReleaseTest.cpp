//===- RequestedReleaseTest.cpp - a request and its release in one step ----===//
//
// AnnotatedAllocators::drain applies a release request followed at once by
// the release of the same block (PyTorch's free without record_stream) in
// one step, applyRequestedRelease, instead of apply() twice. It must leave
// everything as the two steps do: the engine's findings and statistics, the
// observer's calls, the streams resolved (in order), and every site's
// account. Random programs are played twice, drained as whole batches (the
// one step taken wherever a pair is adjacent) and drained after every event
// (a batch of one: never), and the two runs compared.
//
//===----------------------------------------------------------------------===//
#include "allocators/AnnotatedAllocators.h"

#include "../engine/EngineDigest.h"
#include "../engine/EngineTestSupport.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace streamlife::rt;
using streamlife::rt::test::CollectingSink;

namespace {

/// Every call the observer gets, as text.
class Calls : public BlockObserver {
public:
  void blockAllocated(ThreadId T, Range Bytes, StreamId S, OpId Site) override {
    log("allocated", T, Bytes.Begin, S, Site);
  }
  void blockReleaseRequested(ThreadId T, Addr Base, StreamId S, OpId Site) override {
    log("requested", T, Base, S, Site);
  }
  void blockReleased(ThreadId T, Addr Base, OpId Site) override {
    log("released", T, Base, NoStream, Site);
  }
  void blockAccessed(ThreadId T, StreamId S, Range Bytes, OpId Site) override {
    log("accessed", T, Bytes.Begin, S, Site);
  }
  std::vector<std::string> Seen;

private:
  void log(const char *What, ThreadId T, Addr A, StreamId S, OpId Site) {
    std::ostringstream O;
    O << What << " t" << T << ' ' << A << " s" << S << " op" << Site;
    Seen.push_back(O.str());
  }
};

constexpr Handle Handles[] = {0xa000, 0xb000, 0xc000};

/// One validator: an engine, its annotated allocators (a caching one and a
/// stream-ordered one), an observer and a log of the streams resolved.
struct Replay {
  Replay() : E(Sink), Annotated(E, [](OpId Op) { return std::uint64_t(Op % 5); }) {
    for (Handle H : Handles)
      Streams.push_back(E.stream(0, StreamDesc{H, 0, StreamFlavor::NonBlocking, 0}));
    Caching = Annotated.registerAllocator("caching", 1);
    Ordered = Annotated.registerAllocator("stream-ordered", 2);
    Annotated.setObserver(&Observed);
  }
  void drain() {
    Annotated.drain([this](ThreadId T, Handle H) {
      std::ostringstream O;
      O << "t" << T << ' ' << H;
      Resolved.push_back(O.str());
      for (std::size_t I = 0; I < std::size(Handles); ++I)
        if (Handles[I] == H)
          return Streams[I];
      return NoStream;
    });
  }
  std::string accounts() const {
    std::ostringstream O;
    for (const BlockAccount &A : Annotated.accounts())
      O << A.SiteKey << ' ' << A.Site << ' ' << A.Allocator << ' ' << A.Allocations << ' '
        << A.DistinctBlocks << ' ' << A.PeakLiveBlocks << ' ' << A.PeakHeldBackBytes << '\n';
    return O.str();
  }
  std::string findings() const {
    std::string S;
    for (const Finding &F : Sink.Findings)
      S += test::describe(F) + '\n';
    return S;
  }
  CollectingSink Sink;
  Engine E;
  AnnotatedAllocators Annotated;
  Calls Observed;
  std::vector<StreamId> Streams;
  std::vector<std::string> Resolved;
  int Caching = 0, Ordered = 0;
};

/// A random program's events: allocations, requests and releases of a few
/// blocks (requests followed at once by their release most often; requests
/// twice, releases without a request, sites or none, events of blocks not
/// live and of an allocator never registered), accesses between them, host
/// lock events of two threads.
std::vector<BlockEvent> randomProgram(std::mt19937 &Rng, int OrderedAllocator, int Caching) {
  std::vector<BlockEvent> Program;
  auto Pick = [&](int N) { return static_cast<int>(Rng() % unsigned(N)); };
  for (int I = 0; I < 400; ++I) {
    BlockEvent Ev;
    const int Allocator = Pick(10);
    Ev.Allocator = Allocator == 0 ? OrderedAllocator : Allocator == 1 ? 77 : Caching;
    Ev.Thread = ThreadId(Pick(2));
    Ev.Ptr = 0x100000 + 0x1000 * Addr(Pick(6));
    Ev.Size = 0x1000;
    Ev.Stream = Handles[Pick(3)];
    Ev.Site = Pick(6) == 0 ? NoOp : OpId(1 + Pick(12));
    switch (Pick(8)) {
    case 0:
    case 1:
      Ev.What = BlockEvent::Kind::Allocated;
      Program.push_back(Ev);
      break;
    case 2:
    case 3:
    case 4: { // the common case: requested and released at once
      Ev.What = BlockEvent::Kind::ReleaseRequested;
      Program.push_back(Ev);
      BlockEvent Release = Ev;
      Release.What = BlockEvent::Kind::Released;
      Release.Site = Pick(2) ? NoOp : OpId(20 + Pick(4));
      Release.Stream = Pick(4) ? Ev.Stream : Handles[Pick(3)];
      Release.Thread = Pick(4) ? Ev.Thread : ThreadId(1 - Ev.Thread);
      if (Pick(10) == 0)
        Release.Allocator = Caching + OrderedAllocator - Ev.Allocator; // another allocator's
      Program.push_back(Release);
      break;
    }
    case 5:
      Ev.What = Pick(2) ? BlockEvent::Kind::ReleaseRequested : BlockEvent::Kind::Released;
      Program.push_back(Ev);
      break;
    case 6:
      Ev.What = BlockEvent::Kind::Accessed;
      Ev.Allocator = 0;
      Ev.Size = 0x800;
      Program.push_back(Ev);
      break;
    default:
      Ev.What = Pick(2) ? BlockEvent::Kind::HostReleased : BlockEvent::Kind::HostAcquired;
      Ev.Allocator = 0;
      Ev.Ptr = 0x10 + Addr(Pick(2));
      Program.push_back(Ev);
      break;
    }
  }
  return Program;
}

TEST(RequestedReleaseTest, OneStepLeavesWhatTheTwoStepsLeave) {
  std::mt19937 Rng(20261203);
  std::size_t Pairs = 0;
  for (int Round = 0; Round < 200; ++Round) {
    Replay Batched, OneByOne;
    ASSERT_EQ(Batched.Caching, OneByOne.Caching);
    const std::vector<BlockEvent> Program =
        randomProgram(Rng, Batched.Ordered, Batched.Caching);
    for (std::size_t I = 0; I < Program.size(); ++I) {
      Batched.Annotated.push(Program[I]);
      OneByOne.Annotated.push(Program[I]);
      OneByOne.drain();
      // Batches of a few dozen events, ending anywhere (a pair split
      // between two batches takes two steps).
      if (Rng() % 32 == 0)
        Batched.drain();
      if (I + 1 < Program.size() &&
          Program[I].What == BlockEvent::Kind::ReleaseRequested &&
          Program[I + 1].What == BlockEvent::Kind::Released &&
          Program[I].Ptr == Program[I + 1].Ptr)
        ++Pairs;
    }
    Batched.drain();
    ASSERT_EQ(Batched.Observed.Seen, OneByOne.Observed.Seen) << "round " << Round;
    ASSERT_EQ(Batched.Resolved, OneByOne.Resolved) << "round " << Round;
    ASSERT_EQ(Batched.accounts(), OneByOne.accounts()) << "round " << Round;
    ASSERT_EQ(Batched.findings(), OneByOne.findings()) << "round " << Round;
    ASSERT_EQ(test::describe(Batched.E.stats()), test::describe(OneByOne.E.stats()))
        << "round " << Round;
  }
  EXPECT_GT(Pairs, 10000u) << "the programs take the one step often";
}

// The held-back bytes a request counts are given back by its release in the
// same step: a later allocation samples no held-back peak from them, while a
// request whose release waits (record_stream) is counted.
TEST(RequestedReleaseTest, ABlockReleasedAtOnceHoldsNothingBack) {
  Replay R;
  BlockEvent Ev;
  Ev.Allocator = R.Caching;
  Ev.Ptr = 0x100000;
  Ev.Size = 0x1000;
  Ev.Stream = Handles[0];
  Ev.Site = 1;
  Ev.What = BlockEvent::Kind::Allocated;
  R.Annotated.push(Ev);
  BlockEvent Request = Ev, Release = Ev;
  Request.What = BlockEvent::Kind::ReleaseRequested;
  Request.Site = 2;
  Release.What = BlockEvent::Kind::Released;
  Release.Site = NoOp;
  R.Annotated.push(Request);
  R.Annotated.push(Release);
  R.Annotated.push(Ev); // allocated again: samples the peaks
  Ev.Ptr = 0x200000;
  R.Annotated.push(Ev);
  Request.Ptr = 0x200000;
  R.Annotated.push(Request); // held back until the next drain's release
  R.drain();
  Release.Ptr = 0x200000;
  Ev.Ptr = 0x300000;
  R.Annotated.push(Ev);
  R.Annotated.push(Release);
  R.drain();
  const std::vector<BlockAccount> Accounts = R.Annotated.accounts();
  ASSERT_EQ(Accounts.size(), 1u);
  EXPECT_EQ(Accounts[0].Allocations, 4u);
  EXPECT_EQ(Accounts[0].PeakHeldBackBytes, 0x1000u);
  EXPECT_EQ(R.Observed.Seen[2], "released t0 1048576 s" + std::to_string(NoStream) + " op2")
      << "named by its request";
}

} // namespace
