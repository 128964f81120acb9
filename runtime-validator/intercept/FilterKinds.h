//===- FilterKinds.h - what a thread's RedundantSyncFilter learns of a queued event -*- C++ -*-===//
//
// Every event a thread queues (InterceptThreads.cpp's lock events, the
// annotation entry points' block events) is told to its filter
// (RedundantSyncFilter.h, ThreadFilter::queued) as the kind the filter tells
// apart. filterKind maps any kind; queuedBlockEventOfEntryPoint tells the
// filter of the entry points' block events with their two common kinds by
// name, so that queued() folds to its case: the mapping's table and queued()'s
// jump table lie in .rodata, two cache lines that the program's own work
// between its calls evicts (bench/runtime/README.md, rtcapture3).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_FILTERKINDS_H
#define STREAMLIFE_RT_INTERCEPT_FILTERKINDS_H

#include "allocators/AnnotatedAllocators.h"
#include "intercept/RedundantSyncFilter.h"

namespace streamlife {
namespace rt {

/// What the thread's RedundantSyncFilter must know of an event it queued.
inline redundant_sync::Queued filterKind(BlockEvent::Kind What) {
  using redundant_sync::Queued;
  switch (What) {
  case BlockEvent::Kind::Allocated:
    return Queued::Allocation;
  case BlockEvent::Kind::ReleaseRequested:
    return Queued::ReleaseRequest;
  case BlockEvent::Kind::Released:
    return Queued::BlockRelease;
  case BlockEvent::Kind::PoolAllocated:
    return Queued::Allocation;
  case BlockEvent::Kind::PoolFreed:
    return Queued::BlockRelease;
  case BlockEvent::Kind::Accessed:
  case BlockEvent::Kind::Launched:
  case BlockEvent::Kind::Touched:
  case BlockEvent::Kind::EventRecorded:
  case BlockEvent::Kind::StreamWaited:
  case BlockEvent::Kind::EventDestroyed: // changes no clock: counted as an access, which only keeps more
    return Queued::Access;
  case BlockEvent::Kind::HostReleased:
    return Queued::Release;
  case BlockEvent::Kind::HostAcquired:
    return Queued::Acquire;
  case BlockEvent::Kind::SyncDestroyed:
    return Queued::Destruction;
  case BlockEvent::Kind::HostFinished:
    return Queued::ThreadEnd;
  }
  return Queued::Acquire; // counts as a change
}

/// Filter.queued(filterKind(What)), with an allocation's and a release
/// request's case chosen without a table (the entry points' common kinds).
inline void queuedBlockEventOfEntryPoint(redundant_sync::ThreadFilter &Filter, BlockEvent::Kind What) {
  if (What == BlockEvent::Kind::Allocated)
    Filter.queued(redundant_sync::Queued::Allocation);
  else if (What == BlockEvent::Kind::ReleaseRequested)
    Filter.queued(redundant_sync::Queued::ReleaseRequest);
  else
    Filter.queued(filterKind(What));
}

} // namespace rt
} // namespace streamlife

#endif
