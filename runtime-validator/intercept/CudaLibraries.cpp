//===- CudaLibraries.cpp - dlopen the driver and CUPTI --------------------===//
#include "intercept/CudaLibraries.h"

#include <dlfcn.h>

#include <cstdlib>

#ifndef STREAMLIFE_CUPTI_BUILD_PATH
#define STREAMLIFE_CUPTI_BUILD_PATH ""
#endif

namespace streamlife {
namespace rt {

namespace {

template <typename Fn> void bind(void *Lib, const char *Name, Fn &Out) {
  Out = reinterpret_cast<Fn>(dlsym(Lib, Name));
}

} // namespace

bool loadDriver(DriverApi &Api, std::string &Why) {
  void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!Lib) {
    Why = "libcuda.so.1 cannot be loaded (no CUDA driver)";
    return false;
  }
  bind(Lib, "cuKernelGetParamInfo", Api.KernelGetParamInfo);
  bind(Lib, "cuFuncGetParamInfo", Api.FuncGetParamInfo);
  bind(Lib, "cuCtxGetDevice", Api.CtxGetDevice);
  bind(Lib, "cuCtxGetCurrent", Api.CtxGetCurrent);
  bind(Lib, "cuCtxSetCurrent", Api.CtxSetCurrent);
  bind(Lib, "cuStreamGetFlags", Api.StreamGetFlags);
  bind(Lib, "cuStreamGetPriority", Api.StreamGetPriority);
  bind(Lib, "cuStreamGetDevice", Api.StreamGetDevice);
  bind(Lib, "cuStreamIsCapturing", Api.StreamIsCapturing);
  bind(Lib, "cuKernelGetName", Api.KernelGetName);
  bind(Lib, "cuFuncGetName", Api.FuncGetName);
  if (!Api.CtxGetDevice || !Api.StreamGetFlags) {
    Why = "libcuda.so.1 lacks cuCtxGetDevice or cuStreamGetFlags";
    return false;
  }
  return true;
}

bool loadCupti(CuptiApi &Api, std::string &Why) {
  const char *Candidates[] = {
      std::getenv("STREAMLIFE_CUPTI_LIBRARY"),
      STREAMLIFE_CUPTI_BUILD_PATH,
      "libcupti.so.13",
      "libcupti.so",
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
      "/usr/local/cuda/lib64/libcupti.so",
      "/usr/local/cuda/lib/libcupti.so",
  };
  void *Lib = nullptr;
  for (const char *Path : Candidates) {
    if (!Path || !*Path)
      continue;
    if ((Lib = dlopen(Path, RTLD_NOW | RTLD_LOCAL)))
      break;
  }
  if (!Lib) {
    Why = "libcupti cannot be loaded (set STREAMLIFE_CUPTI_LIBRARY to its path)";
    return false;
  }
  bind(Lib, "cuptiSubscribe", Api.Subscribe);
  bind(Lib, "cuptiUnsubscribe", Api.Unsubscribe);
  bind(Lib, "cuptiEnableCallback", Api.EnableCallback);
  bind(Lib, "cuptiEnableDomain", Api.EnableDomain);
  bind(Lib, "cuptiGetCallbackName", Api.GetCallbackName);
  bind(Lib, "cuptiGetResultString", Api.GetResultString);
  bind(Lib, "cuptiActivityRegisterCallbacks", Api.ActivityRegisterCallbacks);
  bind(Lib, "cuptiActivityEnable", Api.ActivityEnable);
  bind(Lib, "cuptiActivityFlushAll", Api.ActivityFlushAll);
  bind(Lib, "cuptiActivityGetNextRecord", Api.ActivityGetNextRecord);
  bind(Lib, "cuptiGetTimestamp", Api.GetTimestamp);
  if (!Api.Subscribe || !Api.EnableCallback || !Api.EnableDomain) {
    Why = "libcupti lacks cuptiSubscribe or cuptiEnableCallback";
    return false;
  }
  return true;
}

} // namespace rt
} // namespace streamlife
