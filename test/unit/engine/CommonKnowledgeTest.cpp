//===- CommonKnowledgeTest.cpp - what every CUDA thread knows -------------===//
//
// HostClocks::commonKnowledge recomputes only the slots that grew since the
// last computation, and not a thread's own slot while other CUDA threads
// count (no thread knows more of a thread than the thread itself, so its own
// growth cannot raise the minimum). Random programs of 1-4 threads (some
// using CUDA, some only synchronizing, threads ending) taking locks, learning
// from a device and ticking, through the changed-slot computation and the
// whole-clock one side by side: the common knowledge must be the same after
// every step, also while a single thread uses CUDA (its own slot is then the
// minimum).
//
//===----------------------------------------------------------------------===//
#include "engine/HostClocks.h"
#include "engine/SyncClocks.h"

#include <gtest/gtest.h>

#include <random>

using namespace streamlife::rt;

namespace {

struct Side {
  explicit Side(bool Changed) : Hosts(Slots, Changed), Syncs(64, Changed) {}
  SlotAllocator Slots;
  HostClocks Hosts;
  SyncClocks Syncs;
};

bool same(const VectorClock &A, const VectorClock &B) { return A.dominates(B) && B.dominates(A); }

void playRandom(unsigned Threads, unsigned Seed) {
  Side Changed(true), Whole(false);
  std::mt19937 Rng(Seed);
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
        if (T != 3) // thread 3 never uses CUDA
          S->Hosts.stamp(S->Hosts.of(T));
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
    ASSERT_TRUE(same(Changed.Hosts.commonKnowledge(), Whole.Hosts.commonKnowledge()))
        << "seed " << Seed << ", step " << Step << ", " << Changed.Hosts.cudaThreads()
        << " CUDA threads";
  }
  EXPECT_LT(Changed.Hosts.wholeCommonComputations(), Changed.Hosts.commonComputations());
}

TEST(CommonKnowledgeTest, ChangedSlotsGiveTheWholeClocksMinimum) {
  for (unsigned Threads = 1; Threads <= 4 && !::testing::Test::HasFailure(); ++Threads)
    for (unsigned Seed = 0; Seed < 10 && !::testing::Test::HasFailure(); ++Seed)
      playRandom(Threads, 1000 * Threads + Seed);
}

} // namespace
