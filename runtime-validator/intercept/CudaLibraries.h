//===- CudaLibraries.h - the driver and CUPTI, loaded at run time -*- C++ -*-===//
//
// libstreamlife_rt.so has no DT_NEEDED on libcuda or libcupti: LD_PRELOAD puts
// it into every process of a command (shells, compilers, Python's helpers), and
// a process on a machine without the driver must start and run unchanged. Both
// are dlopen'ed in the constructor; without them the validator stays passive.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_CUDALIBRARIES_H
#define STREAMLIFE_RT_INTERCEPT_CUDALIBRARIES_H

#include <cuda.h>
#include <cupti.h>

#include <string>

namespace streamlife {
namespace rt {

/// The few driver entry points the interceptors call themselves. Every call
/// must happen with no validator lock held (the driver may call back into us).
struct DriverApi {
  CUresult (*KernelGetParamInfo)(CUkernel, size_t, size_t *, size_t *) = nullptr;
  CUresult (*FuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *) = nullptr;
  CUresult (*CtxGetDevice)(CUdevice *) = nullptr;
  /// The replay thread's context (ReplayThread.h); may be null.
  CUresult (*CtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*StreamGetFlags)(CUstream, unsigned int *) = nullptr;
  CUresult (*StreamGetPriority)(CUstream, int *) = nullptr;
  CUresult (*StreamGetDevice)(CUstream, CUdevice *) = nullptr; ///< CUDA 12.8+; may be null
  CUresult (*StreamIsCapturing)(CUstream, CUstreamCaptureStatus *) = nullptr;
  /// A launched kernel's name where the mechanism did not give it (the
  /// driver's entry points); CUDA 12.3+, may be null.
  CUresult (*KernelGetName)(const char **, CUkernel) = nullptr;
  CUresult (*FuncGetName)(const char **, CUfunction) = nullptr;
};

struct CuptiApi {
  CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = nullptr;
  CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                CUpti_CallbackId) = nullptr;
  CUptiResult (*EnableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*GetCallbackName)(CUpti_CallbackDomain, uint32_t, const char **) = nullptr;
  CUptiResult (*GetResultString)(CUptiResult, const char **) = nullptr;
  // The activity API (CuptiActivity.cpp, for the timeline's GPU times); any
  // of these may be missing.
  CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                           CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*ActivityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityFlushAll)(uint32_t) = nullptr;
  CUptiResult (*ActivityGetNextRecord)(uint8_t *, size_t, CUpti_Activity **) = nullptr;
  CUptiResult (*GetTimestamp)(uint64_t *) = nullptr;
};

/// Loads libcuda.so.1; false (and Why) when the process has no usable driver.
bool loadDriver(DriverApi &Api, std::string &Why);
/// Loads CUPTI: $STREAMLIFE_CUPTI_LIBRARY, the path found at build time, the
/// loader's search path, then the toolkit's two layouts.
bool loadCupti(CuptiApi &Api, std::string &Why);

} // namespace rt
} // namespace streamlife

#endif
