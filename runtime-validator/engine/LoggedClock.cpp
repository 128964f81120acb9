//===- LoggedClock.cpp - a vector clock that remembers what grew ----------===//

#include "engine/LoggedClock.h"

#include <algorithm>

namespace streamlife {
namespace rt {

bool LoggedClock::absorbSince(const LoggedClock &Other, Position From) {
  if (!Other.readsChangesSince(From))
    return absorb(Other.Clock);
  bool Grew = false;
  Other.forEachChangeSince(From, [&](ClockSlot S) {
    const ClockTime T = Other.Clock.get(S);
    if (T <= Clock.get(S))
      return;
    Clock.raise(S, T);
    grew(S);
    Grew = true;
  });
  STREAMLIFE_DCHECK(Clock.dominates(Other.Clock));
  return Grew;
}

bool LoggedClock::joinInto(VectorClock &Into, Position From) const {
  if (!readsChangesSince(From)) {
    Into.join(Clock);
    return true;
  }
  forEachChangeSince(From, [&](ClockSlot S) { Into.raise(S, Clock.get(S)); });
  STREAMLIFE_DCHECK(Into.dominates(Clock));
  return false;
}

void LoggedClock::moveToNewest(ClockSlot S) {
  if (S >= Links.size())
    Links.resize(std::max<std::size_t>(std::size_t(S) + 1, Clock.width()));
  Link &L = Links[S];
  if (Newest == S) {
    L.ChangedAt = Changes;
    return;
  }
  if (L.ChangedAt != 0) { // linked: take it out
    if (L.Older != NoSlot)
      Links[L.Older].Newer = L.Newer;
    Links[L.Newer].Older = L.Older; // S is not the newest, so it has a newer one
  }
  L.ChangedAt = Changes;
  L.Older = Newest;
  L.Newer = NoSlot;
  if (Newest != NoSlot)
    Links[Newest].Newer = S;
  Newest = S;
}

} // namespace rt
} // namespace streamlife
