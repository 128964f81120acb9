//===- InterceptLaunches.cpp - kernel launches, graphs, host functions ----===//
//
// cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel (and _ptsz): one
// enqueue on the launch stream that touches every tracked allocation one of the
// argument words points into. The runtime's cudaLaunchKernel* reaches us here,
// through the driver call it makes, so each launch is counted once.
//
// Graph launches and host functions are enqueues whose contents we cannot see:
// they are noted as "not analysed" once, never passed silently.
//
//===----------------------------------------------------------------------===//
#include "intercept/Runtime.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

namespace {

void recordLaunch(const CallContext &C, CUfunction F, CUstream H, void **KernelParams, void **Extra) {
  if (C.capturing(H))
    return;
  ValidatorRuntime &R = C.R;
  StreamId S = C.stream(H);
  const KernelInfo &Info = *R.Kernels.get(reinterpret_cast<void *>(F), C.Data.symbolName, R.Ops);
  static thread_local std::vector<Addr> Words;
  Words.clear();
  if (Extra) {
    if (!wordsFromExtra(Extra, Words))
      R.Report.noteNotAnalysed(NotAnalysed::KernelParameters);
  } else if (KernelParams) {
    if (Info.LayoutKnown)
      wordsFromKernelParams(KernelParams, Info.Layout, Words);
    else
      R.Report.noteNotAnalysed(NotAnalysed::KernelParameters);
  }
  R.Eng.launchedWithPointers(C.T, S, Words.data(), Words.size(), C.op(Info.Name));
}

} // namespace

void interceptLaunches(const CallContext &C) {
  if (!C.entering())
    return;
  switch (C.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    const auto &P = C.params<cuLaunchKernel_params>();
    recordLaunch(C, P.f, P.hStream, P.kernelParams, P.extra);
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const auto &P = C.params<cuLaunchKernelEx_params>();
    recordLaunch(C, P.f, P.config ? P.config->hStream : nullptr, P.kernelParams, P.extra);
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const auto &P = C.params<cuLaunchCooperativeKernel_params>();
    recordLaunch(C, P.f, P.hStream, P.kernelParams, nullptr);
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
    C.R.Report.noteNotAnalysed(NotAnalysed::GraphLaunches);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz:
    C.R.Report.noteNotAnalysed(NotAnalysed::HostFunctions);
    return;
  default:
    return;
  }
}

} // namespace rt
} // namespace streamlife
