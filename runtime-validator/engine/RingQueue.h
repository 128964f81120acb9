//===- RingQueue.h - a FIFO whose slots are reused, not reallocated -*- C++ -*-===//
//
// The engine's per-(stream, thread) lists of caching allocations
// (ConcurrentAllocations.h) take one entry per allocation at the back and
// drop the oldest at the front. A std::deque there allocated a node every
// few entries and freed it at the prune (FSDP2's mix: about 50 instructions
// per caching allocation, a malloc per node). A list's length is bounded
// (the cap per thread, and the prune interval empties it), so a ring of
// slots that grows by doubling and never shrinks stops allocating once it
// has seen its longest run. Slots stay constructed: a new entry is written
// into a dropped one's slot (appendSlot), whose owned storage (an entry's
// whole clock) is reused instead of freed and allocated again.
//
// Indices count from the oldest entry, as std::deque's do.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_RINGQUEUE_H
#define STREAMLIFE_RT_ENGINE_RINGQUEUE_H

#include "engine/Check.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace streamlife {
namespace rt {

template <typename T> class RingQueue {
public:
  bool empty() const { return Count == 0; }
  std::size_t size() const { return Count; }

  T &operator[](std::size_t I) {
    STREAMLIFE_DCHECK(I < Count);
    return Slots[(Head + I) & Mask];
  }
  const T &operator[](std::size_t I) const {
    STREAMLIFE_DCHECK(I < Count);
    return Slots[(Head + I) & Mask];
  }
  T &front() { return (*this)[0]; }
  const T &front() const { return (*this)[0]; }
  T &back() { return (*this)[Count - 1]; }
  const T &back() const { return (*this)[Count - 1]; }

  /// Appends an entry and returns its slot. The slot may still hold a
  /// dropped entry's value: the caller sets every field it reads later.
  T &appendSlot() {
    if (Count == Slots.size())
      grow();
    ++Count;
    return back();
  }

  /// Drops the oldest entry; its slot keeps the value (and what it owns)
  /// until a later appendSlot hands it out again.
  void pop_front() {
    STREAMLIFE_DCHECK(Count != 0);
    Head = (Head + 1) & Mask;
    --Count;
  }

  /// The first index in [0, size()) whose entry fails Pred, entries that pass
  /// coming first (std::partition_point over the queue's order).
  template <typename Pred> std::size_t partitionPoint(Pred &&P) const {
    std::size_t Lo = 0, Hi = Count;
    while (Lo < Hi) {
      const std::size_t Mid = Lo + (Hi - Lo) / 2;
      if (P((*this)[Mid]))
        Lo = Mid + 1;
      else
        Hi = Mid;
    }
    return Lo;
  }

private:
  /// Doubles the slots (a power of two, so an index is a mask away), moving
  /// the entries to the front of the new ones in order.
  void grow() {
    std::vector<T> Bigger(Slots.empty() ? 8 : 2 * Slots.size());
    for (std::size_t I = 0; I < Count; ++I)
      Bigger[I] = std::move((*this)[I]);
    Slots.swap(Bigger);
    Head = 0;
    Mask = Slots.size() - 1;
  }

  std::vector<T> Slots;
  std::size_t Head = 0;
  std::size_t Count = 0;
  std::size_t Mask = 0;
};

} // namespace rt
} // namespace streamlife

#endif
