//===- LoggedClock.cpp - a vector clock that remembers what grew ----------===//

#include "engine/LoggedClock.h"

#include <algorithm>

namespace streamlife {
namespace rt {

ClockTime LoggedClock::tickAnySlot(ClockSlot Own) {
  ClockTime T = Clock.tick(Own);
  grew(Own);
  return T;
}

bool LoggedClock::absorbChangesSinceUnordered(const LoggedClock &Other, Position From) {
  // No order kept here yet (orderWhenAsked): the growths only move the
  // position, and the order, when it starts, covers none of them. Out of
  // absorbChangesSince: there, this loop cost the ordered walk's registers
  // (about 17 instructions a walk).
  const ClockTime *Theirs = Other.Clock.Times.data();
  ClockTime *Mine = Clock.Times.data();
  bool Grew = false;
  Other.forEachChangeSince(From, [&](ClockSlot S) __attribute__((always_inline)) {
    const ClockTime T = Theirs[S];
    if (T > Mine[S]) {
      Mine[S] = T;
      ++Changes;
      Grew = true;
    }
  });
  OrderedFrom = Changes;
  STREAMLIFE_DCHECK(Clock.dominates(Other.Clock));
  return Grew;
}

bool LoggedClock::absorbChangesSince(const LoggedClock &Other, Position From) {
  STREAMLIFE_DCHECK(Other.readsChangesSince(From));
  if (!Ordering && !narrow() && Other.Clock.width() <= Clock.Times.size())
    return absorbChangesSinceUnordered(Other, From);
  // The walk of forEachChangeSince, with the components read in place: a
  // slot in Other's order (and its owner's) is within Other's clock and its
  // order; this clock widens only to a slot that grows here, as raise()
  // would.
  const ClockTime *Theirs = Other.Clock.Times.data();
  const Link *Order = Other.Links.data();
  std::vector<ClockTime> &Times = Clock.Times;
  ClockTime *Mine = Times.data();
  std::size_t MineWidth = Times.size();
  // grew() per growth, with what it asks of the width asked once (again
  // only when the clock widens).
  bool Narrow = narrow();
  bool Grew = false;
  // Other's slots that grew since From, its owner's first, then newest to
  // oldest, each handed to Take (which may relink it here, so the next is
  // read first). One walk for both cases below; a template, so each inlines
  // its Take.
  auto walkChanges = [&](auto &&Take) __attribute__((always_inline)) {
    if (Other.OwnerChangedAt > From)
      Take(Other.Owner);
    for (ClockSlot S = Other.Newest; S != NoSlot;) {
      const Link &At = Order[S];
      if (At.ChangedAt <= From)
        break;
      const ClockSlot Next = At.Older;
      Take(S);
      S = Next;
    }
  };
  // The common case, a wide clock at least as wide as Other (every host clock
  // and lock clock of a program whose streams are all known): no growth can
  // widen it or make it narrow, so the walk asks neither per slot. The same
  // slots, order and growths as the general walk below (LoggedClockTest,
  // SyncClocksTest).
  if (!Narrow && Links.size() < MineWidth)
    Links.resize(MineWidth);
  if (!Narrow && Other.Clock.width() <= MineWidth) {
    Link *Mylinks = Links.data();
    auto TakeWithin = [&](ClockSlot S) __attribute__((always_inline)) {
      const ClockTime T = Theirs[S];
      if (T > Mine[S]) {
        Mine[S] = T;
        ++Changes;
        if (S == Owner)
          OwnerChangedAt = Changes;
        else
          linkNewestIn(Mylinks, S);
        Grew = true;
      }
    };
    walkChanges(TakeWithin);
    STREAMLIFE_DCHECK(Clock.dominates(Other.Clock));
    return Grew;
  }
  auto Take = [&](ClockSlot S) __attribute__((always_inline)) {
    const ClockTime T = Theirs[S];
    if (S < MineWidth ? T > Mine[S] : T != 0) {
      if (S >= MineWidth) {
        Times.resize(std::size_t(S) + 1, 0);
        Mine = Times.data();
        MineWidth = Times.size();
        Narrow = narrow();
        if (!Narrow && Ordering && Links.size() < MineWidth)
          Links.resize(MineWidth);
      }
      Mine[S] = T;
      ++Changes;
      if (Narrow || !Ordering)
        OrderedFrom = Changes;
      else if (S == Owner)
        OwnerChangedAt = Changes;
      else
        linkNewest(S);
      Grew = true;
    }
  };
  walkChanges(Take);
  STREAMLIFE_DCHECK(Clock.dominates(Other.Clock));
  return Grew;
}

bool LoggedClock::joinInto(VectorClock &Into, Position From) const {
  if (!readsChangesSince(From)) {
    Into.join(Clock);
    return true;
  }
  joinChangesInto(Into, From, [](ClockSlot, ClockTime) {});
  STREAMLIFE_DCHECK(Into.dominates(Clock));
  return false;
}

} // namespace rt
} // namespace streamlife
