//===- LoggedClock.cpp - a vector clock that remembers what grew ----------===//

#include "engine/LoggedClock.h"

namespace streamlife {
namespace rt {

bool LoggedClock::absorbSince(const LoggedClock &Other, Position From) {
  // A position the log no longer reaches (or never held), or a catch-up
  // longer than the clock: the whole clock is as good and no dearer.
  if (!Other.readsLogFrom(From))
    return absorb(Other.Clock);
  const Position End = Other.position();
  bool Grew = false;
  for (Position P = From; P < End; ++P) {
    const ClockSlot S = Other.Grown[P - Other.Base];
    const ClockTime T = Other.Clock.get(S);
    if (T <= Clock.get(S))
      continue;
    Clock.raise(S, T);
    logGrown(S);
    Grew = true;
  }
  STREAMLIFE_DCHECK(Clock.dominates(Other.Clock));
  return Grew;
}

void LoggedClock::trim() {
  // Keep about twice the width: a reader further back joins the whole clock
  // anyway. Dropping the older part at once keeps the cost per entry constant.
  const std::size_t Keep = 2 * Clock.width() + 16;
  TrimAt = 2 * Keep;
  if (Grown.size() <= Keep)
    return;
  const std::size_t Drop = Grown.size() - Keep;
  Grown.erase(Grown.begin(), Grown.begin() + static_cast<std::ptrdiff_t>(Drop));
  Base += Drop;
}

} // namespace rt
} // namespace streamlife
