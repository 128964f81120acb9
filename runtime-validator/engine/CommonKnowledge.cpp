//===- CommonKnowledge.cpp - what every CUDA thread knows, slot by slot ---===//

#include "engine/CommonKnowledge.h"

#include <algorithm>

namespace streamlife {
namespace rt {

void CommonKnowledge::leave(const VectorClock &Clock) {
  auto It = std::find(Members.begin(), Members.end(), &Clock);
  if (It == Members.end())
    return;
  *It = Members.back();
  Members.pop_back();
  changed();
}

ClockTime CommonKnowledge::compute(ClockSlot S) const {
  if (!Lazy)
    return whole().get(S);
  ++SlotComputations;
  ClockTime Min = 0;
  if (!Members.empty()) {
    Min = ~ClockTime(0);
    for (const VectorClock *C : Members)
      Min = std::min(Min, C->get(S));
  }
  if (S >= Cache.size())
    Cache.resize(std::size_t(S) + 1);
  Cache[S] = Slot{Min, Version};
  return Min;
}

const VectorClock &CommonKnowledge::whole() const {
  if (WholeAt == Version)
    return Whole;
  ++WholeComputations;
  Whole.clear();
  for (std::size_t I = 0; I < Members.size(); ++I) {
    if (I == 0)
      Whole.assign(*Members[I]);
    else
      Whole.meet(*Members[I]);
  }
  WholeAt = Version;
  return Whole;
}

} // namespace rt
} // namespace streamlife
