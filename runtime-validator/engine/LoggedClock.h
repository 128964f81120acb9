//===- LoggedClock.h - a vector clock that remembers what grew --*- C++ -*-===//
//
// A vector clock that also knows, for each slot, when its component last grew
// (a position: the count of changes so far), with the slots linked newest
// first. Whoever noted the position when it last held everything the clock
// knew (a synchronization object after a thread released into it, a thread
// after it acquired the object) later catches up by reading only the slots
// that grew since: the other components have not moved, so they cannot hold
// news. Host synchronization then costs the number of distinct slots that
// changed, not the clock's width: two threads taking locks in turn learn each
// other's own tick and little else, while the clock has a slot for every
// stream of the process (FSDP2 on one rank: about 140).
//
// A thread's own slot is kept apart from the order (setOwner): every change
// of a thread's clock ends with its tick.
//
// A clock that is only sometimes read by its changes (a lock's: only an
// acquire that the releasers' epochs cannot decide reads it) keeps its order
// only once asked (orderWhenAsked, then keepOrder): until then a growth
// relinks nothing, and a reader joins the whole clock once. FSDP2's most
// frequent kept lock event releases a tensor's mutex whose acquires the
// intercept's filter drops or the epochs decide: its clock is written at
// every release and read by its changes never, and the relink of every
// growth (about 20 instructions) and the order's 16 bytes a slot bought
// nothing.
//
// Every change goes through this class, so no growth goes unrecorded;
// readers get the plain clock (a const VectorClock&). A clock of at most
// NarrowWidth slots records no order (a whole-clock join is cheaper there);
// a reader whose position predates the order joins the whole clock (the
// answer is the same, only slower). The order costs 16 bytes per slot beside
// the clock's 8.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_LOGGEDCLOCK_H
#define STREAMLIFE_RT_ENGINE_LOGGEDCLOCK_H

#include "engine/VectorClock.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace streamlife {
namespace rt {

class LoggedClock {
public:
  /// A point in the clock's history: the number of changes up to it.
  using Position = std::uint64_t;
  /// A position no clock has reached: "nothing noted, join the whole clock".
  static constexpr Position Unknown = ~Position(0);
  /// Up to this width a whole-clock join costs less than keeping the order.
  static constexpr std::size_t NarrowWidth = 16;

  const VectorClock &clock() const { return Clock; }
  operator const VectorClock &() const { return Clock; }
  ClockTime get(ClockSlot S) const { return Clock.get(S); }
  std::size_t width() const { return Clock.width(); }
  bool narrow() const { return Clock.width() <= NarrowWidth; }
  bool covers(const Epoch &E) const { return Clock.covers(E); }
  bool dominates(const VectorClock &Other) const { return Clock.dominates(Other); }

  /// The position after the latest change.
  Position position() const { return Changes; }

  /// Keeps no order of the changes until keepOrder(): readers join the whole
  /// clock until then. Set before the clock's first change.
  void orderWhenAsked() {
    STREAMLIFE_DCHECK(Changes == 0);
    Ordering = false;
  }
  /// From now on the order covers every change (a reader that held the
  /// clock before still joins it whole, once).
  void keepOrder() {
    if (Ordering)
      return;
    Ordering = true;
    OrderedFrom = Changes;
  }
  bool keepsOrder() const { return Ordering; }

  /// The owner's slot (a thread's own) is kept out of the order, with the
  /// position of its latest change beside it: every change of a thread's
  /// clock ends with the tick of its own slot (VectorClock.h), which would
  /// relink that slot to the front of the order each time (about 25
  /// instructions); kept apart, a tick stores a position, and a walk reads
  /// the owner's slot first, where its change is anyway. Set before the
  /// clock's first change.
  void setOwner(ClockSlot Own) {
    STREAMLIFE_DCHECK(Changes == 0);
    Owner = Own;
  }

