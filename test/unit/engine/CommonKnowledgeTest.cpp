//===- CommonKnowledgeTest.cpp - what every CUDA thread knows -------------===//
//
// HostClocks::common() answers slot by slot, computing a slot when it is
// asked and keeping the answer until some clock changes (CommonKnowledge.h).
// Random programs of 1-4 threads (some using CUDA, some only synchronizing,
// threads ending) taking locks, learning from a device and ticking, through
// the slot-by-slot answers and the whole-clock meet side by side; between the
// steps a few random slots are asked (so that answers kept from earlier
// versions are there to be misread). After every step each slot's answer must
// be the whole meet's, and the minimum the test computes itself from the
// clocks of the threads that use CUDA.
//
//===----------------------------------------------------------------------===//
#include "engine/HostClocks.h"
#include "engine/SyncClocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace streamlife::rt;

namespace {

struct Side {
  explicit Side(bool Changed) : Hosts(Slots, Changed), Syncs(64, Changed) {}
  SlotAllocator Slots;
  HostClocks Hosts;
  SyncClocks Syncs;
};

/// The minimum of slot S over the clocks of the CUDA threads among Threads.
ClockTime expectedCommon(HostClocks &Hosts, unsigned Threads, ClockSlot S) {
  ClockTime Min = ~ClockTime(0);
  bool Any = false;
  for (ThreadId T = 0; T < Threads; ++T)
    if (const HostClock *H = Hosts.find(T); H && H->UsesCuda) {
      Min = std::min(Min, H->Clock.get(S));
      Any = true;
    }
  return Any ? Min : 0;
}

void playRandom(unsigned Threads, unsigned Seed) {
  Side Changed(true), Whole(false);
  std::mt19937 Rng(Seed);
  std::uint64_t Starts = 0; // threads that started using CUDA (Changed)
  VectorClock Device; // what a device sync teaches: stream slots
  for (Side *S : {&Changed, &Whole})
    for (unsigned I = 0; I < 20; ++I)
      S->Slots.allocate();
  for (int Step = 0; Step < 4000; ++Step) {
    const ThreadId T = Rng() % Threads;
    const unsigned What = Rng() % 16;
    const SyncId Lock = 0x5000 + 64 * (Rng() % 3);
    const bool Ends = Rng() % 8 == 0; // rare: a thread ends
    if (What == 0)
      Device.tick(static_cast<ClockSlot>(Rng() % 20));
    for (Side *S : {&Changed, &Whole}) {
      switch (What) {
      case 1: // a CUDA call: the thread counts from now on
      case 2:
        if (T != 3) { // thread 3 never uses CUDA
          const HostClock *Before = S->Hosts.find(T);
          Starts += S == &Changed && (!Before || !Before->UsesCuda);
          S->Hosts.stamp(S->Hosts.of(T));
        }
        break;
      case 3: { // learns what a device sync teaches
        HostClock &H = S->Hosts.forSync(T);
        H.Clock.join(Device);
        S->Hosts.learned(H);
        break;
      }
      case 4:
        if (Ends)
          S->Hosts.finished(T);
        break;
      case 5:
      case 6:
      case 7:
      case 8: {
        HostClock &H = S->Hosts.forSync(T);
        S->Syncs.release(H, Lock);
        S->Hosts.released(H);
        break;
      }
      default: {
        HostClock &H = S->Hosts.forSync(T);
        if (SyncClock *C = S->Syncs.find(Lock))
          if (S->Syncs.acquire(H, *C))
            S->Hosts.learned(H);
        break;
      }
      }
    }
    // Most steps ask a few slots only, as the engine does between changes.
    if (Rng() % 4) {
      for (unsigned Asked = Rng() % 3; Asked-- > 0;)
        Changed.Hosts.common().get(static_cast<ClockSlot>(Rng() % Changed.Slots.count()));
      continue;
    }
    const VectorClock &Reference = Whole.Hosts.commonKnowledge();
    for (ClockSlot S = 0; S < Changed.Slots.count(); ++S) {
      ASSERT_EQ(Changed.Hosts.common().get(S), Reference.get(S))
          << "seed " << Seed << ", step " << Step << ", slot " << S << ", "
          << Changed.Hosts.cudaThreads() << " CUDA threads";
      ASSERT_EQ(Changed.Hosts.common().get(S), expectedCommon(Changed.Hosts, Threads, S))
          << "seed " << Seed << ", step " << Step << ", slot " << S;
    }
  }
  // The answers came slot by slot: a whole meet only when a thread started
  // using CUDA (it joins the common knowledge).
  EXPECT_GT(Changed.Hosts.common().slotComputations(), 0u);
  EXPECT_LE(Changed.Hosts.common().wholeComputations(), Starts);
}

TEST(CommonKnowledgeTest, SlotBySlotAnswersAreTheWholeClocksMinimum) {
  for (unsigned Threads = 1; Threads <= 4 && !::testing::Test::HasFailure(); ++Threads)
    for (unsigned Seed = 0; Seed < 10 && !::testing::Test::HasFailure(); ++Seed)
      playRandom(Threads, 1000 * Threads + Seed);
}

} // namespace
