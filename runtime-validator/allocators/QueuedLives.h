//===- QueuedLives.h - the block queue's lives, one cache line each -*- C++ -*-===//
//
// What replay will know of each block once it applies the events queued so
// far (AnnotatedAllocators.h: pushReleaseNamedByRequest's decision), asked
// under the queue's lock by every queued block event. A std::unordered_map
// there touched three lines a lookup (the bucket array, the node before the
// bucket's first, the node) at random in the heap, and malloc'd a node under
// the lock for each address not seen yet: with FSDP2's thousands of blocks
// the lookups miss the caches. Here an entry is 16 bytes in one open-
// addressed array (linear probing, at most half full): a lookup reads one
// line, usually, and a new address allocates nothing until the table grows.
// No entry is erased alone: forgetReleased rebuilds the table without the
// released ones, which AnnotatedAllocators does once they are most of it.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ALLOCATORS_QUEUEDLIVES_H
#define STREAMLIFE_RT_ALLOCATORS_QUEUEDLIVES_H

#include "engine/Engine.h"

#include <cstdint>
#include <memory>

namespace streamlife {
namespace rt {

/// One block as the queue leaves it.
struct QueuedLife {
  bool Live = false;
  bool ReleaseRequested = false;
  OpId RequestSite = NoOp;
};

class QueuedLives {
public:
  /// The life of the block at Ptr (Ptr != 0), made (not live) if new.
  QueuedLife &findOrMake(Addr Ptr) {
    if (2 * (Count + 1) > capacity())
      grow();
    Slot *S = probe(Ptr);
    if (S->Ptr != Ptr) {
      S->Ptr = Ptr;
      S->Life = QueuedLife{};
      ++Count;
    }
    return S->Life;
  }
  /// The life of the block at Ptr, or null when it has none.
  QueuedLife *find(Addr Ptr) {
    if (!Ptr || !Count)
      return nullptr;
    Slot *S = probe(Ptr);
    return S->Ptr == Ptr ? &S->Life : nullptr;
  }
  std::size_t size() const { return Count; }
  /// Forgets every block not live, in one pass.
  void forgetReleased();

private:
  struct Slot {
    Addr Ptr = 0; ///< 0: empty (a block's address is never 0)
    QueuedLife Life;
  };
  static_assert(sizeof(Slot) == 16, "four lives a cache line");

  std::size_t capacity() const { return Mask + 1; }
  /// Ptr's slot, or the empty slot where it would go (the table has one).
  Slot *probe(Addr Ptr) {
    // Blocks are aligned (512 bytes in PyTorch's caching allocator): the
    // multiply spreads the high bits down.
    std::size_t I = static_cast<std::size_t>((Ptr * 0x9E3779B97F4A7C15ull) >> 32) & Mask;
    while (Slots[I].Ptr != Ptr && Slots[I].Ptr != 0)
      I = (I + 1) & Mask;
    return &Slots[I];
  }
  /// Rebuilds with NewCapacity slots (a power of two), keeping the lives
  /// Keep says to.
  template <typename KeepFn> void rebuild(std::size_t NewCapacity, KeepFn Keep);
  void grow();

  std::unique_ptr<Slot[]> Slots;
  std::size_t Mask = ~std::size_t(0); ///< capacity - 1; no table yet: capacity 0
  std::size_t Count = 0;
};

} // namespace rt
} // namespace streamlife

#endif
