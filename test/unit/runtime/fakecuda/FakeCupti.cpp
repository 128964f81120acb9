//===- FakeCupti.cpp - a stand-in CUPTI for CPU-only tests ----------------===//
//
// Just enough of CUPTI's callback API for libstreamlife_rt.so to subscribe,
// plus fakeCuptiCall(), with which fake_cuda_program plays the driver: it
// raises the ENTER and EXIT callbacks of one driver call, if enabled. Lets the
// whole path (callbacks -> interceptors -> engine -> reports -> exit status)
// run in CI, where there is no GPU.
//
// FAKE_CUPTI_BUSY=1 makes cuptiSubscribe fail as it does when a profiler
// already holds CUPTI.
//
//===----------------------------------------------------------------------===//
#include <cupti.h>

#include <cstdlib>
#include <cstring>

namespace {
CUpti_CallbackFunc Callback = nullptr;
void *UserData = nullptr;
bool Enabled[8][1024] = {};
} // namespace

extern "C" {

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *Subscriber, CUpti_CallbackFunc Fn, void *User) {
  if (std::getenv("FAKE_CUPTI_BUSY"))
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  if (Callback)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  Callback = Fn;
  UserData = User;
  *Subscriber = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  Callback = nullptr;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t Enable, CUpti_SubscriberHandle, CUpti_CallbackDomain Domain,
                                CUpti_CallbackId Cbid) {
  if (Domain >= 8 || Cbid >= 1024)
    return CUPTI_ERROR_INVALID_PARAMETER;
  Enabled[Domain][Cbid] = Enable != 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t Enable, CUpti_SubscriberHandle, CUpti_CallbackDomain Domain) {
  if (Domain >= 8)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (bool &E : Enabled[Domain])
    E = Enable != 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char **Name) {
  *Name = "cuFake";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult, const char **Text) {
  *Text = "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}

/// Raises the ENTER and EXIT callbacks of one driver call.
void fakeCuptiCall(CUpti_CallbackId Cbid, const char *FunctionName, void *Params, CUresult Result,
                   const char *SymbolName) {
  if (!Callback || Cbid >= 1024 || !Enabled[CUPTI_CB_DOMAIN_DRIVER_API][Cbid])
    return;
  CUpti_CallbackData Data;
  std::memset(&Data, 0, sizeof(Data));
  Data.functionName = FunctionName;
  Data.functionParams = Params;
  Data.functionReturnValue = &Result;
  Data.symbolName = SymbolName;
  Data.context = reinterpret_cast<CUcontext>(0xc0);
  Data.callbackSite = CUPTI_API_ENTER;
  Callback(UserData, CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &Data);
  Data.callbackSite = CUPTI_API_EXIT;
  Callback(UserData, CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &Data);
}

} // extern "C"
