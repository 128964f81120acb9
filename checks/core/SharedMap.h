//===--- SharedMap.h - streamlife -------------------------------*- C++ -*-===//
//
// A sorted map whose values are shared between copies of the map and copied
// only when written (copy-on-write). The lifetime analysis copies a whole
// state into every block it visits and joins it with the others at every
// merge point, while a block changes few of a function's objects: with a
// std::map of values, copying, joining, comparing and destroying the objects
// nobody touched was most of the analysis of a large function (flashinfer's
// generated CuTe DSL kernels: hundreds of objects, thousands of block
// visits). Here a copy copies pointers, a join or a comparison of two maps
// skips the values they share, and a write copies one value.
//
// The sharing is not thread-safe (plain reference counts): the maps of one
// analysis stay on the thread that runs it.
//
// Readers use the std::map-like const interface (find, count, iteration
// with ->first / ->second); writers ask for a mutable value explicitly
// (operator[], findMutable, mutableAt), which copies it first when another
// map shares it. A reference from a writer stays valid until the map's
// keys change (insert, erase, a join) or the map is copied.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_SHAREDMAP_H
#define STREAMLIFE_CHECKS_CORE_SHAREDMAP_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace streamlife {
namespace core {

template <typename K, typename V> class SharedMap {
  struct Node : llvm::RefCountedBase<Node> {
    V Value;
    explicit Node(V Value) : Value(std::move(Value)) {}
  };
  struct Entry {
    K Key;
    llvm::IntrusiveRefCntPtr<Node> Ptr;
  };
  using Storage = std::vector<Entry>;
  /// Sorted by key, keys unique.
  Storage Entries;

  static llvm::IntrusiveRefCntPtr<Node> make(V Value) {
    return llvm::makeIntrusiveRefCnt<Node>(std::move(Value));
  }
  /// The value of \p E, copied first if another map (or key) shares it.
  static V &own(Entry &E) {
    if (E.Ptr->UseCount() > 1)
      E.Ptr = make(E.Ptr->Value);
    return E.Ptr->Value;
  }
  typename Storage::const_iterator lowerBound(const K &Key) const {
    return std::lower_bound(
        Entries.begin(), Entries.end(), Key,
        [](const Entry &E, const K &Key) { return E.Key < Key; });
  }
  typename Storage::iterator lowerBound(const K &Key) {
    return std::lower_bound(
        Entries.begin(), Entries.end(), Key,
        [](const Entry &E, const K &Key) { return E.Key < Key; });
  }

public:
  /// What iteration yields: the key and a read-only value.
  struct Item {
    const K &first;
    const V &second;
  };

  class const_iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Item;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Item;

    const_iterator() = default;
    Item operator*() const { return Item{It->Key, It->Ptr->Value}; }
    struct Arrow {
      Item I;
      const Item *operator->() const { return &I; }
    };
    Arrow operator->() const { return Arrow{**this}; }
    const_iterator &operator++() {
      ++It;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator Old = *this;
      ++It;
      return Old;
    }
    friend bool operator==(const const_iterator &A, const const_iterator &B) {
      return A.It == B.It;
    }
    friend bool operator!=(const const_iterator &A, const const_iterator &B) {
      return A.It != B.It;
    }

  private:
    friend class SharedMap;
    explicit const_iterator(typename Storage::const_iterator It) : It(It) {}
    typename Storage::const_iterator It;
  };
  using iterator = const_iterator;

  const_iterator begin() const { return const_iterator(Entries.begin()); }
  const_iterator end() const { return const_iterator(Entries.end()); }
  size_t size() const { return Entries.size(); }
  bool empty() const { return Entries.empty(); }

  const_iterator find(const K &Key) const {
    auto It = lowerBound(Key);
    return It != Entries.end() && It->Key == Key ? const_iterator(It) : end();
  }
  size_t count(const K &Key) const { return find(Key) != end(); }

