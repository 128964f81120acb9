//===- LiveBases.cpp - growing and sweeping the live bases ----------------===//
#include "engine/LiveBases.h"

#include "engine/Shadow.h"

namespace streamlife {
namespace rt {

void LiveBases::dropEmpty() {
  auto NotEmpty = [](const Lives &Here) { return !Here.empty(); };
  std::size_t Kept = Table.countKept(NotEmpty);
  if (Kept == Table.size())
    return; // nothing to drop: a sweep of a warm program allocates nothing
  // At most half full again, and no larger than that needs: the bases a
  // program had at its peak need not stay allocated.
  std::size_t NewCapacity = 64;
  while (2 * (Kept + 1) > NewCapacity)
    NewCapacity *= 2;
  Table.rebuild(NewCapacity, NotEmpty);
}

} // namespace rt
} // namespace streamlife
