//===- StreamOrderedPool.h - the driver's stream-ordered allocator -*- C++ -*-===//
//
// cuMemAllocAsync / cuMemAllocFromPoolAsync / cuMemFreeAsync (and the runtime's
// cudaMallocAsync / cudaMallocFromPoolAsync / cudaFreeAsync on top of them) as
// block events: the allocation stream is the stream of the alloc call, the
// release is enqueued on the stream of the free call, which may differ.
//
// Pools themselves need no model: whether a pool may hand a freed block to
// another stream (cudaMemPoolReuseAllowOpportunistic and friends) only decides
// WHEN a reuse race corrupts data. The engine assumes the most permissive pool:
// an access not ordered before the free is reported at the next stream-ordered
// allocation of the device that it is not ordered before, whether or not the
// driver hands that allocation the freed block in this run
// (engine/DeferredFrees.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ALLOCATORS_STREAMORDEREDPOOL_H
#define STREAMLIFE_RT_ALLOCATORS_STREAMORDEREDPOOL_H

#include "allocators/BlockEvents.h"

namespace streamlife {
namespace rt {

class StreamOrderedPool {
public:
  explicit StreamOrderedPool(Engine &E)
      : Blocks(E, AllocKind::StreamOrdered, ReleaseKind::StreamOrdered) {}

  /// A successful cuMemAllocAsync / cuMemAllocFromPoolAsync (Pool is null for
  /// the device's current pool).
  void allocatedAsync(ThreadId T, Addr Ptr, std::uint64_t Size, StreamId Stream, OpId Site,
                      int Device) {
    if (Ptr && Size)
      Blocks.blockAllocated(T, Range{Ptr, Size}, Stream, Site, Device);
  }
  /// cuMemFreeAsync, seen before the driver acts on it.
  void freedAsync(ThreadId T, Addr Ptr, StreamId Stream, OpId Site) {
    if (Ptr)
      Blocks.blockReleased(T, Ptr, Stream, Site);
  }

  BlockEvents &events() { return Blocks; }

private:
  EngineBlockEvents Blocks;
};

} // namespace rt
} // namespace streamlife

#endif
