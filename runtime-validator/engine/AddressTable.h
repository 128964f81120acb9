//===- AddressTable.h - a value per block address, one cache line a lookup -*- C++ -*-===//
//
// The validator keeps per-address state that every block event asks for
// (the engine's live allocations by base, LiveBases.h; the annotation queue's
// lives, allocators/QueuedLives.h), with FSDP2's thousands of blocks. A
// std::unordered_map there touched a bucket line and a node line at random in
// the heap per lookup, and malloc'd a node for each new address. Here a key
// and its value are one slot of one open-addressed array (linear probing, at
// most half full): a lookup reads one line, usually, and a new address
// allocates nothing until the table grows. No slot is erased alone (so a
// free slot still holds a default Value): rebuild() copies the table
// without the entries its caller no longer needs, the only way a key leaves.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_ADDRESSTABLE_H
#define STREAMLIFE_RT_ENGINE_ADDRESSTABLE_H

#include "engine/Engine.h"

#include <cstddef>
#include <memory>
#include <utility>

namespace streamlife {
namespace rt {

/// Value by address; EmptyKey is an address no caller ever asks for.
template <typename Value, Addr EmptyKey> class AddressTable {
public:
  struct Slot {
    Addr Key = EmptyKey;
    Value Here; ///< a default Value in a free slot
  };

  /// Key's value, a default one made if Key has none (Key != EmptyKey).
  Value &findOrMake(Addr Key) {
    if (2 * (Count + 1) > capacity())
      rebuild(capacity() ? 2 * capacity() : 64, [](const Value &) { return true; });
    Slot *S = probe(Key);
    if (S->Key != Key) {
      S->Key = Key;
      ++Count;
    }
    return S->Here;
  }
  /// Key's value, or null when Key has none.
  Value *find(Addr Key) {
    if (!Count || Key == EmptyKey)
      return nullptr;
    Slot *S = probe(Key);
    return S->Key == Key ? &S->Here : nullptr;
  }
  /// Keys in the table.
  std::size_t size() const { return Count; }
  std::size_t capacity() const { return Mask + 1; }
  /// How many values Keep keeps, without changing anything.
  template <typename KeepFn> std::size_t countKept(KeepFn Keep) const {
    std::size_t Kept = 0;
    for (std::size_t I = 0; I < capacity(); ++I)
      Kept += Slots[I].Key != EmptyKey && Keep(Slots[I].Here);
    return Kept;
  }
  /// Rebuilds with NewCapacity slots (a power of two, more than twice the
  /// entries kept), moving the values Keep keeps.
  template <typename KeepFn> void rebuild(std::size_t NewCapacity, KeepFn Keep) {
    std::unique_ptr<Slot[]> Old = std::move(Slots);
    const std::size_t OldCapacity = capacity();
    Slots.reset(new Slot[NewCapacity]);
    Mask = NewCapacity - 1;
    Count = 0;
    for (std::size_t I = 0; I < OldCapacity; ++I)
      if (Old[I].Key != EmptyKey && Keep(Old[I].Here)) {
        Slot *S = probe(Old[I].Key);
        S->Key = Old[I].Key;
        S->Here = std::move(Old[I].Here);
        ++Count;
      }
  }

private:
  /// Key's slot, or the free slot where it would go (the table has one).
  Slot *probe(Addr Key) {
    // Blocks are aligned (512 bytes in PyTorch's caching allocator): the
    // multiply spreads the high bits down.
    std::size_t I = static_cast<std::size_t>((Key * 0x9E3779B97F4A7C15ull) >> 32) & Mask;
    while (Slots[I].Key != Key && Slots[I].Key != EmptyKey)
      I = (I + 1) & Mask;
    return &Slots[I];
  }

  std::unique_ptr<Slot[]> Slots;
  std::size_t Mask = ~std::size_t(0); ///< capacity - 1; no table yet: capacity 0
  std::size_t Count = 0;
};

} // namespace rt
} // namespace streamlife

#endif
