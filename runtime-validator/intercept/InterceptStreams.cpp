//===- InterceptStreams.cpp - stream creation, destruction, capture -------===//
#include "intercept/DriverCallContext.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

void interceptStreams(const CallContext &C) {
  const InterceptContext &I = C.Intercept;
  switch (C.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
    if (C.exitedOk()) {
      const auto &P = C.params<cuStreamCreate_params>();
      I.streamCreated(*P.phStream, P.Flags, 0);
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority:
    if (C.exitedOk()) {
      const auto &P = C.params<cuStreamCreateWithPriority_params>();
      I.streamCreated(*P.phStream, P.flags, P.priority);
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
    if (C.entering())
      I.streamDestroyed(C.params<cuStreamDestroy_v2_params>().hStream);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
    if (C.exitedOk()) {
      I.captureBegan();
      I.notAnalysed(NotAnalysed::StreamCapture);
    }
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
    // A capture ends (successfully or invalidated) with this call either way.
    if (!C.entering())
      I.captureEnded();
    return;
  default:
    return;
  }
}

/// cuStreamWaitValue*/cuStreamWriteValue*/cuStreamBatchMemOp: waits and writes
/// on 32/64-bit flags in memory. Their ordering effect depends on values only
/// the GPU sees, so they are noted, never passed silently.
void interceptStreamMemOps(const CallContext &C) {
  if (C.entering())
    C.Intercept.notAnalysed(NotAnalysed::StreamMemoryOperations);
}

} // namespace rt
} // namespace streamlife