  ClockTime tick(ClockSlot Own) {
    // The owner's tick of a wide clock (a thread's, after every acquire that
    // taught it something) inline: what tickAnySlot() does then, without its
    // growth check and frame (the compiler kept the whole of it out of line).
    if (Own == Owner && Own < Clock.Times.size() && !narrow()) {
      OwnerChangedAt = ++Changes;
      return ++Clock.Times[Own];
    }
    return tickAnySlot(Own);
  }
  /// Element-wise maximum, recording each component that grew.
  bool absorb(const VectorClock &Other) {
    return Clock.absorb(Other, [this](ClockSlot S) { grew(S); });
  }
  void join(const VectorClock &Other) { absorb(Other); }
  /// absorb(Other) for a clock that already held everything Other knew at
  /// position From of Other, when Other recorded the order of its changes
  /// from From on (Other.readsChangesSince(From); the caller joins the whole
  /// clock otherwise): reads only the slots that grew in Other since.
  bool absorbChangesSince(const LoggedClock &Other, Position From);
  bool readsChangesSince(Position From) const {
    return From != Unknown && From >= OrderedFrom && From <= Changes;
  }
  /// Calls F(slot) for each slot that grew after position From, once each:
  /// the owner's first (a thread's clock: its newest change), then newest
  /// first. Only when readsChangesSince(From).
  template <typename Fn> void forEachChangeSince(Position From, Fn &&F) const {
    STREAMLIFE_DCHECK(readsChangesSince(From));
    if (OwnerChangedAt > From)
      F(Owner);
    for (ClockSlot S = Newest; S != NoSlot && Links[S].ChangedAt > From; S = Links[S].Older)
      F(S);
  }
  /// Into.join(clock()) for a clock Into that held everything this clock knew
  /// at position From (a stream's clock after it last joined a thread's):
  /// reads only the slots that grew since, when their order is kept, else the
  /// whole clock. Returns whether it read the whole clock.
  bool joinInto(VectorClock &Into, Position From) const;
  /// The changed-slot half of joinInto (only when readsChangesSince(From)),
  /// calling Grew(slot, Into's time before) for each slot of Into that grows,
  /// in forEachChangeSince's order. Reads both clocks in place: this is the
  /// walk of every launch after a thread's clock changed and of every kept
  /// caching allocation.
  template <typename OnGrow> void joinChangesInto(VectorClock &Into, Position From, OnGrow &&Grew) const {
    STREAMLIFE_DCHECK(readsChangesSince(From));
    std::vector<ClockTime> &Theirs = Into.Times;
    const ClockTime *Mine = Clock.Times.data();
    const Link *Order = Links.data();
    auto Give = [&](ClockSlot S) {
      const ClockTime Now = Mine[S];
      if (S < Theirs.size()) {
        if (Now > Theirs[S]) {
          Grew(S, Theirs[S]);
          Theirs[S] = Now;
        }
      } else if (Now != 0) {
        Theirs.resize(std::size_t(S) + 1, 0);
        Grew(S, ClockTime(0));
        Theirs[S] = Now;
      }
    };
    if (OwnerChangedAt > From)
      Give(Owner);
    for (ClockSlot S = Newest; S != NoSlot;) {
      const Link &At = Order[S];
      if (At.ChangedAt <= From)
        break;
      Give(S);
      S = At.Older;
    }
  }

private:
  struct Link;
  /// tick() of any slot, any width.
  ClockTime tickAnySlot(ClockSlot Own);
  /// absorbChangesSince() into a wide clock, at least as wide as Other's,
  /// that keeps no order yet.
  [[gnu::noinline]] bool absorbChangesSinceUnordered(const LoggedClock &Other, Position From);
  void grew(ClockSlot S) {
    ++Changes;
    if (narrow() || !Ordering)
      OrderedFrom = Changes;
    else if (S == Owner)
      OwnerChangedAt = Changes;
    else
      moveToNewest(S);
  }
  void moveToNewest(ClockSlot S) {
    if (S >= Links.size())
      Links.resize(std::max<std::size_t>(std::size_t(S) + 1, Clock.width()));
    linkNewest(S);
  }
  /// moveToNewest() of a slot below Links.size().
  void linkNewest(ClockSlot S) { linkNewestIn(Links.data(), S); }
  /// linkNewest() with Links.data() given (a walk holds it in a register).
  void linkNewestIn(Link *At, ClockSlot S) {
    Link &L = At[S];
    if (Newest == S) {
      L.ChangedAt = Changes;
      return;
    }
    if (L.ChangedAt != 0) { // linked: take it out
      if (L.Older != NoSlot)
        At[L.Older].Newer = L.Newer;
      At[L.Newer].Older = L.Older; // S is not the newest, so it has a newer one
    }
    L.ChangedAt = Changes;
    L.Older = Newest;
    L.Newer = NoSlot;
    if (Newest != NoSlot)
      At[Newest].Newer = S;
    Newest = S;
  }

  VectorClock Clock;
  Position Changes = 0;
  /// The order below covers every change after this position.
  Position OrderedFrom = 0;
  /// Per slot, one cache line's worth for the walk: when it last grew
  /// (0: not since OrderedFrom) and its neighbours in the order of growth.
  struct Link {
    Position ChangedAt = 0;
    ClockSlot Older = NoSlot;
    ClockSlot Newer = NoSlot;
  };
  /// The slots that grew since OrderedFrom, linked newest first.
  std::vector<Link> Links;
  ClockSlot Newest = NoSlot;
  ClockSlot Owner = NoSlot;
  /// False until keepOrder() after orderWhenAsked(): no order is kept (the
  /// links stay untouched: all unlinked when it starts).
  bool Ordering = true;
  /// When the owner's slot last grew (at most OrderedFrom: not since).
  Position OwnerChangedAt = 0;
};

} // namespace rt
} // namespace streamlife

#endif
