//===- LiveBases.cpp - growing and sweeping the live bases ----------------===//
#include "engine/LiveBases.h"

#include "engine/Shadow.h"

namespace streamlife {
namespace rt {

void LiveBases::rebuild(std::size_t NewCapacity, bool KeepEmpty) {
  std::unique_ptr<Slot[]> Old = std::move(Slots);
  const std::size_t OldCapacity = capacity();
  Slots.reset(new Slot[NewCapacity]);
  Mask = NewCapacity - 1;
  Count = 0;
  for (std::size_t I = 0; I < OldCapacity; ++I)
    if (Old[I].Base != NoBase && (KeepEmpty || !Old[I].Here.empty())) {
      Slot *S = probe(Old[I].Base);
      S->Base = Old[I].Base;
      S->Here = std::move(Old[I].Here);
      ++Count;
    }
}

void LiveBases::grow() { rebuild(capacity() ? 2 * capacity() : 64, true); }

void LiveBases::dropEmpty() {
  if (!Count)
    return;
  std::size_t Kept = 0;
  for (std::size_t I = 0; I < capacity(); ++I)
    Kept += Slots[I].Base != NoBase && !Slots[I].Here.empty();
  if (Kept == Count)
    return; // nothing to drop: a sweep of a warm program allocates nothing
  // At most half full again, and no larger than that needs: the bases a
  // program had at its peak need not stay allocated.
  std::size_t NewCapacity = 64;
  while (2 * (Kept + 1) > NewCapacity)
    NewCapacity *= 2;
  rebuild(NewCapacity, false);
}

} // namespace rt
} // namespace streamlife
