//===- VectorClock.cpp - vector clocks over dense clock slots -------------===//

#include "engine/VectorClock.h"

#include <algorithm>

namespace streamlife {
namespace rt {

void VectorClock::join(const VectorClock &Other) {
  if (Other.Times.size() > Times.size())
    Times.resize(Other.Times.size(), 0);
  maxInto(Times.data(), Other.Times.data(), Other.Times.size());
  STREAMLIFE_DCHECK(dominates(Other));
}

bool VectorClock::absorb(const VectorClock &Other) {
  return absorb(Other, [](ClockSlot) {});
}

void VectorClock::meet(const VectorClock &Other) {
  // Components missing from Other are zero there, so the minimum is zero.
  if (Times.size() > Other.Times.size())
    Times.resize(Other.Times.size());
  for (std::size_t I = 0; I < Times.size(); ++I)
    Times[I] = std::min(Times[I], Other.Times[I]);
  STREAMLIFE_DCHECK(Other.dominates(*this));
}

bool VectorClock::dominates(const VectorClock &Other) const {
  for (std::size_t I = 0; I < Other.Times.size(); ++I)
    if (get(static_cast<ClockSlot>(I)) < Other.Times[I])
      return false;
  return true;
}

void VectorClock::assign(const VectorClock &Other) {
  Times.assign(Other.Times.begin(), Other.Times.end());
}

} // namespace rt
} // namespace streamlife
