//===- QueuedLives.cpp - growing and sweeping the queue's lives -----------===//
#include "allocators/QueuedLives.h"

namespace streamlife {
namespace rt {

void QueuedLives::forgetReleased() {
  if (!Table.size())
    return;
  // The live ones, at most half full again: the sweep runs when the released
  // are most of the table, so the table's size is kept.
  Table.rebuild(Table.capacity(), [](const QueuedLife &Life) { return Life.Live; });
}

} // namespace rt
} // namespace streamlife
