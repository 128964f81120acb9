//===- CommonKnowledge.h - what every CUDA thread knows, slot by slot -*- C++ -*-===//
//
// The minimum, slot by slot, of the clocks of the threads that use CUDA
// (HostClocks.h says which count and why): an access record it covers can
// never race again, so the engine drops it. Nearly every question asked of it
// is one slot's: does it cover this access's epoch.
//
// It used to be kept as a whole clock, brought up to date at the first
// question after any thread's clock changed: a meet of every CUDA thread's
// clock, or the slots that grew in some thread's clock since the last time
// (LoggedClock.h). A replay of queued lock events changes the threads'
// clocks before nearly every allocation, release and launch, and the update
// then cost more than the questions it answered (FSDP2's mix: about 450
// instructions per block event, for a handful of slots asked). Now a slot's
// minimum is computed when the slot is asked, from the members' clocks, and
// kept with the version it was computed at: exact as long as every change of
// a member's clock, and every change of who counts, bumps the version
// (HostClocks does, where it bumps it for the shadow sweep), and the answer
// never depends on what was asked before.
//
// Callers that need the whole clock (a thread that starts using CUDA joins
// it; the tests compare it) get it from whole(): the meet of the members'
// clocks, recomputed once per version. With Lazy false every question reads
// whole() (the reference the engine's tests compare with).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_COMMONKNOWLEDGE_H
#define STREAMLIFE_RT_ENGINE_COMMONKNOWLEDGE_H

#include "engine/VectorClock.h"

#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

class CommonKnowledge {
public:
  explicit CommonKnowledge(bool Lazy = true) : Lazy(Lazy) {}

  /// The minimum of slot S over the members' clocks (0 without members).
  ClockTime get(ClockSlot S) const {
    if (S < Cache.size() && Cache[S].At == Version)
      return Cache[S].Time;
    return compute(S);
  }
  /// True when every member's clock covers E.
  bool covers(const Epoch &E) const { return get(E.Slot) >= E.Time; }
  /// The whole meet of the members' clocks (as wide as the narrowest).
  const VectorClock &whole() const;

  /// Clock starts counting (a thread's first CUDA use); its address must stay
  /// valid until leave(Clock).
  void join(const VectorClock &Clock) {
    Members.push_back(&Clock);
    changed();
  }
  /// Clock stops counting (its thread ended).
  void leave(const VectorClock &Clock);
  /// Some member's clock may have changed: every slot is asked anew.
  void changed() { ++Version; }
  std::uint64_t version() const { return Version; }
  std::size_t members() const { return Members.size(); }

  /// Slots computed from the members' clocks, and whole meets computed.
  std::uint64_t slotComputations() const { return SlotComputations; }
  std::uint64_t wholeComputations() const { return WholeComputations; }

private:
  ClockTime compute(ClockSlot S) const;

  struct Slot {
    ClockTime Time = 0;
    std::uint64_t At = 0; ///< the version Time was computed at (0: never)
  };
  bool Lazy;
  std::uint64_t Version = 1;
  std::vector<const VectorClock *> Members;
  mutable std::vector<Slot> Cache;
  mutable VectorClock Whole;
  mutable std::uint64_t WholeAt = 0;
  mutable std::uint64_t SlotComputations = 0;
  mutable std::uint64_t WholeComputations = 0;
};

} // namespace rt
} // namespace streamlife

#endif
