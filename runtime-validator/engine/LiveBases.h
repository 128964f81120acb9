//===- LiveBases.h - the live allocations by base address -------*- C++ -*-===//
//
// released() names only a base, so the engine keeps its live allocations by
// base (most bases have one; a caching allocator's block may start where its
// cudaMalloc'd segment does). Every allocation looks its base up (to add
// itself) and every release (to take itself out). A std::unordered_map there
// cost each of them the bucket's modulo and a walk of its nodes, about 45
// instructions of a block's lifetime, and touched a bucket line and a node
// line at random in the heap, with FSDP2's thousands of blocks. Here a base
// is a 32-byte slot of an AddressTable (AddressTable.h), as the annotation
// queue's QueuedLives: a lookup reads one line, usually. A base's list is kept when it empties, so that a caching
// allocator's block handed out again allocates nothing; dropEmpty rebuilds
// the table without the empty ones (the sweep's interval), which is also the
// only way a base leaves it.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_LIVEBASES_H
#define STREAMLIFE_RT_ENGINE_LIVEBASES_H

#include "engine/AddressTable.h"
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
  /// An empty slot's key: no allocation starts there (allocate() refuses a
  /// range that wraps, and one starting at the last address does).
  static constexpr Addr NoBase = ~Addr(0);

  /// The live allocations at Base, an empty list made if Base has none.
  /// Base is never NoBase (an allocation's range would wrap).
  Lives &findOrMake(Addr Base) {
    STREAMLIFE_DCHECK(Base != NoBase);
    return Table.findOrMake(Base);
  }
  /// The live allocations at Base, or null when Base has no list.
  Lives *find(Addr Base) { return Table.find(Base); }
  /// Bases with a list (empty ones included until dropEmpty).
  std::size_t size() const { return Table.size(); }
  /// Drops the bases whose list is empty.
  void dropEmpty();

private:
  using Bases = AddressTable<Lives, NoBase>;
  static_assert(sizeof(Bases::Slot) == 32, "two bases a cache line");
  Bases Table;
};

} // namespace rt
} // namespace streamlife

#endif
