//===- FilterKindsTest.cpp - the entry points' filter note is filterKind's -===//
//
// queuedBlockEventOfEntryPoint (FilterKinds.h) names an allocation's and a
// release request's filter kind without filterKind's table; the test plays
// random sequences of queued events of every kind and CUDA calls (which read
// the engine's flags back, so that queued()'s cases that read them are taken
// both ways) through two filters, one told through the fast path and one
// through ThreadFilter::queued(filterKind(What)), and compares their change
// counts after every step, and then which releases each would drop.
//
//===----------------------------------------------------------------------===//
#include "intercept/FilterKinds.h"

#include <gtest/gtest.h>

#include <random>

namespace streamlife {
namespace rt {
namespace {

using redundant_sync::ThreadFilter;

TEST(FilterKindsTest, TheEntryPointsNoteIsFilterKinds) {
  constexpr BlockEvent::Kind Kinds[] = {
      BlockEvent::Kind::Allocated,    BlockEvent::Kind::ReleaseRequested, BlockEvent::Kind::Released,
      BlockEvent::Kind::Accessed,     BlockEvent::Kind::HostReleased,     BlockEvent::Kind::HostAcquired,
      BlockEvent::Kind::SyncDestroyed, BlockEvent::Kind::HostFinished};
  std::mt19937_64 Rng(7);
  for (int Run = 0; Run < 200; ++Run) {
    ThreadFilter Fast, Slow;
    for (int Step = 0; Step < 200; ++Step) {
      if (Rng() % 4 == 0) {
        // A CUDA call that queued nothing while it ran: the engine's flags
        // (UsesCuda = 1, ReleasedSinceTick = 2) are read back, at random.
        std::uint64_t Before = (Rng() % 16) << 2, After = Before | (Rng() % 4);
        Fast.cudaCallLeft(Fast.cudaCallEntered(Before), After);
        Slow.cudaCallLeft(Slow.cudaCallEntered(Before), After);
      } else {
        BlockEvent::Kind What = Kinds[Rng() % 8];
        queuedBlockEventOfEntryPoint(Fast, What);
        Slow.queued(filterKind(What));
      }
      ASSERT_EQ(Fast.changes(), Slow.changes()) << "run " << Run << " step " << Step;
    }
    // The same decisions: a release of an object released before is dropped
    // by both or by neither.
    Fast.releaseQueued(0x1000);
    Slow.releaseQueued(0x1000);
    EXPECT_EQ(Fast.releaseIsRedundant(0x1000), Slow.releaseIsRedundant(0x1000));
  }
}

} // namespace
} // namespace rt
} // namespace streamlife
