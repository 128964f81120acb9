//===- CuptiSubscription.cpp - the CUPTI callback and its dispatch table ---===//
//
// One CUPTI subscriber; the driver-API cbids of the call table (CuptiCalls.inc)
// are enabled one by one, and each goes to its family with an
// InterceptContext for the call. The resource domain gives the teardown path
// (context destruction). With api_stats=1 the runtime domain is enabled as
// well, only to count calls (diagnostics).
//
//===----------------------------------------------------------------------===//
#include "intercept/CuptiCallContext.h"
#include "intercept/CuptiCalls.h"
#include "intercept/Runtime.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <atomic>

namespace streamlife {
namespace rt {

void flushAtCudaTeardown(ValidatorRuntime &R);

namespace {

using Family = void (*)(const CallContext &);

constexpr unsigned MaxCbid = CUPTI_DRIVER_TRACE_CBID_SIZE;
Family Dispatch[MaxCbid] = {};
bool PerThreadCbid[MaxCbid] = {};
unsigned CbidSites[MaxCbid] = {};
ProfileSlot CbidSlot[MaxCbid];
std::atomic<NameId> ApiNames[MaxCbid];
CuptiApi Cupti;

constexpr unsigned MaxRuntimeCbid = CUPTI_RUNTIME_TRACE_CBID_SIZE;
std::atomic<std::uint64_t> DriverCalls[MaxCbid];
std::atomic<std::uint64_t> RuntimeCalls[MaxRuntimeCbid];

thread_local bool InsideCallback = false;

Family familyFunction(CuptiFamily F) {
  switch (F) {
  case CuptiFamily::Launches:
    return interceptLaunches;
  case CuptiFamily::Streams:
    return interceptStreams;
  case CuptiFamily::EventsAndSync:
    return interceptEventsAndSync;
  case CuptiFamily::Memory:
    return interceptMemory;
  case CuptiFamily::CopiesAndSets:
    return interceptCopiesAndSets;
  case CuptiFamily::StreamMemOps:
    return interceptStreamMemOps;
  }
  return nullptr;
}

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain Domain, CUpti_CallbackId Cbid,
                         const void *RawData) {
  // Our own driver calls (parameter info, stream flags) come back here: drop them.
  if (InsideCallback)
    return;
  ValidatorRuntime *R = runtime();
  if (!R)
    return;
  InsideCallback = true;
  if (Domain == CUPTI_CB_DOMAIN_DRIVER_API && Cbid < MaxCbid) {
    const auto &Data = *static_cast<const CUpti_CallbackData *>(RawData);
    Family F = Dispatch[Cbid];
    // Handled calls are always counted (intercept_stats); the rest of the
    // domain only reaches us with api_stats.
    if ((F || R->Opts.api_stats) && Data.callbackSite == CUPTI_API_ENTER)
      DriverCalls[Cbid].fetch_add(1, std::memory_order_relaxed);
    unsigned Site = Data.callbackSite == CUPTI_API_ENTER ? CuptiCall::AtEnter : CuptiCall::AtExit;
    // CUPTI calls back at both sites; the family's row says which it uses.
    if (F && (CbidSites[Cbid] & Site)) {
      InterceptScope Scope(*R, CbidSlot[Cbid], Data.context, PerThreadCbid[Cbid]);
      F(CallContext{Scope.context(), Cbid, Data});
    }
  } else if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API && Cbid < MaxRuntimeCbid) {
    if (static_cast<const CUpti_CallbackData *>(RawData)->callbackSite == CUPTI_API_ENTER)
      RuntimeCalls[Cbid].fetch_add(1, std::memory_order_relaxed);
  } else if (Domain == CUPTI_CB_DOMAIN_RESOURCE &&
             Cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    flushAtCudaTeardown(*R);
  }
  InsideCallback = false;
}

std::string cuptiError(CUptiResult Rc) {
  const char *Text = nullptr;
  if (Cupti.GetResultString)
    Cupti.GetResultString(Rc, &Text);
  return Text ? Text : ("CUPTI error " + std::to_string(static_cast<int>(Rc)));
}

} // namespace