  /// The value of \p Key for writing, default-made when absent.
  V &operator[](const K &Key) {
    auto It = lowerBound(Key);
    if (It == Entries.end() || It->Key != Key)
      It = Entries.insert(It, Entry{Key, make(V())});
    return own(*It);
  }
  /// The value of \p Key for writing; null when absent.
  V *findMutable(const K &Key) {
    auto It = lowerBound(Key);
    return It != Entries.end() && It->Key == Key ? &own(*It) : nullptr;
  }
  /// The value at \p It (an iterator of this map) for writing. Iterators
  /// stay valid: only the value is replaced.
  V &mutableAt(const_iterator It) {
    return own(Entries[It.It - Entries.cbegin()]);
  }
  /// Adds \p Value under \p Key unless the key is there; true when added.
  bool insert(const K &Key, V Value) {
    auto It = lowerBound(Key);
    if (It != Entries.end() && It->Key == Key)
      return false;
    Entries.insert(It, Entry{Key, make(std::move(Value))});
    return true;
  }
  /// Adds (or replaces) the value of \p Key with the one \p From holds at
  /// \p At, shared rather than copied.
  void assignShared(const K &Key, const SharedMap &From, const_iterator At) {
    llvm::IntrusiveRefCntPtr<Node> Ptr = At.It->Ptr;
    auto It = lowerBound(Key);
    if (It != Entries.end() && It->Key == Key)
      It->Ptr = std::move(Ptr);
    else
      Entries.insert(It, Entry{Key, std::move(Ptr)});
  }
  /// Sets the value of \p Key, adding the key when absent.
  void assign(const K &Key, V Value) {
    auto It = lowerBound(Key);
    if (It != Entries.end() && It->Key == Key)
      It->Ptr = make(std::move(Value));
    else
      Entries.insert(It, Entry{Key, make(std::move(Value))});
  }
  const_iterator erase(const_iterator At) {
    auto It = Entries.erase(Entries.begin() + (At.It - Entries.cbegin()));
    return const_iterator(It);
  }
  size_t erase(const K &Key) {
    auto It = find(Key);
    if (It == end())
      return 0;
    erase(It);
    return 1;
  }
  /// Whether both iterators (of any maps) hold the very same value: equal
  /// without looking.
  static bool shared(const_iterator A, const_iterator B) {
    return A.It->Ptr == B.It->Ptr;
  }

  /// Joins \p Other into this map: its keys missing here are added (sharing
  /// its values), and \p Join(Mine, Theirs) is called for the keys of both
  /// whose values are not shared, on a value of this map made writable.
  /// \p Join must leave a value joined with an equal one unchanged (a
  /// lattice join does), since equal values are skipped.
  template <typename JoinFn> void joinWith(const SharedMap &Other, JoinFn Join) {
    if (Other.Entries.empty() || this == &Other)
      return;
    if (Entries.empty()) {
      Entries = Other.Entries;
      return;
    }
    Storage Merged;
    Merged.reserve(std::max(Entries.size(), Other.Entries.size()));
    auto Mine = Entries.begin(), MineEnd = Entries.end();
    auto Theirs = Other.Entries.begin(), TheirsEnd = Other.Entries.end();
    while (Mine != MineEnd || Theirs != TheirsEnd) {
      if (Theirs == TheirsEnd || (Mine != MineEnd && Mine->Key < Theirs->Key)) {
        Merged.push_back(std::move(*Mine++));
        continue;
      }
      if (Mine == MineEnd || Theirs->Key < Mine->Key) {
        Merged.push_back(*Theirs++);
        continue;
      }
      // Equal values (shared, or equal after different paths) are skipped
      // without copying: comparing is much cheaper than a copy.
      if (Mine->Ptr != Theirs->Ptr && !(Mine->Ptr->Value == Theirs->Ptr->Value))
        Join(own(*Mine), static_cast<const V &>(Theirs->Ptr->Value));
      Merged.push_back(std::move(*Mine++));
      ++Theirs;
    }
    Entries = std::move(Merged);
  }

  friend bool operator==(const SharedMap &A, const SharedMap &B) {
    if (A.Entries.size() != B.Entries.size())
      return false;
    for (size_t I = 0; I < A.Entries.size(); ++I) {
      const Entry &X = A.Entries[I], &Y = B.Entries[I];
      if (X.Key != Y.Key)
        return false;
      if (X.Ptr != Y.Ptr && !(X.Ptr->Value == Y.Ptr->Value))
        return false;
    }
    return true;
  }
  friend bool operator!=(const SharedMap &A, const SharedMap &B) {
    return !(A == B);
  }
};

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_SHAREDMAP_H
