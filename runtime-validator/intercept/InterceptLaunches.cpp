//===- InterceptLaunches.cpp - kernel launches, graphs, host functions ----===//
//
// cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel (and _ptsz): one
// enqueue on the launch stream that touches the allocations its parameters
// point into, as the kernel's plan decodes them (kernels/KernelPlans.h). The runtime's cudaLaunchKernel* reaches us here,
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

/// Candidate pointers of one launch: the kernel's plan where the bytes fit it,
/// else the generic rule (KernelPlans.h).
void candidates(ValidatorRuntime &R, const KernelInfo &Info, const LaunchParams &P, LaunchGrid Grid,
                std::vector<CandidatePointer> &Out) {
  if (Info.Plan && Info.Plan->decode(P, Grid, Out)) {
    R.Launches.decoded(Info.Plan->family());
    return;
  }
  R.Launches.decoded("generic");
  genericScan(P, Out);
}

void recordLaunch(const CallContext &C, CUfunction F, CUstream H, void **KernelParams, void **Extra,
                  LaunchGrid Grid) {
  if (C.capturing(H))
    return;
  ValidatorRuntime &R = C.R;
  StreamId S = C.stream(H);
  const KernelInfo &Info = *R.Kernels.get(reinterpret_cast<void *>(F), C.Data.symbolName, R.Ops);
  static thread_local std::vector<CandidatePointer> Found;
  static thread_local std::vector<PointerWord> Words;
  Found.clear();
  if (Extra) {
    const unsigned char *Packed = nullptr;
    std::size_t Size = 0;
    if (!packedArguments(Extra, Packed, Size)) {
      R.Report.noteNotAnalysed(NotAnalysed::KernelParameters);
    } else if (Info.LayoutKnown) {
      candidates(R, Info, LaunchParams(Info.Layout, Packed, Size), Grid, Found);
    } else { // one opaque blob: nothing in it can be trusted
      std::vector<ParamSlot> Whole{ParamSlot{0, static_cast<std::uint32_t>(Size)}};
      genericScan(LaunchParams(Whole, Packed, Size), Found);
    }
  } else if (KernelParams) {
    if (Info.LayoutKnown)
      candidates(R, Info, LaunchParams(Info.Layout, KernelParams), Grid, Found);
    else
      R.Report.noteNotAnalysed(NotAnalysed::KernelParameters);
  }
  Words.clear();
  bool AnyGeneric = false;
  for (const CandidatePointer &P : Found) {
    bool Generic = P.Source == AccessSource::GenericScan;
    AnyGeneric |= Generic;
    Words.push_back(PointerWord{P.Word, Generic});
  }
  OpId Op = C.op(Info.Name);
  OpId GenericOp = AnyGeneric ? R.Ops.sameStack(Op, Info.GenericName) : Op;
  std::size_t Ignored = R.Eng.launchedWithPointerWords(C.T, S, Words.data(), Words.size(), Op, GenericOp);
  R.Launches.ignoredGenericWords(Ignored);
}

} // namespace

void interceptLaunches(const CallContext &C) {
  if (!C.entering())
    return;
  switch (C.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    const auto &P = C.params<cuLaunchKernel_params>();
    recordLaunch(C, P.f, P.hStream, P.kernelParams, P.extra, LaunchGrid{P.gridDimX, P.gridDimY, P.gridDimZ});
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const auto &P = C.params<cuLaunchKernelEx_params>();
    LaunchGrid Grid;
    if (P.config)
      Grid = LaunchGrid{P.config->gridDimX, P.config->gridDimY, P.config->gridDimZ};
    recordLaunch(C, P.f, P.config ? P.config->hStream : nullptr, P.kernelParams, P.extra, Grid);
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const auto &P = C.params<cuLaunchCooperativeKernel_params>();
    recordLaunch(C, P.f, P.hStream, P.kernelParams, nullptr, LaunchGrid{P.gridDimX, P.gridDimY, P.gridDimZ});
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