void drainQueuedEventsOutsideCuda(ValidatorRuntime &R) {
  if (InsideCallback)
    return;
  InsideCallback = true; // stream resolution may call the driver
  InterceptContext(R).replayBlockEvents();
  R.Report.drain(R);
  InsideCallback = false;
}

OpId CallContext::apiOp() const {
  NameId Name = Cbid < MaxCbid ? ApiNames[Cbid].load(std::memory_order_relaxed) : 0;
  if (Name == 0) {
    Name = Intercept.name(Data.functionName ? Data.functionName : "CUDA call");
    if (Cbid < MaxCbid)
      ApiNames[Cbid].store(Name, std::memory_order_relaxed);
  }
  return Intercept.op(Name);
}

bool subscribeCupti(ValidatorRuntime &R, std::string &Why) {
  if (!loadCupti(Cupti, Why))
    return false;
  CUpti_SubscriberHandle Subscriber;
  CUptiResult Rc = Cupti.Subscribe(&Subscriber, onCallback, &R);
  if (Rc != CUPTI_SUCCESS) {
    Why = Rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
              ? "another CUPTI client (a profiler or debugger) is attached, and CUPTI allows one"
              : "cuptiSubscribe failed: " + cuptiError(Rc);
    return false;
  }
  for (const CuptiCall &Call : cuptiCalls()) {
    if (Call.Cbid >= MaxCbid)
      continue;
    Dispatch[Call.Cbid] = familyFunction(Call.Family);
    PerThreadCbid[Call.Cbid] = Call.PerThread;
    CbidSites[Call.Cbid] = Call.Sites;
    CbidSlot[Call.Cbid] = R.Profile.enabled() ? R.Profile.slot(Call.Name) : NoProfileSlot;
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

namespace {

void printCounts(std::FILE *Out, const char *Prefix, CUpti_CallbackDomain Domain,
                 std::atomic<std::uint64_t> *Counts, unsigned N, const char *Label, bool HandledOnly) {
  for (unsigned I = 0; I < N; ++I) {
    std::uint64_t Count = Counts[I].load();
    if (!Count || (HandledOnly && !Dispatch[I]))
      continue;
    const char *Name = nullptr;
    if (!Cupti.GetCallbackName || Cupti.GetCallbackName(Domain, I, &Name) != CUPTI_SUCCESS)
      Name = "?";
    std::fprintf(Out, "streamlife: %s: %s %s (cbid %u): %llu\n", Prefix, Label, Name ? Name : "?", I,
                 static_cast<unsigned long long>(Count));
  }
}

} // namespace

void printInterceptStats(std::FILE *Out) {
  printCounts(Out, "intercept-stats", CUPTI_CB_DOMAIN_DRIVER_API, DriverCalls, MaxCbid, "driver", true);
}

void printApiStats(std::FILE *Out) {
  auto Print = [&](CUpti_CallbackDomain Domain, std::atomic<std::uint64_t> *Counts, unsigned N,
                   const char *Label) {
    for (unsigned I = 0; I < N; ++I) {
      std::uint64_t Count = Counts[I].load();
      if (!Count)
        continue;
      const char *Name = nullptr;
      if (!Cupti.GetCallbackName || Cupti.GetCallbackName(Domain, I, &Name) != CUPTI_SUCCESS)
        Name = "?";
      std::fprintf(Out, "streamlife: api-stats: %s %s (cbid %u): %llu\n", Label, Name ? Name : "?",
                   I, static_cast<unsigned long long>(Count));
    }
  };
  Print(CUPTI_CB_DOMAIN_DRIVER_API, DriverCalls, MaxCbid, "driver");
  Print(CUPTI_CB_DOMAIN_RUNTIME_API, RuntimeCalls, MaxRuntimeCbid, "runtime");
}

} // namespace rt
} // namespace streamlife
