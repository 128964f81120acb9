//===- CuptiSubscription.cpp - the CUPTI callback ---------------------------===//
//
// One CUPTI subscriber; the driver-API cbids of the call table (CuptiCalls.inc)
// that CUPTI carries (DriverCallTable.h) are enabled one by one, and each goes
// to its family through the table. The resource domain gives the teardown path
// (context destruction). With api_stats=1 the driver and runtime domains are
// enabled whole, only to count calls (diagnostics).
//
//===----------------------------------------------------------------------===//
#include "intercept/CuptiCalls.h"
#include "intercept/DriverCallTable.h"
#include "intercept/Runtime.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <atomic>
#include <string_view>

namespace streamlife {
namespace rt {

void flushAtCudaTeardown(ValidatorRuntime &R);

namespace {

constexpr unsigned MaxCbid = CUPTI_DRIVER_TRACE_CBID_SIZE;
CuptiApi Cupti;
CUpti_SubscriberHandle TheSubscriber = nullptr;

constexpr unsigned MaxRuntimeCbid = CUPTI_RUNTIME_TRACE_CBID_SIZE;
std::atomic<std::uint64_t> RuntimeCalls[MaxRuntimeCbid];

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain Domain, CUpti_CallbackId Cbid,
                         const void *RawData) {
  // Our own driver calls (parameter info, stream flags) come back here: drop them.
  if (DriverCallGuard::inside())
    return;
  ValidatorRuntime *R = runtime();
  if (!R)
    return;
  DriverCallGuard Guard;
  if (Domain == CUPTI_CB_DOMAIN_DRIVER_API && Cbid < MaxCbid) {
    const auto &Data = *static_cast<const CUpti_CallbackData *>(RawData);
    CallContext::Site At =
        Data.callbackSite == CUPTI_API_ENTER ? CallContext::Site::Enter : CallContext::Site::Exit;
    if (carriedByCupti(Cbid)) {
      // The timeline matches the work enqueued here with its activity record
      // (without a timeline, nothing is kept).
      bool Timeline = R->Recording.load(std::memory_order_relaxed) != nullptr;
      if (Timeline)
        setDriverCorrelation(Data.correlationId);
      // The result exists only once the call returned.
      CUresult Result = At == CallContext::Site::Exit
                            ? *static_cast<const CUresult *>(Data.functionReturnValue)
                            : CUDA_SUCCESS;
      interceptDriverCall(*R, Cbid, At, Data.functionParams, Result, Data.symbolName, Data.context);
      if (Timeline)
        setDriverCorrelation(0);
    } else if (!carriedAtEntryPoint(Cbid) && At == CallContext::Site::Enter) {
      // The rest of the domain only reaches us with api_stats; the entry
      // points count the rows they carry themselves.
      countUnhandledDriverCall(Cbid);
    }
  } else if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API && Cbid < MaxRuntimeCbid) {
    const auto &Data = *static_cast<const CUpti_CallbackData *>(RawData);
    if (Data.callbackSite == CUPTI_API_ENTER)
      RuntimeCalls[Cbid].fetch_add(1, std::memory_order_relaxed);
    // A kernel's activity record may carry the runtime call's correlation id
    // rather than the driver call's under it (enableRuntimeCorrelation).
    setRuntimeCorrelation(Data.callbackSite == CUPTI_API_ENTER ? Data.correlationId : 0);
  } else if (Domain == CUPTI_CB_DOMAIN_RESOURCE &&
             Cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    flushAtCudaTeardown(*R);
  }
}

std::string cuptiError(CUptiResult Rc) {
  const char *Text = nullptr;
  if (Cupti.GetResultString)
    Cupti.GetResultString(Rc, &Text);
  return Text ? Text : ("CUPTI error " + std::to_string(static_cast<int>(Rc)));
}

} // namespace

bool drainQueuedEventsOutsideCuda(ValidatorRuntime &R) {
  if (DriverCallGuard::inside())
    return false;
  DriverCallGuard Guard; // stream resolution may call the driver
  InterceptContext(R).replayBlockEvents();
  R.Report.drain(R);
  return true;
}

bool subscribeCupti(ValidatorRuntime &R, std::string &Why) {
  if (!loadCupti(Cupti, Why))
    return false;
  CUpti_SubscriberHandle Subscriber;
  CUptiResult Rc = Cupti.Subscribe(&Subscriber, onCallback, &R);
  TheSubscriber = Subscriber;
  if (Rc != CUPTI_SUCCESS) {
    Why = Rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
              ? "another CUPTI client (a profiler or debugger) is attached, and CUPTI allows one"
              : "cuptiSubscribe failed: " + cuptiError(Rc);
    return false;
  }
  for (const CuptiCall &Call : cuptiCalls()) {
    if (!carriedByCupti(Call.Cbid))
      continue;
    Rc = Cupti.EnableCallback(1, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Call.Cbid);
    if (Rc != CUPTI_SUCCESS) {
      Why = "cuptiEnableCallback failed: " + cuptiError(Rc);
      Cupti.Unsubscribe(Subscriber);
      return false;
    }
  }
  Cupti.EnableCallback(1, Subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                       CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  if (R.Opts.api_stats) {
    Cupti.EnableDomain(1, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    Cupti.EnableDomain(1, Subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  }
  return true;
}

void enableRuntimeCorrelation() {
  if (!TheSubscriber || !Cupti.GetCallbackName)
    return;
  // The runtime calls that enqueue GPU work; the rest of the runtime domain
  // stays off (PyTorch calls cudaGetDevice and the like all the time).
  for (unsigned Cbid = 1; Cbid < MaxRuntimeCbid; ++Cbid) {
    const char *Name = nullptr;
    if (Cupti.GetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, Cbid, &Name) != CUPTI_SUCCESS || !Name)
      continue;
    std::string_view N(Name);
    if (N.rfind("cudaLaunch", 0) == 0 || N.rfind("cudaMemcpy", 0) == 0 ||
        N.rfind("cudaMemset", 0) == 0 || N.rfind("cudaGraphLaunch", 0) == 0)
      Cupti.EnableCallback(1, TheSubscriber, CUPTI_CB_DOMAIN_RUNTIME_API, Cbid);
  }
}

namespace {

const char *callbackName(CUpti_CallbackDomain Domain, unsigned Cbid) {
  const char *Name = nullptr;
  if (!Cupti.GetCallbackName || Cupti.GetCallbackName(Domain, Cbid, &Name) != CUPTI_SUCCESS || !Name)
    return "?";
  return Name;
}

} // namespace

void printApiStats(std::FILE *Out) {
  forEachDriverCallCount([&](unsigned Cbid, std::uint64_t Count) {
    std::fprintf(Out, "streamlife: api-stats: driver %s (cbid %u): %llu\n",
                 callbackName(CUPTI_CB_DOMAIN_DRIVER_API, Cbid), Cbid,
                 static_cast<unsigned long long>(Count));
  });
  for (unsigned I = 0; I < MaxRuntimeCbid; ++I)
    if (std::uint64_t Count = RuntimeCalls[I].load())
      std::fprintf(Out, "streamlife: api-stats: runtime %s (cbid %u): %llu\n",
                   callbackName(CUPTI_CB_DOMAIN_RUNTIME_API, I), I, static_cast<unsigned long long>(Count));
}

} // namespace rt
} // namespace streamlife
