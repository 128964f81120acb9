//===- StreamTable.cpp - streams, their clocks and implicit ordering ------===//

#include "engine/StreamTable.h"

#include "engine/Check.h"

#include <algorithm>

namespace streamlife {
namespace rt {

ClockSlot StreamTable::takeSlot(const CommonKnowledge &Common, ClockTime &ContinueFrom) {
  for (std::size_t I = 0; I < Retiring.size();) {
    if (Common.covers(Epoch{Retiring[I].Slot, Retiring[I].Final})) {
      FreeSlots.push_back(Retiring[I]);
      Retiring[I] = Retiring.back();
      Retiring.pop_back();
      continue;
    }
    ++I;
  }
  if (FreeSlots.empty()) {
    ContinueFrom = 0;
    return Slots.allocate();
  }
  RetiredSlot Reused = FreeSlots.back();
  FreeSlots.pop_back();
  ContinueFrom = Reused.Final;
  return Reused.Slot;
}

StreamState &StreamTable::lookupOrCreate(const StreamDesc &Desc, const CommonKnowledge &Common) {
  auto Key = std::make_pair(Desc.Device, Desc.StreamHandle);
  auto It = Live.find(Key);
  if (It != Live.end())
    return *Streams[It->second];

  auto S = std::make_unique<StreamState>();
  S->Desc = Desc;
  S->Id = static_cast<StreamId>(Streams.size());
  ClockTime ContinueFrom = 0;
  S->Slot = takeSlot(Common, ContinueFrom);
  // A reused slot's new owner starts where the old owner stopped. Everyone is
  // ordered after the old owner's work, so claiming to know it costs nothing,
  // and the new owner's first operation gets a fresh epoch.
  S->Clock.raise(S->Slot, ContinueFrom);
  Live.emplace(Key, S->Id);
  DeviceStreams &D = device(Desc.Device);
  S->OfDevice = &D;
  D.Live.push_back(S->Id);
  if (Desc.Flavor == StreamFlavor::LegacyDefault)
    D.Legacy = S->Id;
  else if (S->blocksOnLegacy())
    D.Blocking.push_back(S->Id);
  Streams.push_back(std::move(S));
  return *Streams.back();
}

void StreamTable::destroy(StreamId Id) {
  StreamState *S = get(Id);
  if (!S || S->Destroyed)
    return;
  S->Destroyed = true;
  Live.erase(std::make_pair(S->Desc.Device, S->Desc.StreamHandle));
  DeviceStreams &D = *S->OfDevice;
  if (D.Legacy == Id)
    D.Legacy = NoStream;
  auto Drop = [Id](std::vector<StreamId> &V) { V.erase(std::remove(V.begin(), V.end(), Id), V.end()); };
  Drop(D.Blocking);
  Drop(D.Live);
  D.Retired.join(S->Clock);
  Retiring.push_back(RetiredSlot{S->Slot, S->Clock.get(S->Slot)});
  S->Clock.clear();
  S->Clock.shrink();
  S->HostMarks = {};
}

Epoch StreamTable::enqueue(StreamState &S, const HostClock &H, const VectorClock *Waited) {
  const ClockTime Before = S.Clock.get(S.Slot);
  // The joins below are skipped when the stream already knows the other
  // owner's latest tick; that is sound only because every change of a clock
  // ticks its owner's own component (VectorClock.h).
  if (S.Clock.get(H.Slot) < H.Clock.get(H.Slot))
    inheritHost(S, H);
  STREAMLIFE_DCHECK(S.Clock.dominates(H.Clock));

  // The implicit legacy-stream ordering, out of line: its loop's registers
  // gave every enqueue a frame of six saved ones, though a blocking stream
  // of a device whose legacy stream was never used needs one compare.
  if (S.Desc.Flavor == StreamFlavor::LegacyDefault)
    joinBlockingStreams(S);
  else if (S.blocksOnLegacy() && S.OfDevice->Legacy != NoStream)
    joinLegacyStream(S);

  if (Waited)
    S.Clock.join(*Waited);
  S.Clock.tick(S.Slot);
  STREAMLIFE_DCHECK(S.Clock.get(S.Slot) == Before + 1);
  static_cast<void>(Before);
  return S.now();
}

void StreamTable::joinBlockingStreams(StreamState &S) {
  for (StreamId B : S.OfDevice->Blocking) {
    const StreamState &Other = *Streams[B];
    if (S.Clock.get(Other.Slot) < Other.Clock.get(Other.Slot))
      S.Clock.join(Other.Clock);
  }
}

void StreamTable::joinLegacyStream(StreamState &S) {
  const StreamState &Legacy = *Streams[S.OfDevice->Legacy];
  if (S.Clock.get(Legacy.Slot) < Legacy.Clock.get(Legacy.Slot))
    S.Clock.join(Legacy.Clock);
}

void StreamTable::inheritHost(StreamState &S, const HostClock &H) {
  ++HostJoins;
  // Narrow clocks join whole (cheaper than the bookkeeping there); the marks
  // they leave behind stay true, only older.
  if (!ChangedSlotJoins || H.Clock.narrow()) {
    ++WholeHostJoins;
    S.Clock.join(H.Clock);
    return;
  }
  StreamState::HostMark *M = nullptr;
  for (StreamState::HostMark &Each : S.HostMarks)
    if (Each.Host == H.Slot)
      M = &Each;
  if (!M) {
    S.HostMarks.push_back(StreamState::HostMark{H.Slot, LoggedClock::Unknown});
    M = &S.HostMarks.back();
  }
  // Clocks only grow: what S held at the mark it still holds, so only the
  // slots that grew in H's clock since can be news.
  WholeHostJoins += H.Clock.joinInto(S.Clock, M->Joined);
  M->Joined = H.Clock.position();
}

bool StreamTable::nextWorkOrderedAfter(const StreamState &S, bool HostKnew, Epoch E) const {
  if (HostKnew || S.Clock.covers(E))
    return true;
  const DeviceStreams *D = S.OfDevice;
  if (S.Desc.Flavor == StreamFlavor::LegacyDefault) {
    for (StreamId B : D->Blocking)
      if (Streams[B]->Clock.covers(E))
        return true;
  } else if (S.blocksOnLegacy() && D->Legacy != NoStream) {
    if (Streams[D->Legacy]->Clock.covers(E))
      return true;
  }
  return false;
}

void StreamTable::syncDevice(HostClock &H, int Device) const {
  const DeviceStreams *D = findDevice(Device);
  if (!D)
    return;
  for (StreamId Id : D->Live) {
    const StreamState &S = *Streams[Id];
    if (H.Clock.get(S.Slot) < S.Clock.get(S.Slot))
      H.Clock.join(S.Clock);
    STREAMLIFE_DCHECK(H.Clock.dominates(S.Clock));
  }
  H.Clock.join(D->Retired);
}

} // namespace rt
} // namespace streamlife
