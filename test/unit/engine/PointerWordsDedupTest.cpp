//===- PointerWordsDedupTest.cpp - one touch per allocation per launch ----===//
//
// launchedWithPointerWords touches each allocation once per launch, by its
// first decoded word (then, if no decoded word named it, its first generic
// word into live memory). Which allocations a launch touched already is
// decided by a mark on the lifetime (Allocation::TouchedByLaunch). Random
// programs (slots allocated, released and reused on three streams, launches
// of up to 60 words: repeats, interior pointers, words into allocations that
// partial accesses split into several segments, generic-scan words, words
// into released and untracked memory, events between the streams) run
// through two engines: one given each launch's words as they come, one
// given only the words the rule above keeps, each allocation's once, through
// launchedWithPointers (no marks: every word an access; the kept generic
// words in a second call, with the generic op). Findings, statistics and the
// ignored counts must agree. It fails (checked by breaking the code) when the mark
// never skips an allocation and when one launch's marks carry into the next.
//
//===----------------------------------------------------------------------===//
#include "EngineDigest.h"
#include "EngineTestSupport.h"

#include <random>

namespace streamlife {
namespace rt {
namespace test {
namespace {

constexpr unsigned Slots = 24;
constexpr Addr SlotBytes = 0x1000;
constexpr Addr FirstSlot = 0x100000;

struct Side {
  CollectingSink Sink;
  Engine E{Sink};
  std::vector<StreamId> Streams;
  Side() {
    for (Handle H : {0x100, 0x200, 0x300}) {
      StreamDesc D;
      D.StreamHandle = H;
      D.Flavor = StreamFlavor::NonBlocking;
      Streams.push_back(E.stream(0, D));
    }
  }
  std::string digest() {
    std::string Out = describe(E.stats()) + "\n";
    for (const Finding &F : Sink.Findings)
      Out += describe(F) + "\n";
    return Out;
  }
};

TEST(PointerWordsDedupTest, EachAllocationIsTouchedOnceByTheWordTheRuleNames) {
  std::mt19937 Rng(11);
  std::size_t Launches = 0, SkippedWords = 0;
  for (int Round = 0; Round < 40; ++Round) {
    Side Fast, Reference;
    // The test's model: a slot was never allocated (-1), is live (1) or released (0).
    std::vector<int> State(Slots, -1);
    auto Both = [&](auto &&F) {
      F(Fast);
      F(Reference);
    };
    for (int Op = 0; Op < 300; ++Op) {
      const unsigned Slot = Rng() % Slots;
      const Addr Base = FirstSlot + Slot * SlotBytes;
      const unsigned S = Rng() % 3;
      switch (Rng() % 8) {
      case 0:
        if (State[Slot] != 1) {
          Both([&](Side &X) {
            X.E.allocated(0, Range{Base, SlotBytes}, AllocKind::CachingAllocator, X.Streams[S],
                          AllocSite, 0);
          });
          State[Slot] = 1;
        }
        break;
      case 1:
        if (State[Slot] == 1) {
          Both([&](Side &X) {
            X.E.released(0, Base, ReleaseKind::CachingAllocator, X.Streams[S], FreeSite);
          });
          State[Slot] = 0;
        }
        break;
      case 2: { // a partial access splits the slot's allocation into segments
        const Addr Begin = Base + (Rng() % 16) * 0x100;
        Both([&](Side &X) {
          X.E.launched(0, X.Streams[S], {Range{Begin, 0x100}}, ProducerKernel);
        });
        break;
      }
      case 3: {
        const Handle Ev = 0xe0 + Rng() % 4;
        const unsigned Other = Rng() % 3;
        Both([&](Side &X) {
          X.E.eventRecorded(0, Ev, X.Streams[S]);
          X.E.streamWaitsEvent(0, X.Streams[Other], Ev);
        });
        break;
      }
      default: {
        // A launch: words drawn from a few slots, so that repeats are common.
        const unsigned Width = 1 + Rng() % 60;
        unsigned Pool[6];
        for (unsigned &P : Pool)
          P = Rng() % (Slots + 2); // the last two: never allocated
        std::vector<PointerWord> Words;
        for (unsigned I = 0; I < Width; ++I) {
          const unsigned P = Pool[Rng() % 6];
          const Addr Offset = Rng() % 3 ? (Rng() % 16) * 0x100 : 0;
          Words.push_back(PointerWord{FirstSlot + P * SlotBytes + Offset, Rng() % 4 == 0});
        }
        // The rule, on the model: decoded words first, each slot's first;
        // then generic words into live slots not named yet; every generic
        // word into a released slot is ignored and counted.
        std::vector<Addr> Kept[2]; // decoded, generic
        std::vector<bool> Named(Slots + 2, false);
        std::size_t WantIgnored = 0;
        for (bool Generic : {false, true})
          for (const PointerWord &W : Words) {
            if (W.FromGenericScan != Generic)
              continue;
            const unsigned P = unsigned((W.Word - FirstSlot) / SlotBytes);
            if (P >= Slots || State[P] == -1)
              continue; // untracked
            if (Generic && State[P] == 0) {
              ++WantIgnored;
              continue;
            }
            if (Named[P])
              continue;
            Named[P] = true;
            Kept[Generic].push_back(W.Word);
          }
        SkippedWords += Words.size() - Kept[0].size() - Kept[1].size();
        const std::size_t FastIgnored = Fast.E.launchedWithPointerWords(
            0, Fast.Streams[S], Words.data(), Words.size(), ConsumerKernel, OtherKernel);
        Reference.E.launchedWithPointers(0, Reference.Streams[S], Kept[0].data(), Kept[0].size(),
                                         ConsumerKernel);
        if (!Kept[1].empty())
          Reference.E.launchedWithPointers(0, Reference.Streams[S], Kept[1].data(),
                                           Kept[1].size(), OtherKernel);
        ASSERT_EQ(FastIgnored, WantIgnored) << "round " << Round << ", op " << Op;
        ++Launches;
        break;
      }
      }
      ASSERT_EQ(Fast.digest(), Reference.digest()) << "round " << Round << ", op " << Op;
    }
  }
  EXPECT_GT(Launches, 1000u);
  EXPECT_GT(SkippedWords, 10000u);
}

} // namespace
} // namespace test
} // namespace rt
} // namespace streamlife
