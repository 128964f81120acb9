//===- DriverCallTable.cpp - per-row state, dispatch and counts ------------===//
#include "intercept/DriverCallTable.h"
#include "intercept/CuptiCalls.h"
#include "intercept/Runtime.h"

#include <cupti_driver_cbid.h>

#include <atomic>

namespace streamlife {
namespace rt {

namespace detail {
DriverRow Rows[CUPTI_DRIVER_TRACE_CBID_SIZE];
std::atomic<std::uint64_t> Calls[CUPTI_DRIVER_TRACE_CBID_SIZE];
bool CountingCalls = false;
} // namespace detail

namespace {

using detail::Calls;
using detail::Rows;
using Family = void (*)(const CallContext &);

constexpr unsigned MaxCbid = CUPTI_DRIVER_TRACE_CBID_SIZE;

std::atomic<NameId> ApiNames[MaxCbid];

/// Row Cbid's decoder in family F (the family's own for the cbid, where it
/// has one: DriverCallContext.h).
Family familyFunction(CuptiFamily F, CUpti_CallbackId Cbid) {
  switch (F) {
  case CuptiFamily::Launches:
    return launchesDecoder(Cbid);
  case CuptiFamily::Streams:
    return interceptStreams;
  case CuptiFamily::EventsAndSync:
    return eventsAndSyncDecoder(Cbid);
  case CuptiFamily::Memory:
    return interceptMemory;
  case CuptiFamily::CopiesAndSets:
    return interceptCopiesAndSets;
  case CuptiFamily::StreamMemOps:
    return interceptStreamMemOps;
  }
  return nullptr;
}

} // namespace

void interceptDriverCallInScope(ValidatorRuntime &R, CUpti_CallbackId Cbid, CallContext::Site At,
                                const void *Params, CUresult Result, const char *SymbolName, CUcontext Ctx) {
  const DriverRow &Row = detail::Rows[Cbid];
  InterceptScope Scope(R, Row.Slot, Ctx, Row.PerThread, Row.Deferrable);
  Row.Decode(CallContext{Scope.context(), Cbid, At, Params, Result, SymbolName});
}

namespace {
/// The rows whose engine work InterceptContext can queue (deferring()):
/// launches, records and waits, copies and sets (a synchronous copy's host
/// sync at its exit replays first: InterceptContext::settle), and the
/// stream-ordered pool's allocations and frees, and event destructions
/// (the engine forgets the event's clock). The launches' family also
/// notes graph launches and host functions, which reach no engine.
bool deferrableRow(const CuptiCall &Call) {
  switch (Call.Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy:
  case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
    return true;
  default:
    return Call.Family == CuptiFamily::Launches || Call.Family == CuptiFamily::CopiesAndSets ||
           rowDecoder(Call.Cbid) != RowDecoder::Family;
  }
}
} // namespace

void setUpDriverCalls(ValidatorRuntime &R, bool AtEntryPoints) {
  detail::CountingCalls = R.Opts.intercept_stats || R.Opts.api_stats;
  for (const CuptiCall &Call : cuptiCalls()) {
    if (Call.Cbid >= MaxCbid)
      continue;
    DriverRow &Out = Rows[Call.Cbid];
    Out.Decode = familyFunction(Call.Family, Call.Cbid);
    Out.Name = Call.Name;
    Out.PerThread = Call.PerThread;
    Out.AtEntryPoint = AtEntryPoints && Call.Carrier == CallCarrier::EntryPointWhereSupported;
    Out.Sites = Call.Sites;
    Out.Slot = R.Profile.enabled() ? R.Profile.slot(Call.Name) : NoProfileSlot;
    Out.Deferrable = deferrableRow(Call);
  }
}

void countUnhandledDriverCall(CUpti_CallbackId Cbid) {
  if (Cbid < MaxCbid)
    Calls[Cbid].fetch_add(1, std::memory_order_relaxed);
}

OpId CallContext::apiOp() const {
  NameId Name = Cbid < MaxCbid ? ApiNames[Cbid].load(std::memory_order_relaxed) : 0;
  if (Name == 0) {
    const char *ApiName = Cbid < MaxCbid ? Rows[Cbid].Name : nullptr;
    Name = Intercept.name(ApiName ? ApiName : "CUDA call");
    if (Cbid < MaxCbid)
      ApiNames[Cbid].store(Name, std::memory_order_relaxed);
  }
  return Intercept.op(Name);
}

void printInterceptStats(std::FILE *Out) {
  for (unsigned I = 0; I < MaxCbid; ++I)
    if (std::uint64_t Count = Calls[I].load(); Count && Rows[I].Decode)
      std::fprintf(Out, "streamlife: intercept-stats: driver %s (cbid %u): %llu\n", Rows[I].Name, I,
                   static_cast<unsigned long long>(Count));
}

namespace detail {
std::uint64_t driverCallCount(unsigned Cbid) { return Cbid < MaxCbid ? Calls[Cbid].load() : 0; }
unsigned driverCallCbids() { return MaxCbid; }
} // namespace detail

} // namespace rt
} // namespace streamlife
