//===- CuptiCalls.cpp - CuptiCalls.inc as data ----------------------------===//
#include "intercept/CuptiCalls.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

namespace {
constexpr bool Legacy = false;
constexpr bool PerThread = true;
constexpr unsigned Enter = CuptiCall::AtEnter, Exit = CuptiCall::AtExit, Both = Enter | Exit;
/// A copy's Sync column: a synchronous one is also a host sync at its exit.
constexpr unsigned Async = Enter, Sync = Both, SyncIfHostMemory = Both;
constexpr CallCarrier Cupti = CallCarrier::Cupti, EntryPoint = CallCarrier::EntryPointWhereSupported;
} // namespace

const std::vector<CuptiCall> &cuptiCalls() {
  static const std::vector<CuptiCall> Calls = {
#define STREAMLIFE_ROW(Cbid, Text, Family, Null, Sites, Carrier)                                     \
  CuptiCall{Cbid, Text, CuptiFamily::Family, Null, Sites, Carrier},
#define STREAMLIFE_CUPTI_CALL(Name, Family, Null, Site)                                            \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, Family, Null, Site, Cupti)
#define STREAMLIFE_ENTRY_POINT_CALL(Name, Family, Null, Site)                                      \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, Family, Null, Site, EntryPoint)
#define STREAMLIFE_CUPTI_COPY(Name, Null, Dst, Src, Bytes, Stream, SyncKind)                         \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, SyncKind, Cupti)
#define STREAMLIFE_CUPTI_SET(Name, Null, Dst, Count, ElementSize, Stream)                            \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, Enter, Cupti)
#define STREAMLIFE_CUPTI_SET2D(Name, Null, ElementSize, Stream)                                      \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, Enter, Cupti)
#define STREAMLIFE_CUPTI_COPY2D(Name, Null, Stream, SyncKind)                                        \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, SyncKind, Cupti)
#define STREAMLIFE_CUPTI_COPY3D(Name, Null, Stream, SyncKind)                                        \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, SyncKind, Cupti)
#define STREAMLIFE_CUPTI_COPY_BATCH(Name, Null)                                                      \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, Enter, Cupti)
#define STREAMLIFE_CUPTI_COPY_NOT_ANALYSED(Name, Null, Kind)                                         \
  STREAMLIFE_ROW(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, CopiesAndSets, Null, Enter, Cupti)
#include "intercept/CuptiCalls.inc"
#undef STREAMLIFE_ROW
  };
  return Calls;
}

RowDecoder rowDecoder(CUpti_CallbackId Cbid) {
  switch (Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    return RowDecoder::LaunchKernel;
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags: // starts as cuEventRecord's
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
    return RowDecoder::EventRecord;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
    return RowDecoder::StreamWaitEvent;
  default:
    return RowDecoder::Family;
  }
}

} // namespace rt
} // namespace streamlife
