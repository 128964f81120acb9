//===- InterceptLaunches.cpp - kernel launches, graphs, host functions ----===//
//
// cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel (and _ptsz): one
// enqueue on the launch stream that touches the allocations its parameters
// point into, as the kernel's plan decodes them (kernels/KernelPlans.h). The runtime's cudaLaunchKernel* reaches us here,
// through the driver call it makes, so each launch is counted once.
//
// Kernels launched inside an interposed math-library call are the library's:
// their launches order their stream, their parameters are not read.
//
// Graph launches and host functions are enqueues whose contents we cannot see:
// they are noted as "not analysed" once, never passed silently.
//
//===----------------------------------------------------------------------===//
#include "intercept/CuptiCalls.h"
#include "intercept/DriverCallContext.h"
#include "intercept/Interposition.h"
#include "intercept/KernelArguments.h"
#include "intercept/LaunchWords.h"

#include <cupti_driver_cbid.h>

namespace streamlife {
namespace rt {

namespace {

/// A launch's parameters decoded into Words, and the decoding noted.
__attribute__((always_inline)) inline void decodeLaunch(const InterceptContext &I, const KernelInfo &Info,
                                                        void **KernelParams, void **Extra, LaunchGrid Grid,
                                                        std::vector<PointerWord> &Words) {
  LaunchDecoding Decoded = launchPointerWords(Info, KernelParams, Extra, Grid, Words);
  if (!Decoded.Analysed)
    I.notAnalysed(NotAnalysed::KernelParameters);
  if (Decoded.Family)
    I.countDecoded(Decoded.Family);
}

/// decodeLaunch timed, while self-profiling: out of line, so that a launch
/// that is not profiled keeps no timer on its stack (seven instructions of
/// stores and tests per launch).
__attribute__((noinline)) void decodeLaunchTimed(const InterceptContext &I, const KernelInfo &Info,
                                                 void **KernelParams, void **Extra, LaunchGrid Grid,
                                                 std::vector<PointerWord> &Words) {
  ProfileTimer Decoding(ProfilePhase::Decode);
  decodeLaunch(I, Info, KernelParams, Extra, Grid, Words);
}

/// Inline in each launch's decoder: a call of seven arguments passed the
/// grid on the stack and cost cuLaunchKernel's decoder a frame of its own.
__attribute__((always_inline)) inline void recordLaunch(const CallContext &C, CUfunction F, CUstream H,
                                                        void **KernelParams, void **Extra, LaunchGrid Grid) {
  const InterceptContext &I = C.Intercept;
  if (I.capturing(H))
    return;
  StreamId S = I.stream(H);
  if (LibraryCallScope::active()) {
    // A kernel of an interposed cuBLAS/cuDNN call: an enqueue on its stream,
    // but its parameters are the library's; the call's decoded arguments say
    // what it touches (Interposition.h).
    I.countDecoded("library-internal");
    I.libraryKernelLaunched(S);
    return;
  }
  const KernelInfo &Info = I.kernel(F, C.SymbolName);
  static thread_local std::vector<PointerWord> Words;
  // The active profile is the runtime's while it profiles: no call to ask.
  if (__builtin_expect(SelfProfile::active() != nullptr, 0))
    decodeLaunchTimed(I, Info, KernelParams, Extra, Grid, Words);
  else
    decodeLaunch(I, Info, KernelParams, Extra, Grid, Words);
  bool AnyGeneric = false;
  for (const PointerWord &W : Words)
    AnyGeneric |= W.FromGenericScan;
  OpId Op = I.op(Info.Name);
  OpId GenericOp = AnyGeneric ? I.sameStack(Op, Info.GenericName) : Op;
  I.countIgnoredWords(I.launchedWithPointerWords(S, Words.data(), Words.size(), Op, GenericOp));
}

/// cuLaunchKernel, both variants.
void launchKernel(const CallContext &C) {
  if (!C.entering())
    return;
  const auto &P = C.params<cuLaunchKernel_params>();
  recordLaunch(C, P.f, P.hStream, P.kernelParams, P.extra, LaunchGrid{P.gridDimX, P.gridDimY, P.gridDimZ});
}

} // namespace

CallDecoder launchesDecoder(CUpti_CallbackId Cbid) {
  return rowDecoder(Cbid) == RowDecoder::LaunchKernel ? launchKernel : interceptLaunches;
}

void interceptLaunches(const CallContext &C) {
  if (!C.entering())
    return;
  switch (C.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    launchKernel(C);
    return;
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
    C.Intercept.notAnalysed(NotAnalysed::GraphLaunches);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz:
    C.Intercept.notAnalysed(NotAnalysed::HostFunctions);
    return;
  default:
    return;
  }
}

} // namespace rt
} // namespace streamlife
