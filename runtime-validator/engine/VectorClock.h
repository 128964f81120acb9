//===- VectorClock.h - vector clocks over dense clock slots -----*- C++ -*-===//
//
// A vector clock indexed by a dense "clock slot". Every stream and every host
// clock owns one slot; component k of a clock is the latest tick of slot k that
// the clock's owner is ordered after. An Epoch names one tick of one slot (an
// access, an allocation point); "Epoch happens-before Clock" is one compare.
//
// Invariant the engine keeps: every change of an owner's clock ticks the owner's
// own component. Then knowing (slot k, time t) means knowing k's whole clock as
// of t, which lets callers skip a join with "if (C.get(k) < Other.get(k))".
//
// Storage grows only when a new slot appears; assign() and join() reuse the
// existing capacity, so the steady state of a launch allocates nothing.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_VECTORCLOCK_H
#define STREAMLIFE_RT_ENGINE_VECTORCLOCK_H

#include "engine/Check.h"
#include "engine/ClockArrays.h"

#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

using ClockSlot = std::uint32_t;
constexpr ClockSlot NoSlot = ~ClockSlot(0);

/// One tick of one slot: "the N-th thing that slot's owner did".
struct Epoch {
  ClockSlot Slot = NoSlot;
  ClockTime Time = 0;
};

/// Hands out clock slots in creation order; streams and host clocks share them.
class SlotAllocator {
public:
  ClockSlot allocate() { return Next++; }
  ClockSlot count() const { return Next; }

private:
  ClockSlot Next = 0;
};

class VectorClock {
public:
  ClockTime get(ClockSlot S) const { return S < Times.size() ? Times[S] : 0; }
  std::size_t width() const { return Times.size(); }

  /// Advances the owner's own component; returns the new time.
  ClockTime tick(ClockSlot Own) {
    STREAMLIFE_DCHECK(Own != NoSlot);
    grow(Own);
    return ++Times[Own];
  }

  /// Sets component S to at least T (a reused slot continues its counter).
  void raise(ClockSlot S, ClockTime T) {
    if (T == 0)
      return;
    STREAMLIFE_DCHECK(S != NoSlot);
    grow(S);
    if (Times[S] < T)
      Times[S] = T;
  }

  /// True when E is ordered before (or is) the point this clock describes.
  bool covers(const Epoch &E) const { return get(E.Slot) >= E.Time; }
  /// True when every component is at least Other's: this clock is ordered
  /// after everything Other describes.
  bool dominates(const VectorClock &Other) const;

  /// Element-wise maximum: this owner now waits for everything Other knew.
  void join(const VectorClock &Other);
  /// join(), returning whether any component grew (the owner learned something).
  bool absorb(const VectorClock &Other);
  /// absorb(), calling Grew(slot) for each component that grew.
  template <typename OnGrow> bool absorb(const VectorClock &Other, OnGrow &&Grew) {
    bool Any = false;
    const std::size_t N = Other.Times.size();
    if (N > Times.size())
      Times.resize(N, 0);
    ClockTime *Mine = Times.data();
    const ClockTime *Theirs = Other.Times.data();
    // Most components do not grow: found four at a time (ClockArrays.h).
    for (std::size_t I = firstGreater(Mine, Theirs, 0, N); I < N;
         I = firstGreater(Mine, Theirs, I + 1, N)) {
      Mine[I] = Theirs[I];
      Grew(static_cast<ClockSlot>(I));
      Any = true;
    }
    return Any;
  }
  /// Element-wise minimum: what both this and Other know (common knowledge).
  void meet(const VectorClock &Other);
  /// Copy that reuses this clock's storage (event records in steady state).
  void assign(const VectorClock &Other);
  void clear() { Times.clear(); }
  void shrink() { Times.shrink_to_fit(); }

private:
  /// Its changed-slot joins read and write components directly (one bounds
  /// check per slot, not three).
  friend class LoggedClock;
  void grow(ClockSlot S) {
    if (S >= Times.size())
      Times.resize(std::size_t(S) + 1, 0);
  }
  std::vector<ClockTime> Times;
};

} // namespace rt
} // namespace streamlife

#endif
