//===- HostClocks.cpp - what each host thread knows -----------------------===//

#include "engine/HostClocks.h"

namespace streamlife {
namespace rt {

HostClocks::HostClocks(SlotAllocator &Slots) : Slots(Slots) {}

HostClock &HostClocks::create(ThreadId T) {
  auto H = std::make_unique<HostClock>();
  H->Thread = T;
  H->Slot = Slots.allocate();
  H->Clock.tick(H->Slot);
  Clocks.push_back(std::move(H));
  ++Version;
  return *Clocks.back();
}

HostClock *HostClocks::find(ThreadId T) {
  return T < ByThread.size() ? ByThread[T] : nullptr;
}

HostClock &HostClocks::forSync(ThreadId T) {
  if (HostClock *H = find(T))
    return *H;
  if (T >= ByThread.size())
    ByThread.resize(std::size_t(T) + 1, nullptr);
  ByThread[T] = &create(T);
  return *ByThread[T];
}

HostClock &HostClocks::of(ThreadId T) {
  HostClock &H = forSync(T);
  if (H.UsesCuda)
    return H;
  // A new CUDA thread knows what every CUDA thread knows: that work really
  // completed (each of them observed it), so nothing it enqueues can race
  // with it, and the common knowledge stays a lower bound of every clock.
  const VectorClock &Known = commonKnowledge();
  if (CudaThreads)
    H.Clock.join(Known);
  H.UsesCuda = true;
  H.Finished = false;
  ++CudaThreads;
  learned(H);
  return H;
}

void HostClocks::learned(HostClock &H) {
  H.Clock.tick(H.Slot);
  H.ReleasedSinceTick = false;
  ++Version;
}

Epoch HostClocks::stamp(HostClock &H) {
  if (H.ReleasedSinceTick)
    learned(H);
  return H.now();
}

void HostClocks::finished(ThreadId T) {
  HostClock *H = find(T);
  if (!H || H->Finished)
    return;
  H->Finished = true;
  if (H->UsesCuda) {
    H->UsesCuda = false;
    --CudaThreads;
  }
  ++Version;
}

const VectorClock &HostClocks::commonKnowledge() {
  if (CommonVersion == Version)
    return Common;
  Common.clear();
  bool First = true;
  for (const std::unique_ptr<HostClock> &H : Clocks) {
    if (!H->UsesCuda)
      continue;
    if (First)
      Common.assign(H->Clock);
    else
      Common.meet(H->Clock);
    First = false;
  }
  CommonVersion = Version;
  return Common;
}

} // namespace rt
} // namespace streamlife
