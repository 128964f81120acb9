//===- CuptiSubscription.cpp - the CUPTI callback and its dispatch table ---===//
//
// One CUPTI subscriber; the driver-API cbids each interceptor family owns are
// enabled one by one, and a table sends each cbid to its family. The resource
// domain gives the teardown path (context destruction). With api_stats=1 the
// runtime domain is enabled as well, only to count calls (diagnostics).
//
//===----------------------------------------------------------------------===//
#include "intercept/Runtime.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace streamlife {
namespace rt {

void flushAtCudaTeardown(ValidatorRuntime &R);

namespace {

using Family = void (*)(const CallContext &);

constexpr unsigned MaxCbid = CUPTI_DRIVER_TRACE_CBID_SIZE;
Family Dispatch[MaxCbid] = {};
bool PerThreadCbid[MaxCbid] = {};
std::atomic<NameId> ApiNames[MaxCbid];
CuptiApi Cupti;

constexpr unsigned MaxRuntimeCbid = CUPTI_RUNTIME_TRACE_CBID_SIZE;
std::atomic<std::uint64_t> DriverCalls[MaxCbid];
std::atomic<std::uint64_t> RuntimeCalls[MaxRuntimeCbid];

thread_local bool InsideCallback = false;

struct Owned {
  Family Handler;
  std::vector<CUpti_CallbackId> Cbids;
};

std::vector<Owned> ownership() {
  return {
      {interceptLaunches,
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback,
        CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz}},
      {interceptStreams,
       {CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority,
        CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy, CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz}},
      {interceptEventsAndSync,
       {CUPTI_DRIVER_TRACE_CBID_cuEventRecord, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,
        CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
        CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, CUPTI_DRIVER_TRACE_CBID_cuEventDestroy,
        CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2}},
      {interceptMemory,
       {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemMap, CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve,
        CUPTI_DRIVER_TRACE_CBID_cuMemCreate}},
      {interceptCopiesAndSets,
       {CUPTI_DRIVER_TRACE_CBID_cuMemcpy, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer, CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync, CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer_ptds,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz}},
      {notAnalysedStreamMemOps,
       {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_ptsz, CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_ptsz, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue64,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue64_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue64_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue64_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz}},
  };
}

bool endsWith(const char *S, const char *Suffix) {
  std::size_t N = std::strlen(S), M = std::strlen(Suffix);
  return N >= M && !std::strcmp(S + N - M, Suffix);
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
    if (F) {
      R->UsedCuda.store(true, std::memory_order_relaxed);
      CallContext C{*R, currentThread(), Cbid, Data, PerThreadCbid[Cbid]};
      // Block events that annotated allocators queued before this call
      // (PyTorch's ALLOC before the launch that fills the block) come first.
      drainAnnotations(*R, C.T, Data.context);
      F(C);
      R->Report.drain(*R);
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
  drainAnnotations(R, currentThread(), nullptr);
  R.Report.drain(R);
  InsideCallback = false;
}

OpId CallContext::apiOp() const {
  NameId Name = Cbid < MaxCbid ? ApiNames[Cbid].load(std::memory_order_relaxed) : 0;
  if (Name == 0) {
    Name = R.Ops.internName(Data.functionName ? Data.functionName : "CUDA call");
    if (Cbid < MaxCbid)
      ApiNames[Cbid].store(Name, std::memory_order_relaxed);
  }
  return op(Name);
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
  for (const Owned &O : ownership()) {
    for (CUpti_CallbackId Cbid : O.Cbids) {
      if (Cbid >= MaxCbid)
        continue;
      Dispatch[Cbid] = O.Handler;
      const char *Name = nullptr;
      if (Cupti.GetCallbackName &&
          Cupti.GetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &Name) == CUPTI_SUCCESS && Name)
        PerThreadCbid[Cbid] = endsWith(Name, "_ptsz") || endsWith(Name, "_ptds");
      Rc = Cupti.EnableCallback(1, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Cbid);
      if (Rc != CUPTI_SUCCESS) {
        Why = "cuptiEnableCallback failed: " + cuptiError(Rc);
        Cupti.Unsubscribe(Subscriber);
        return false;
      }
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
