//===- StreamTable.cpp - streams, their clocks and implicit ordering ------===//

#include "engine/StreamTable.h"

#include <algorithm>

namespace streamlife {
namespace rt {

StreamState &StreamTable::lookupOrCreate(const StreamDesc &Desc) {
  auto Key = std::make_pair(Desc.Device, Desc.StreamHandle);
  auto It = Live.find(Key);
  if (It != Live.end())
    return *Streams[It->second];

  auto S = std::make_unique<StreamState>();
  S->Desc = Desc;
  S->Id = static_cast<StreamId>(Streams.size());
  S->Slot = Slots.allocate();
  Live.emplace(Key, S->Id);
  DeviceStreams &D = device(Desc.Device);
  D.All.push_back(S->Id);
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
  DeviceStreams &D = device(S->Desc.Device);
  if (D.Legacy == Id)
    D.Legacy = NoStream;
  D.Blocking.erase(std::remove(D.Blocking.begin(), D.Blocking.end(), Id), D.Blocking.end());
}

Epoch StreamTable::enqueue(StreamState &S, const HostClock &H, const VectorClock *Waited) {
  if (S.Clock.get(H.Slot) < H.Clock.get(H.Slot))
    S.Clock.join(H.Clock);

  if (S.Desc.Flavor == StreamFlavor::LegacyDefault) {
    for (StreamId B : device(S.Desc.Device).Blocking) {
      const StreamState &Other = *Streams[B];
      if (S.Clock.get(Other.Slot) < Other.Clock.get(Other.Slot))
        S.Clock.join(Other.Clock);
    }
  } else if (S.blocksOnLegacy()) {
    StreamId L = device(S.Desc.Device).Legacy;
    if (L != NoStream) {
      const StreamState &Legacy = *Streams[L];
      if (S.Clock.get(Legacy.Slot) < Legacy.Clock.get(Legacy.Slot))
        S.Clock.join(Legacy.Clock);
    }
  }

  if (Waited)
    S.Clock.join(*Waited);
  S.Clock.tick(S.Slot);
  return S.now();
}

bool StreamTable::nextWorkOrderedAfter(const StreamState &S, const HostClock &H, Epoch E) const {
  if (S.Clock.covers(E) || H.Clock.covers(E))
    return true;
  const DeviceStreams *D = findDevice(S.Desc.Device);
  if (!D)
    return false;
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

const std::vector<StreamId> &StreamTable::onDevice(int Device) const {
  static const std::vector<StreamId> None;
  auto It = Devices.find(Device);
  return It == Devices.end() ? None : It->second.All;
}

} // namespace rt
} // namespace streamlife
