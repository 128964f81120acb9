//===--- LifetimeState.cpp - streamlife -----------------------------------===//
//
// Joins of the lifetime lattice (see LifetimeState.h for the rules).
//
//===----------------------------------------------------------------------===//

#include "LifetimeState.h"

namespace clang {
namespace tidy {
namespace streamlife {

void WorkFacts::meet(const WorkFacts &Other) {
  for (auto It = CoveringEvents.begin(); It != CoveringEvents.end();)
    It = Other.CoveringEvents.count(*It) ? std::next(It)
                                         : CoveringEvents.erase(It);
  for (auto It = OrderedStreams.begin(); It != OrderedStreams.end();)
    It = Other.OrderedStreams.count(It->first) ? std::next(It)
                                               : OrderedStreams.erase(It);
  OrderedByLegacyStream &= Other.OrderedByLegacyStream;
  FromEarlierIteration &= Other.FromEarlierIteration;
}

void BufferState::join(const BufferState &Other) {
  if (!AllocSite && Other.AllocSite) {
    AllocSite = Other.AllocSite;
    AllocStream = Other.AllocStream;
    AllocFacts = Other.AllocFacts;
  } else if (AllocSite && Other.AllocSite) {
    // Different allocation sites on the two paths (a loop re-allocating the
    // name): only orderings that hold for both count.
    AllocFacts.meet(Other.AllocFacts);
  }
  AllocPending |= Other.AllocPending;
  for (const auto &[Key, Facts] : Other.PendingUses) {
    auto [It, Inserted] = PendingUses.insert({Key, Facts});
    if (!Inserted)
      It->second.meet(Facts);
  }
  if (!ReleaseSite)
    ReleaseSite = Other.ReleaseSite;
  RacyReleases.insert(Other.RacyReleases.begin(), Other.RacyReleases.end());
}

void LifetimeState::join(const LifetimeState &Other) {
  if (!Other.Reachable)
    return;
  if (!Reachable) {
    *this = Other;
    return;
  }
  for (const auto &[Key, Buffer] : Other.Buffers) {
    auto [It, Inserted] = Buffers.insert({Key, Buffer});
    if (!Inserted)
      It->second.join(Buffer);
  }
  for (const auto &[Key, Event] : Other.Events) {
    auto [It, Inserted] = Events.insert({Key, Event});
    if (!Inserted && !(It->second == Event)) {
      // Recorded at different points on the two paths: where it sits is
      // unknown, so nothing is concluded from waiting on it later.
      if (It->second.Stream != Event.Stream)
        It->second.Stream.reset();
    }
  }
  for (const auto &[Key, NonBlocking] : Other.NonBlockingStreams) {
    auto [It, Inserted] = NonBlockingStreams.insert({Key, NonBlocking});
    if (!Inserted && It->second != NonBlocking)
      NonBlockingStreams.erase(It);
  }
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
