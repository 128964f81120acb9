//===- InterceptEventsAndSync.cpp - events, waits, host synchronization ---===//
//
// Records and waits are translated once the driver accepted them; host syncs
// and queries only when they returned CUDA_SUCCESS (a query that says "not
// ready" teaches the host nothing; a successful one is how a caching allocator
// learns that a block is free).
//
//===----------------------------------------------------------------------===//
#include "intercept/CuptiCalls.h"
#include "intercept/DriverCallContext.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

namespace {
Handle eventHandle(CUevent E) { return reinterpret_cast<Handle>(E); }

/// cuEventRecord*, every variant (WithFlags starts alike).
void eventRecord(const CallContext &C) {
  if (!C.exitedOk())
    return;
  const InterceptContext &I = C.Intercept;
  const auto &P = C.params<cuEventRecord_params>();
  if (!I.capturing(P.hStream))
    I.eventRecorded(eventHandle(P.hEvent), I.stream(P.hStream));
}

/// cuStreamWaitEvent, both variants.
void streamWaitEvent(const CallContext &C) {
  if (!C.exitedOk())
    return;
  const InterceptContext &I = C.Intercept;
  const auto &P = C.params<cuStreamWaitEvent_params>();
  if (!I.capturing(P.hStream))
    I.streamWaitsEvent(I.stream(P.hStream), eventHandle(P.hEvent));
}
} // namespace

CallDecoder eventsAndSyncDecoder(CUpti_CallbackId Cbid) {
  switch (rowDecoder(Cbid)) {
  case RowDecoder::EventRecord:
    return eventRecord;
  case RowDecoder::StreamWaitEvent:
    return streamWaitEvent;
  default:
    return interceptEventsAndSync;
  }
}

void interceptEventsAndSync(const CallContext &C) {
  const InterceptContext &I = C.Intercept;
  switch (C.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
    eventRecord(C);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
    streamWaitEvent(C);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
  case CUPTI_DRIVER_TRACE_CBID_cuEventQuery:
    if (C.exitedOk()) // both take just the event
      I.hostSyncsEvent(eventHandle(C.params<cuEventQuery_params>().hEvent));
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz:
    if (C.exitedOk()) // all four take just the stream
      I.hostSyncsStream(I.stream(C.params<cuStreamQuery_params>().hStream));
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
  case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
    if (C.exitedOk())
      I.hostSyncsDevice();
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy:
  case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
    if (C.entering())
      I.eventDestroyed(eventHandle(C.params<cuEventDestroy_v2_params>().hEvent));
    return;
  default:
    return;
  }
}

} // namespace rt
} // namespace streamlife
