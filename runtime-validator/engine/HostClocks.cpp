//===- HostClocks.cpp - what each host thread knows -----------------------===//

#include "engine/HostClocks.h"

namespace streamlife {
namespace rt {

HostClocks::HostClocks(HostKnowledge Mode, SlotAllocator &Slots) : Mode(Mode), Slots(Slots) {}

HostClock &HostClocks::create() {
  auto H = std::make_unique<HostClock>();
  H->Slot = Slots.allocate();
  H->Clock.assign(commonKnowledge());
  H->Clock.tick(H->Slot);
  Clocks.push_back(std::move(H));
  ++Version;
  return *Clocks.back();
}

HostClock &HostClocks::of(ThreadId T) {
  if (T < ByThread.size() && ByThread[T])
    return *ByThread[T];
  if (T >= ByThread.size())
    ByThread.resize(std::size_t(T) + 1, nullptr);
  if (Mode == HostKnowledge::SharedAcrossThreads && !Clocks.empty())
    ByThread[T] = Clocks.front().get();
  else
    ByThread[T] = &create();
  return *ByThread[T];
}

void HostClocks::learned(HostClock &H) {
  H.Clock.tick(H.Slot);
  ++Version;
}

const VectorClock &HostClocks::commonKnowledge() {
  if (Mode == HostKnowledge::SharedAcrossThreads && !Clocks.empty())
    return Clocks.front()->Clock;
  if (CommonVersion != Version) {
    Common.clear();
    for (std::size_t I = 0; I < Clocks.size(); ++I) {
      if (I == 0)
        Common.assign(Clocks[I]->Clock);
      else
        Common.meet(Clocks[I]->Clock);
    }
    CommonVersion = Version;
  }
  return Common;
}

std::size_t HostClocks::threads() const { return Clocks.size(); }

} // namespace rt
} // namespace streamlife
