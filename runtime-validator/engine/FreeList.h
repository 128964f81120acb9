//===- FreeList.h - recycled storage for the engine's lifetime records -*- C++ -*-===//
//
// Every allocation the engine sees makes an Allocation record, shared by the
// shadow's segments, the live-by-base map and the pending hazards, so it is a
// std::shared_ptr; the record (with its control block) dies when the last
// past access of its lifetime is dropped. Each make_shared was a malloc and
// each death a free: about 130 instructions per caching allocation, a
// tenth of the engine's part of a block lifetime (block_replay_cost). A
// FreeList keeps the blocks of one size that were given back and hands them
// out again; FreeListAllocator puts std::allocate_shared on it.
//
// Not thread-safe: the engine takes and gives back only under its lock. The
// list must outlive every block taken from it (Engine::Impl declares it
// before everything that holds a record), and keeps its blocks until it
// dies: its memory is the most records alive at once.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_FREELIST_H
#define STREAMLIFE_RT_ENGINE_FREELIST_H

#include <cstddef>
#include <new>

namespace streamlife {
namespace rt {

class FreeList {
public:
  FreeList() = default;
  FreeList(const FreeList &) = delete;
  FreeList &operator=(const FreeList &) = delete;
  ~FreeList() {
    while (Head) {
      Node *Next = Head->Next;
      ::operator delete(Head);
      Head = Next;
    }
  }

  /// A block of Size bytes. The first size asked is the list's; blocks of
  /// another size are neither recycled nor kept (give() must be told Size).
  void *take(std::size_t Size) {
    if (BlockSize == 0 && Size >= sizeof(Node))
      BlockSize = Size;
    if (Size != BlockSize || !Head)
      return ::operator new(Size);
    Node *N = Head;
    Head = N->Next;
    return N;
  }
  void give(void *Block, std::size_t Size) {
    if (Size != BlockSize) {
      ::operator delete(Block);
      return;
    }
    Head = new (Block) Node{Head};
  }

private:
  struct Node {
    Node *Next;
  };
  Node *Head = nullptr;
  std::size_t BlockSize = 0;
};

/// A standard allocator over a FreeList, for std::allocate_shared (which
/// rebinds it to its control block type: one block per object).
template <typename T> class FreeListAllocator {
public:
  using value_type = T;
  explicit FreeListAllocator(FreeList &List) : List(&List) {}
  template <typename U> FreeListAllocator(const FreeListAllocator<U> &Other) : List(Other.List) {}

  T *allocate(std::size_t N) { return static_cast<T *>(List->take(N * sizeof(T))); }
  void deallocate(T *P, std::size_t N) { List->give(P, N * sizeof(T)); }

  template <typename U> bool operator==(const FreeListAllocator<U> &O) const { return List == O.List; }
  template <typename U> bool operator!=(const FreeListAllocator<U> &O) const { return List != O.List; }

private:
  template <typename U> friend class FreeListAllocator;
  FreeList *List;
};

} // namespace rt
} // namespace streamlife

#endif
