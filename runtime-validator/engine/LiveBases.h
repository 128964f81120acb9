//===- LiveBases.h - the live allocations by base address -------*- C++ -*-===//
//
// released() names only a base, so the engine keeps its live allocations by
// base (most bases have one; a caching allocator's block may start where its
// cudaMalloc'd segment does). Every allocation looks its base up (to add
// itself) and every release (to take itself out). A std::unordered_map there
// cost each of them the bucket's modulo and a walk of its nodes, about 45
// instructions of a block's lifetime, and touched a bucket line and a node
// line at random in the heap, with FSDP2's thousands of blocks. Here a base
// is a 32-byte slot of one open-addressed array (linear probing, at most
// half full), as the annotation queue's QueuedLives: a lookup reads one line,
// usually. A base's list is kept when it empties, so that a caching
// allocator's block handed out again allocates nothing; dropEmpty rebuilds
// the table without the empty ones (the sweep's interval), which is also the
// only way a base leaves it.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_LIVEBASES_H
#define STREAMLIFE_RT_ENGINE_LIVEBASES_H

#include "engine/Check.h"
#include "engine/Engine.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace streamlife {
namespace rt {

struct Allocation;

class LiveBases {
public:
  using Lives = std::vector<std::shared_ptr<Allocation>>;

  /// The live allocations at Base, an empty list made if Base has none.
  /// Base is never NoBase (an allocation's range would wrap).
  Lives &findOrMake(Addr Base) {
    STREAMLIFE_DCHECK(Base != NoBase);
    if (2 * (Count + 1) > capacity())
      grow();
    Slot *S = probe(Base);
    if (S->Base != Base) {
      S->Base = Base;
      ++Count;
    }
    return S->Here;
  }
  /// The live allocations at Base, or null when Base has no list.
  Lives *find(Addr Base) {
    if (!Count || Base == NoBase)
      return nullptr;
    Slot *S = probe(Base);
    return S->Base == Base ? &S->Here : nullptr;
  }
  /// Bases with a list (empty ones included until dropEmpty).
  std::size_t size() const { return Count; }
  /// Drops the bases whose list is empty.
  void dropEmpty();

  /// An empty slot's key: no allocation starts there (allocate() refuses a
  /// range that wraps, and one starting at the last address does).
  static constexpr Addr NoBase = ~Addr(0);

private:
  struct Slot {
    Addr Base = NoBase;
    Lives Here; ///< empty in an empty slot
  };
  static_assert(sizeof(Slot) == 32, "two bases a cache line");

  std::size_t capacity() const { return Mask + 1; }
  /// Base's slot, or the empty slot where it would go (the table has one).
  Slot *probe(Addr Base) {
    // Blocks are aligned (512 bytes in PyTorch's caching allocator): the
    // multiply spreads the high bits down.
    std::size_t I = static_cast<std::size_t>((Base * 0x9E3779B97F4A7C15ull) >> 32) & Mask;
    while (Slots[I].Base != Base && Slots[I].Base != NoBase)
      I = (I + 1) & Mask;
    return &Slots[I];
  }
  /// Rebuilds with NewCapacity slots (a power of two), keeping the bases
  /// whose list is not empty, or every base with KeepEmpty.
  void rebuild(std::size_t NewCapacity, bool KeepEmpty);
  void grow();

  std::unique_ptr<Slot[]> Slots;
  std::size_t Mask = ~std::size_t(0); ///< capacity - 1; no table yet: capacity 0
  std::size_t Count = 0;
};

} // namespace rt
} // namespace streamlife

#endif
