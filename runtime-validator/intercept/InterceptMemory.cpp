//===- InterceptMemory.cpp - allocations and frees ------------------------===//
//
// Allocations are recorded when the driver returned the pointer; frees before
// the driver acts on them, because once the memory is back in the driver's
// hands another thread's allocation may get it before our exit callback runs.
// A synchronous free (cuMemFree, cudaFree) synchronizes the device first.
// Pinned host memory (cuMemAllocHost, cuMemHostAlloc) is not tracked: the rules
// are about device memory that an allocator hands to the next user.
// The first device allocation (or address reservation) of a process is also
// where PyTorch's caching allocator can first be fed (TorchFeed.cpp).
// A stream-ordered allocation made while its stream captures is a graph
// allocation node: the memory belongs to the graph and comes into being at
// each replay, not at the capture point on the capturing stream. Recording it
// there made every later eager use look unordered after its "allocation"
// (a false use-before-alloc on CUDA-graph replay); it is not tracked,
// like the captured work and the captured frees.
//
//===----------------------------------------------------------------------===//
#include "intercept/DriverCallContext.h"
#include "intercept/TorchFeed.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

void interceptMemory(const CallContext &C) {
  const InterceptContext &I = C.Intercept;
  switch (C.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
    if (C.entering())
      maybeAttachTorchFeed(I); // PyTorch's first segment: its allocator exists now
    if (C.exitedOk()) {
      const auto &P = C.params<cuMemAlloc_v2_params>();
      I.allocated(Range{*P.dptr, P.bytesize}, AllocKind::Device, NoStream, C.apiOp());
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
    if (C.exitedOk()) {
      const auto &P = C.params<cuMemAllocPitch_v2_params>();
      I.allocated(Range{*P.dptr, *P.pPitch * P.Height}, AllocKind::Device, NoStream, C.apiOp());
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
    if (C.exitedOk()) {
      const auto &P = C.params<cuMemAllocManaged_params>();
      I.allocated(Range{*P.dptr, P.bytesize}, AllocKind::Managed, NoStream, C.apiOp());
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
    if (C.entering()) {
      CUdeviceptr Ptr = C.params<cuMemFree_v2_params>().dptr;
      if (Ptr && I.isTracked(Ptr)) {
        I.hostSyncsDevice();
        I.released(Ptr, ReleaseKind::SyncFree, NoStream, C.apiOp());
      }
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
    if (C.exitedOk() && !I.capturing(C.params<cuMemAllocAsync_params>().hStream)) {
      const auto &P = C.params<cuMemAllocAsync_params>();
      // From the current pool of the stream's device (the driver's contract):
      // named from the stream when the allocation is replayed, with no driver
      // call on the program's thread.
      I.allocatedAsync(*P.dptr, P.bytesize, I.stream(P.hStream), C.apiOp(), InterceptContext::StreamsDevice);
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
    if (C.exitedOk() && !I.capturing(C.params<cuMemAllocFromPoolAsync_params>().hStream)) {
      const auto &P = C.params<cuMemAllocFromPoolAsync_params>();
      // The pool may be another device's than the stream's: the current
      // device stands for it, as for every call that names no stream.
      I.allocatedAsync(*P.dptr, P.bytesize, I.stream(P.hStream), C.apiOp(), I.device());
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
    if (C.entering()) {
      const auto &P = C.params<cuMemFreeAsync_params>();
      if (P.dptr && !I.capturing(P.hStream))
        I.freedAsync(P.dptr, I.stream(P.hStream), C.apiOp());
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve:
  case CUPTI_DRIVER_TRACE_CBID_cuMemCreate:
    // PyTorch's expandable segments reserve and map instead of cuMemAlloc.
    if (C.entering())
      maybeAttachTorchFeed(I);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
    // The blocks of a fed allocator (PyTorch's expandable segments) are
    // tracked through the feed; other mappings are not.
    if (C.exitedOk() && !torchFeedAttached())
      I.notAnalysed(NotAnalysed::VirtualMemory);
    return;
  default:
    return;
  }
}

} // namespace rt
} // namespace streamlife
