//===- RecentSyncObjects.h - the synchronization objects used lately -*- C++ -*-===//
//
// SyncClocks finds an object's clock by its id in a hash map. A replay of
// queued lock events looks an object up at every release and acquire, and a
// program's threads take a handful of locks in turn (FSDP2: a lock handover
// releases one lock and the next event releases another), so remembering
// only the object used last missed most releases. This direct-mapped table
// remembers the objects used lately by a hash of their id: a lookup is one
// multiply and one compare, the map's lookup (a division by its bucket count
// and a chain walk) is left to the misses. It holds pointers into the map
// (an unordered_map's elements stay put while others come and go), so the
// owner must forget() every object it erases.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_RECENTSYNCOBJECTS_H
#define STREAMLIFE_RT_ENGINE_RECENTSYNCOBJECTS_H

#include <cstdint>

namespace streamlife {
namespace rt {

template <typename Object> class RecentSyncObjects {
public:
  /// The object remembered for Id, or null.
  Object *find(std::uint64_t Id) const {
    const Entry &E = Entries[indexOf(Id)];
    return E.Id == Id ? E.Found : nullptr;
  }
  void remember(std::uint64_t Id, Object &Found) { Entries[indexOf(Id)] = Entry{Id, &Found}; }
  /// Id's object is gone.
  void forget(std::uint64_t Id) {
    Entry &E = Entries[indexOf(Id)];
    if (E.Id == Id)
      E = Entry{};
  }

private:
  static constexpr unsigned Bits = 6;
  /// Fibonacci hashing: ids are addresses, often a cache line or more apart.
  static unsigned indexOf(std::uint64_t Id) {
    return unsigned((Id * 0x9E3779B97F4A7C15ull) >> (64 - Bits));
  }
  struct Entry {
    std::uint64_t Id = 0;
    Object *Found = nullptr; ///< null: nothing remembered here
  };
  Entry Entries[1u << Bits];
};

} // namespace rt
} // namespace streamlife

#endif
