//===- SyncClocks.cpp - clocks of host synchronization objects ------------===//

#include "engine/SyncClocks.h"

namespace streamlife {
namespace rt {
namespace {

/// Narrow clocks join whole: there the marks cost more than the scan.
/// Skipping them leaves older marks in place, which stay true (clocks only
/// grow).
bool narrow(const LoggedClock &A, const LoggedClock &B) { return A.narrow() && B.narrow(); }

/// Thread Host's mark, created as Unknown (the first contact reads whole clocks).
inline SyncClock::Mark &markOf(SyncClock &C, ClockSlot Host) {
  for (SyncClock::Mark &M : C.Marks)
    if (M.Host == Host)
      return M;
  C.Marks.push_back(SyncClock::Mark{Host, LoggedClock::Unknown, LoggedClock::Unknown});
  return C.Marks.back();
}

} // namespace

void SyncClocks::release(HostClock &H, SyncId Sync) {
  bool Inserted = false;
  SyncClock *Known = Last && LastSync == Sync ? Last : nullptr;
  if (!Known) {
    auto [It, New] = Clocks.try_emplace(Sync);
    Inserted = New;
    Known = &It->second;
    remember(Sync, *Known);
    if (Inserted) {
      Order.push_back(Sync);
      evictBeyondCap(Sync);
    }
  }
  SyncClock &C = *Known;
  if (!ChangedSlotJoins) {
    if (!C.Clock.covers(H.now())) {
      ++WholeClockJoins;
      C.Clock.absorb(H.Clock);
    }
    return;
  }
  // Every release notes its epoch, narrow clocks' too: the epochs decide an
  // acquire only while they name every release of the object.
  SyncClock::Mark &M = markOf(C, H.Slot);
  M.ReleasedAt = H.Clock.get(H.Slot);
  // Whoever knows H's latest epoch knows H's whole clock (VectorClock.h), so
  // a repeated release with nothing learned in between costs one compare.
  if (narrow(H.Clock, C.Clock)) {
    if (!C.Clock.covers(H.now())) {
      ++WholeClockJoins;
      C.Clock.absorb(H.Clock);
    }
    return;
  }
  const bool KnewAll = Inserted || M.Acquired == C.Clock.position();
  if (!C.Clock.covers(H.now())) {
    WholeClockJoins += !H.Clock.readsChangesSince(M.Released);
    C.Clock.absorbSince(H.Clock, M.Released);
  }
  M.Released = H.Clock.position();
  // H knew the object's old clock and its own: it knows the joined one.
  if (KnewAll)
    M.Acquired = C.Clock.position();
}

bool SyncClocks::acquire(HostClock &H, SyncClock &C) {
  if (!ChangedSlotJoins || narrow(H.Clock, C.Clock)) {
    ++WholeClockJoins;
    return H.Clock.absorb(C.Clock);
  }
  SyncClock::Mark &M = markOf(C, H.Slot);
  if (M.Acquired == C.Clock.position())
    return false; // nothing released into it since H last knew it all
  // The epochs cost a compare per releaser; the walk below one per change
  // since H's last acquire (a position counts changes). Ask the epochs only
  // where the walk would read more (first contact: the whole clock).
  const bool FewChanges = M.Acquired != LoggedClock::Unknown &&
                          C.Clock.position() - M.Acquired <= C.Marks.size();
  bool KnowsEveryRelease = !FewChanges;
  if (KnowsEveryRelease)
    for (const SyncClock::Mark &R : C.Marks)
      if (H.Clock.get(R.Host) < R.ReleasedAt) {
        KnowsEveryRelease = false;
        break;
      }
  if (KnowsEveryRelease) {
    STREAMLIFE_DCHECK(H.Clock.dominates(C.Clock));
    ++KnownByEpochs;
    M.Acquired = C.Clock.position();
    return false;
  }
  WholeClockJoins += !C.Clock.readsChangesSince(M.Acquired);
  const bool Grew = H.Clock.absorbSince(C.Clock, M.Acquired);
  M.Acquired = C.Clock.position();
  return Grew;
}

} // namespace rt
} // namespace streamlife
