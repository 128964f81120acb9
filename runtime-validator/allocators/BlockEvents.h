//===- BlockEvents.h - what a stream-aware allocator tells us ---*- C++ -*-===//
//
// The allocator side of the validator. A stream-aware allocator hands out
// blocks for use on one stream (the allocation stream) and takes them back
// later; that is all the engine needs to know about it, because everything
// else (the allocator's own event records, waits and queries) is ordinary CUDA
// API traffic that intercept/ already sees.
//
// Two kinds of allocators plug in here:
//   * the driver's stream-ordered pools (cuMemAllocAsync, cuMemAllocFromPoolAsync,
//     cuMemFreeAsync): StreamOrderedPool.h;
//   * allocators that describe their own blocks through the public annotation
//     interface (AnnotatedAllocators.h), PyTorch's caching allocator first: its
//     trace tracker's ALLOC and FREE_COMPLETED map to blockAllocated and
//     blockReleased. record_stream needs no call here: the allocator's own
//     event record and query are intercepted CUDA calls.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ALLOCATORS_BLOCKEVENTS_H
#define STREAMLIFE_RT_ALLOCATORS_BLOCKEVENTS_H

#include "engine/Engine.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

namespace streamlife {
namespace rt {

class BlockEvents {
public:
  virtual ~BlockEvents();
  /// Bytes were handed out for use on Stream, the block's allocation stream.
  virtual void blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site, int Device) = 0;
  /// The block starting at Base went back to the allocator; for a stream-ordered
  /// release the release is enqueued on Stream (the allocation stream for a
  /// caching allocator's block).
  virtual void blockReleased(ThreadId T, Addr Base, StreamId Stream, OpId Site) = 0;
  /// record_stream: Consumer also uses the block. The allocator will reuse the
  /// block only after an event it records on Consumer completed; that record and
  /// the query are intercepted CUDA calls, so the ordering reaches the engine
  /// through them. Kept per block so that reports can say a block was recorded.
  virtual void blockUsedOnStream(ThreadId T, Addr Base, StreamId Consumer) = 0;
};

/// Sees the blocks of annotated allocators as their events are applied, with
/// streams resolved: allocated, release requested (the owner let go, a
/// tensor's del), released (back in the allocator, at once or once the events
/// of a record_stream completed), and accesses the allocator declared. The
/// timeline draws them (intercept/ installs one when asked to); it decides
/// nothing, so it is told after the engine.
class BlockObserver {
public:
  virtual ~BlockObserver();
  virtual void blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site) = 0;
  virtual void blockReleaseRequested(ThreadId T, Addr Base, StreamId Stream, OpId Site) = 0;
  virtual void blockReleased(ThreadId T, Addr Base, OpId Site) = 0;
  virtual void blockAccessed(ThreadId T, StreamId Stream, Range Bytes, OpId Site) = 0;
};

/// Forwards block events to the engine with the lifetime kinds of one allocator.
/// Final, with the forwarding inline: replay (AnnotatedAllocators::apply)
/// calls it per allocation and release, and the virtual call's frame and
/// the out-of-line check for recorded streams cost about 17 instructions a
/// block event there.
class EngineBlockEvents final : public BlockEvents {
public:
  /// Pool names the allocator of CachingAllocator blocks (engine: a block
  /// goes only to the same pool's next allocation on its stream).
  EngineBlockEvents(Engine &E, AllocKind Alloc, ReleaseKind Release, PoolId Pool = 0)
      : E(E), Alloc(Alloc), Release(Release), Pool(Pool) {}

  void blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site, int Device) override {
    forgetRecorded(Bytes.Begin);
    E.allocated(T, Bytes, Alloc, Stream, Site, Device, Pool);
  }
  void blockReleased(ThreadId T, Addr Base, StreamId Stream, OpId Site) override {
    E.released(T, Base, Release, Stream, Site);
    forgetRecorded(Base);
  }
  void blockUsedOnStream(ThreadId T, Addr Base, StreamId Consumer) override;

  ReleaseKind releaseKind() const { return Release; }
  /// Streams recorded on the live block at Base (empty if none or unknown).
  std::vector<StreamId> recordedStreams(Addr Base) const;

private:
  void forgetRecorded(Addr Base) {
    // Every allocation and release passes here; most allocators never record.
    if (AnyRecorded.load(std::memory_order_acquire))
      forgetRecordedLocked(Base);
  }
  void forgetRecordedLocked(Addr Base);

  Engine &E;
  AllocKind Alloc;
  ReleaseKind Release;
  PoolId Pool;
  mutable std::mutex Lock; ///< guards Recorded; never held across an engine call
  std::map<Addr, std::vector<StreamId>> Recorded;
  /// Some block was recorded once (then Recorded must be kept up to date).
  std::atomic<bool> AnyRecorded{false};
};

} // namespace rt
} // namespace streamlife

#endif
