//===- LoggedClock.h - a vector clock that remembers what grew --*- C++ -*-===//
//
// A vector clock plus the log of the slots whose component grew, in order.
// Whoever noted the log's position when it last held everything the clock
// knew (a synchronization object after a thread released into it, a thread
// after it acquired the object) later catches up by reading only the slots
// logged since: the other components have not moved, so they cannot hold
// news. Host synchronization then costs what changed, not the clock's width:
// two threads taking one lock in turn each learn the other's own tick and
// little else, while the clock has a slot for every stream of the process
// (FSDP2 on one rank: about 140).
//
// Every change goes through this class, so the log cannot miss one; readers
// get the plain clock (a const VectorClock&). The log keeps at most about
// twice the clock's width of entries; a reader whose position is older than
// what is kept, or further back than the width, joins the whole clock (the
// answer is the same, only slower).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_LOGGEDCLOCK_H
#define STREAMLIFE_RT_ENGINE_LOGGEDCLOCK_H

#include "engine/VectorClock.h"

#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

class LoggedClock {
public:
  /// A point in the log: everything logged before it happened earlier.
  using Position = std::uint64_t;
  /// A position no clock has reached: "nothing noted, join the whole clock".
  static constexpr Position Unknown = ~Position(0);

  const VectorClock &clock() const { return Clock; }
  operator const VectorClock &() const { return Clock; }
  ClockTime get(ClockSlot S) const { return Clock.get(S); }
  std::size_t width() const { return Clock.width(); }
  bool covers(const Epoch &E) const { return Clock.covers(E); }
  bool dominates(const VectorClock &Other) const { return Clock.dominates(Other); }

  /// The position after the latest change.
  Position position() const { return Base + Grown.size(); }

  ClockTime tick(ClockSlot Own) {
    ClockTime T = Clock.tick(Own);
    logGrown(Own);
    return T;
  }
  /// Element-wise maximum, logging each component that grew.
  bool absorb(const VectorClock &Other) {
    return Clock.absorb(Other, [this](ClockSlot S) { logGrown(S); });
  }
  void join(const VectorClock &Other) { absorb(Other); }
  /// absorb(Other) for a clock that already held everything Other knew at
  /// position From of Other's log: reads only the slots Other logged since
  /// when the log reaches back to From (readsLogFrom), else the whole clock.
  bool absorbSince(const LoggedClock &Other, Position From);
  /// Whether absorbSince(*this, From) reads the log rather than the whole
  /// clock: the log still holds From and the catch-up is shorter than the width.
  bool readsLogFrom(Position From) const {
    const Position End = position();
    return From >= Base && From <= End && End - From <= width();
  }

private:
  void logGrown(ClockSlot S) {
    Grown.push_back(S);
    if (Grown.size() > TrimAt)
      trim();
  }
  void trim();

  VectorClock Clock;
  std::vector<ClockSlot> Grown; ///< slots that grew, oldest first
  Position Base = 0;            ///< position of Grown.front()
  std::size_t TrimAt = 64;      ///< trim() when the log grows past this
};

} // namespace rt
} // namespace streamlife

#endif
