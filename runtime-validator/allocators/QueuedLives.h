//===- QueuedLives.h - the block queue's lives, one cache line each -*- C++ -*-===//
//
// What replay will know of each block once it applies the events queued so
// far (AnnotatedAllocators.h: pushReleaseNamedByRequest's decision), asked
// under the queue's lock by every queued block event. A std::unordered_map
// there touched three lines a lookup (the bucket array, the node before the
// bucket's first, the node) at random in the heap, and malloc'd a node under
// the lock for each address not seen yet: with FSDP2's thousands of blocks
// the lookups miss the caches. Here an entry is a 16-byte slot of an
// AddressTable (engine/AddressTable.h): a lookup reads one line, usually, and
// a new address allocates nothing until the table grows.
// No entry is erased alone: forgetReleased rebuilds the table without the
// released ones, which AnnotatedAllocators does once they are most of it.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ALLOCATORS_QUEUEDLIVES_H
#define STREAMLIFE_RT_ALLOCATORS_QUEUEDLIVES_H

#include "engine/AddressTable.h"
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
  QueuedLife &findOrMake(Addr Ptr) { return Table.findOrMake(Ptr); }
  /// The life of the block at Ptr, or null when it has none.
  QueuedLife *find(Addr Ptr) { return Table.find(Ptr); }
  std::size_t size() const { return Table.size(); }
  /// Forgets every block not live, in one pass.
  void forgetReleased();

private:
  /// 0: a free slot (a block's address is never 0).
  using Blocks = AddressTable<QueuedLife, 0>;
  static_assert(sizeof(Blocks::Slot) == 16, "four lives a cache line");
  Blocks Table;
};

} // namespace rt
} // namespace streamlife

#endif
