//===- QueuedLives.cpp - growing and sweeping the queue's lives -----------===//
#include "allocators/QueuedLives.h"

namespace streamlife {
namespace rt {

template <typename KeepFn> void QueuedLives::rebuild(std::size_t NewCapacity, KeepFn Keep) {
  std::unique_ptr<Slot[]> Old = std::move(Slots);
  const std::size_t OldCapacity = capacity();
  Slots.reset(new Slot[NewCapacity]);
  Mask = NewCapacity - 1;
  Count = 0;
  for (std::size_t I = 0; I < OldCapacity; ++I)
    if (Old[I].Ptr && Keep(Old[I].Life)) {
      *probe(Old[I].Ptr) = Old[I];
      ++Count;
    }
}

void QueuedLives::grow() {
  rebuild(capacity() ? 2 * capacity() : 64, [](const QueuedLife &) { return true; });
}

void QueuedLives::forgetReleased() {
  if (!Count)
    return;
  // The live ones, at most half full again: the sweep runs when the released
  // are most of the table, so the table's size is kept.
  rebuild(capacity(), [](const QueuedLife &Life) { return Life.Live; });
}

} // namespace rt
} // namespace streamlife
