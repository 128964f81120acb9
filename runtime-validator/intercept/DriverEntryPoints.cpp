//===- DriverEntryPoints.cpp - wrappers, cuGetProcAddress and dlsym --------===//
#include "intercept/DriverEntryPoints.h"
#include "intercept/CuptiCalls.h"
#include "intercept/DriverCallTable.h"
#include "intercept/Runtime.h"
#include "report/LogFile.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_driver_cbid.h>
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

// cuda.h names the CUDA 12 lookup cuGetProcAddress_v2; the CUDA 11 one keeps
// the plain name, and both are exported.
#undef cuGetProcAddress

#if defined(__x86_64__) && defined(__linux__)

namespace streamlife {
namespace rt {
namespace {

enum EntryIndex : unsigned {
  LaunchKernel,
  LaunchKernelPtsz,
  LaunchKernelEx,
  LaunchKernelExPtsz,
  EventRecord,
  EventRecordPtsz,
  EventRecordWithFlags,
  EventRecordWithFlagsPtsz,
  StreamWaitEvent,
  StreamWaitEventPtsz,
  MemAllocAsync,
  MemAllocAsyncPtsz,
  MemAllocFromPoolAsync,
  MemAllocFromPoolAsyncPtsz,
  MemFreeAsync,
  MemFreeAsyncPtsz,
  LastWrapped = MemFreeAsyncPtsz, ///< the wrapped calls come in legacy and _ptsz pairs up to here
  GetProcAddress,
  GetProcAddressV2,
  EntryCount
};

/// One driver function the validator wraps.
struct Entry {
  const char *Name;
  CUpti_CallbackId Cbid; ///< its call-table row; INVALID for the lookups
  void *Wrapper = nullptr;
  void *Own = nullptr; ///< libcuda's definition: what lookups hand out
  std::atomic<void *> Next{nullptr}; ///< what the wrapper forwards to
};

Entry Entries[EntryCount] = {
    {"cuLaunchKernel", CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {"cuLaunchKernel_ptsz", CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {"cuLaunchKernelEx", CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {"cuLaunchKernelEx_ptsz", CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
    {"cuEventRecord", CUPTI_DRIVER_TRACE_CBID_cuEventRecord},
    {"cuEventRecord_ptsz", CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz},
    {"cuEventRecordWithFlags", CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags},
    {"cuEventRecordWithFlags_ptsz", CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz},
    {"cuStreamWaitEvent", CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent},
    {"cuStreamWaitEvent_ptsz", CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz},
    {"cuMemAllocAsync", CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync},
    {"cuMemAllocAsync_ptsz", CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz},
    {"cuMemAllocFromPoolAsync", CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync},
    {"cuMemAllocFromPoolAsync_ptsz", CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz},
    {"cuMemFreeAsync", CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync},
    {"cuMemFreeAsync_ptsz", CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz},
    {"cuGetProcAddress", CUPTI_DRIVER_TRACE_CBID_INVALID},
    {"cuGetProcAddress_v2", CUPTI_DRIVER_TRACE_CBID_INVALID},
};

/// Set once the call table carries the entry-point rows here; until then
/// (and in processes where CUPTI carries them) the lookups hand out the
/// driver's own functions.
std::atomic<bool> Active{false};
/// The runtime the wrappers intercept for (setDriverEntryPointRuntime); null
/// until the entry points are active and the runtime published, and in a
/// forked child: the wrappers only forward then.
std::atomic<ValidatorRuntime *> Intercepting{nullptr};
CUresult (*CtxGetCurrent)(CUcontext *) = nullptr;

} // namespace
} // namespace rt
} // namespace streamlife

// --- dlsym -------------------------------------------------------------------
//
// The trampoline below is the exported dlsym. RTLD_NEXT and RTLD_DEFAULT
// lookups search relative to the object that called dlsym (glibc reads the
// return address), so for those it jumps to the real dlsym with the stack as
// the caller left it: an interposer's RTLD_NEXT still means "after me", a
// library loaded RTLD_LOCAL still sees its own dependencies. Both already
// find our definitions first when they look for a driver function in the
// global scope. A lookup in a given handle does not depend on its caller
// (except for LD_AUDIT's notification), so it goes to the handler, which asks
// the real dlsym and maps a result that is one of the driver's own wrapped
// functions to the wrapper. It starts with endbr64 (a no-op elsewhere): it is
// reached through the PLT, an indirect jump, and the library is marked
// compatible with indirect-branch tracking like the rest of the code.

using DlsymFn = void *(*)(void *, const char *);

extern "C" {

__attribute__((visibility("hidden"))) DlsymFn streamlife_real_dlsym = nullptr;

/// The definition of dlsym after ours (libc's, GLIBC_2.34 or the older
/// version); resolved on first use, which may come before our constructor.
__attribute__((visibility("hidden"), used)) DlsymFn streamlife_resolve_real_dlsym() {
  DlsymFn F = __atomic_load_n(&streamlife_real_dlsym, __ATOMIC_ACQUIRE);
  if (!F) {
    void *P = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!P)
      P = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    F = reinterpret_cast<DlsymFn>(P);
    __atomic_store_n(&streamlife_real_dlsym, F, __ATOMIC_RELEASE);
  }
  return F;
}

__attribute__((visibility("hidden"), used)) void *streamlife_dlsym_in_handle(void *Handle,
                                                                            const char *Name);

} // extern "C"

asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
  .p2align 4
dlsym:
  .cfi_startproc
  endbr64
  cmpq $-1, %rdi
  je 1f
  testq %rdi, %rdi
  je 1f
  jmp streamlife_dlsym_in_handle
1:
  movq streamlife_real_dlsym(%rip), %rax
  testq %rax, %rax
  je 2f
  jmp *%rax
2:
  pushq %rdi
  .cfi_adjust_cfa_offset 8
  pushq %rsi
  .cfi_adjust_cfa_offset 8
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  call streamlife_resolve_real_dlsym
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %rsi
  .cfi_adjust_cfa_offset -8
  popq %rdi
  .cfi_adjust_cfa_offset -8
  jmp *%rax
  .cfi_endproc
  .size dlsym, .-dlsym
)");

namespace streamlife {
namespace rt {
namespace {

DlsymFn realDlsym() { return streamlife_resolve_real_dlsym(); }

/// The wrapper of F when F is one of the driver's own wrapped functions.
void *handOut(void *F) {
  if (F)
    for (const Entry &E : Entries)
      if (E.Own == F)
        return E.Wrapper;
  return F;
}

void *resolveNext(Entry &E) {
  // RTLD_NEXT from here: the definition after ours, which is the driver's
  // unless another interposer comes between.
  void *F = dlsym(RTLD_NEXT, E.Name);
  if (!F || F == E.Wrapper) {
    if (void *Lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      F = realDlsym()(Lib, E.Name);
      dlclose(Lib); // NOLOAD took a reference; the library stays loaded
    }
  }
  if (F)
    E.Next.store(F, std::memory_order_release);
  return F;
}

/// Calls the next definition of entry I with the wrapper's own arguments.
template <EntryIndex I, typename... Args> CUresult forward(Args... A) {
  void *F = Entries[I].Next.load(std::memory_order_acquire);
  if (__builtin_expect(!F, 0) && !(F = resolveNext(Entries[I])))
    return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  return reinterpret_cast<CUresult (*)(Args...)>(F)(A...);
}

/// The runtime when this call is to be intercepted: the entry points carry
/// the rows, the validator is attached, and the call is not the validator's
/// own (made while it handles another call).
ValidatorRuntime *interceptingRuntime() {
  if (DriverCallGuard::inside())
    return nullptr;
  return Intercepting.load(std::memory_order_acquire);
}

/// The current context, for a call on a special stream handle (NULL, legacy,
/// per-thread), which means a stream of that context's device. Out of line:
/// its address-taken result kept every call's context in memory.
__attribute__((noinline)) CUcontext currentContext() {
  CUcontext Ctx = nullptr;
  if (CtxGetCurrent) {
    DriverCallGuard Guard;
    CtxGetCurrent(&Ctx);
  }
  return Ctx;
}

/// One call of row Cbid around the driver's (Forward calls it): the row's
/// Enter before it, its Exit with the driver's result after it (the table
/// runs the family at the sites the row uses, as it does for CUPTI's
/// callbacks). The row is a template argument, so that its sites are read at
/// a constant address. A function, not an object around the call: the
/// object's members (the runtime, the parameters, the context) were kept in
/// memory across the driver's call and read back from there.
template <CUpti_CallbackId Cbid, typename Fn>
__attribute__((always_inline)) inline CUresult entryCall(const void *Params, CUstream Stream, Fn &&Forward) {
  ValidatorRuntime *R = interceptingRuntime();
  if (!R)
    return Forward();
  countDriverCall(Cbid);
  // A special handle means a stream of the current context's device; a real
  // handle does not depend on it. Asked before the driver acts, for either
  // site.
  CUcontext Ctx = reinterpret_cast<std::uintptr_t>(Stream) <= reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD)
                      ? currentContext()
                      : nullptr;
  if (driverCallUsesSite(Cbid, CallContext::Site::Enter)) {
    DriverCallGuard Guard;
    interceptDriverCallSite(*R, Cbid, CallContext::Site::Enter, Params, CUDA_SUCCESS, Ctx);
  }
  CUresult Rc = Forward();
  if (driverCallUsesSite(Cbid, CallContext::Site::Exit)) {
    DriverCallGuard Guard;
    interceptDriverCallSite(*R, Cbid, CallContext::Site::Exit, Params, Rc, Ctx);
  }
  return Rc;
}

template <EntryIndex I, CUpti_CallbackId Cbid>
CUresult launchKernel(CUfunction F, unsigned GridX, unsigned GridY, unsigned GridZ, unsigned BlockX,
                      unsigned BlockY, unsigned BlockZ, unsigned SharedBytes, CUstream Stream,
                      void **KernelParams, void **Extra) {
  cuLaunchKernel_params P{F,      GridX,       GridY,  GridZ,        BlockX, BlockY,
                          BlockZ, SharedBytes, Stream, KernelParams, Extra};
  return entryCall<Cbid>(&P, Stream, [&] {
    return forward<I>(F, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes, Stream, KernelParams, Extra);
  });
}

template <EntryIndex I, CUpti_CallbackId Cbid>
CUresult launchKernelEx(const CUlaunchConfig *Config, CUfunction F, void **KernelParams, void **Extra) {
  cuLaunchKernelEx_params P{Config, F, KernelParams, Extra};
  return entryCall<Cbid>(&P, Config ? Config->hStream : nullptr,
                         [&] { return forward<I>(Config, F, KernelParams, Extra); });
}

template <EntryIndex I, CUpti_CallbackId Cbid> CUresult eventRecord(CUevent Event, CUstream Stream) {
  cuEventRecord_params P{Event, Stream};
  return entryCall<Cbid>(&P, Stream, [&] { return forward<I>(Event, Stream); });
}

template <EntryIndex I, CUpti_CallbackId Cbid>
CUresult eventRecordWithFlags(CUevent Event, CUstream Stream, unsigned Flags) {
  cuEventRecordWithFlags_params P{Event, Stream, Flags};
  return entryCall<Cbid>(&P, Stream, [&] { return forward<I>(Event, Stream, Flags); });
}

template <EntryIndex I, CUpti_CallbackId Cbid>
CUresult streamWaitEvent(CUstream Stream, CUevent Event, unsigned Flags) {
  cuStreamWaitEvent_params P{Stream, Event, Flags};
  return entryCall<Cbid>(&P, Stream, [&] { return forward<I>(Stream, Event, Flags); });
}

// The stream-ordered allocator's calls (PyTorch's backend:cudaMallocAsync
// makes hundreds a step). The driver writes the pointer before it returns, so
// the allocation is read at the row's Exit, once the driver succeeded; the
// free is handed over at its Enter, before the driver can give the bytes to
// another thread's allocation. The _ptsz parameter structs are the legacy
// ones' layout, which is what the family reads for both.

template <EntryIndex I, CUpti_CallbackId Cbid>
CUresult memAllocAsync(CUdeviceptr *Dptr, std::size_t Bytes, CUstream Stream) {
  cuMemAllocAsync_params P{Dptr, Bytes, Stream};
  return entryCall<Cbid>(&P, Stream, [&] { return forward<I>(Dptr, Bytes, Stream); });
}

template <EntryIndex I, CUpti_CallbackId Cbid>
CUresult memAllocFromPoolAsync(CUdeviceptr *Dptr, std::size_t Bytes, CUmemoryPool Pool, CUstream Stream) {
  cuMemAllocFromPoolAsync_params P{Dptr, Bytes, Pool, Stream};
  return entryCall<Cbid>(&P, Stream, [&] { return forward<I>(Dptr, Bytes, Pool, Stream); });
}

template <EntryIndex I, CUpti_CallbackId Cbid> CUresult memFreeAsync(CUdeviceptr Ptr, CUstream Stream) {
  cuMemFreeAsync_params P{Ptr, Stream};
  return entryCall<Cbid>(&P, Stream, [&] { return forward<I>(Ptr, Stream); });
}

/// A lookup that named a wrapped function and got an address the validator
/// does not know would carry calls no mechanism sees: said once.
void checkHandedOut(const char *Symbol, void *Before, void *After) {
  if (!Symbol || !Before || Before != After)
    return;
  for (unsigned I = LaunchKernel; I <= LastWrapped; ++I)
    if (std::strcmp(Symbol, Entries[I].Name) == 0) {
      static std::atomic<bool> Said{false};
      if (!Said.exchange(true))
        std::fprintf(validatorLog(),
                     "streamlife: warning: cuGetProcAddress(\"%s\") handed out an entry point that "
                     "libcuda.so.1 does not export; the calls made through it are not seen (run with STREAMLIFE_OPTIONS=driver_entry_points=0)\n",
                     Symbol);
      return;
    }
}

CUresult getProcAddressV2(const char *Symbol, void **Pfn, int CudaVersion, cuuint64_t Flags,
                          CUdriverProcAddressQueryResult *Status) {
  CUresult Rc = forward<GetProcAddressV2>(Symbol, Pfn, CudaVersion, Flags, Status);
  if (Rc == CUDA_SUCCESS && Pfn && Active.load(std::memory_order_relaxed)) {
    void *Before = *Pfn;
    *Pfn = handOut(Before);
    checkHandedOut(Symbol, Before, *Pfn);
  }
  return Rc;
}

CUresult getProcAddress(const char *Symbol, void **Pfn, int CudaVersion, cuuint64_t Flags) {
  CUresult Rc = forward<GetProcAddress>(Symbol, Pfn, CudaVersion, Flags);
  if (Rc == CUDA_SUCCESS && Pfn && Active.load(std::memory_order_relaxed)) {
    void *Before = *Pfn;
    *Pfn = handOut(Before);
    checkHandedOut(Symbol, Before, *Pfn);
  }
  return Rc;
}

#define STREAMLIFE_CBID(Name) CUPTI_DRIVER_TRACE_CBID_##Name

/// The wrappers lookups hand out (hidden functions of ours, so that another
/// definition of the exported names cannot take their place). Set by
/// prepareDriverEntryPoints, which the runtime's constructor calls: not by a
/// static initializer, whose order against that constructor is the link's.
void setWrappers() {
  Entries[LaunchKernel].Wrapper =
      reinterpret_cast<void *>(&launchKernel<LaunchKernel, STREAMLIFE_CBID(cuLaunchKernel)>);
  Entries[LaunchKernelPtsz].Wrapper =
      reinterpret_cast<void *>(&launchKernel<LaunchKernelPtsz, STREAMLIFE_CBID(cuLaunchKernel_ptsz)>);
  Entries[LaunchKernelEx].Wrapper =
      reinterpret_cast<void *>(&launchKernelEx<LaunchKernelEx, STREAMLIFE_CBID(cuLaunchKernelEx)>);
  Entries[LaunchKernelExPtsz].Wrapper =
      reinterpret_cast<void *>(&launchKernelEx<LaunchKernelExPtsz, STREAMLIFE_CBID(cuLaunchKernelEx_ptsz)>);
  Entries[EventRecord].Wrapper =
      reinterpret_cast<void *>(&eventRecord<EventRecord, STREAMLIFE_CBID(cuEventRecord)>);
  Entries[EventRecordPtsz].Wrapper =
      reinterpret_cast<void *>(&eventRecord<EventRecordPtsz, STREAMLIFE_CBID(cuEventRecord_ptsz)>);
  Entries[EventRecordWithFlags].Wrapper = reinterpret_cast<void *>(
      &eventRecordWithFlags<EventRecordWithFlags, STREAMLIFE_CBID(cuEventRecordWithFlags)>);
  Entries[EventRecordWithFlagsPtsz].Wrapper = reinterpret_cast<void *>(
      &eventRecordWithFlags<EventRecordWithFlagsPtsz, STREAMLIFE_CBID(cuEventRecordWithFlags_ptsz)>);
  Entries[StreamWaitEvent].Wrapper =
      reinterpret_cast<void *>(&streamWaitEvent<StreamWaitEvent, STREAMLIFE_CBID(cuStreamWaitEvent)>);
  Entries[StreamWaitEventPtsz].Wrapper =
      reinterpret_cast<void *>(&streamWaitEvent<StreamWaitEventPtsz, STREAMLIFE_CBID(cuStreamWaitEvent_ptsz)>);
  Entries[MemAllocAsync].Wrapper =
      reinterpret_cast<void *>(&memAllocAsync<MemAllocAsync, STREAMLIFE_CBID(cuMemAllocAsync)>);
  Entries[MemAllocAsyncPtsz].Wrapper =
      reinterpret_cast<void *>(&memAllocAsync<MemAllocAsyncPtsz, STREAMLIFE_CBID(cuMemAllocAsync_ptsz)>);
  Entries[MemAllocFromPoolAsync].Wrapper = reinterpret_cast<void *>(
      &memAllocFromPoolAsync<MemAllocFromPoolAsync, STREAMLIFE_CBID(cuMemAllocFromPoolAsync)>);
  Entries[MemAllocFromPoolAsyncPtsz].Wrapper = reinterpret_cast<void *>(
      &memAllocFromPoolAsync<MemAllocFromPoolAsyncPtsz, STREAMLIFE_CBID(cuMemAllocFromPoolAsync_ptsz)>);
  Entries[MemFreeAsync].Wrapper =
      reinterpret_cast<void *>(&memFreeAsync<MemFreeAsync, STREAMLIFE_CBID(cuMemFreeAsync)>);
  Entries[MemFreeAsyncPtsz].Wrapper =
      reinterpret_cast<void *>(&memFreeAsync<MemFreeAsyncPtsz, STREAMLIFE_CBID(cuMemFreeAsync_ptsz)>);
  Entries[GetProcAddress].Wrapper = reinterpret_cast<void *>(&getProcAddress);
  Entries[GetProcAddressV2].Wrapper = reinterpret_cast<void *>(&getProcAddressV2);
}

const Entry *entryOfRow(CUpti_CallbackId Cbid) {
  for (const Entry &E : Entries)
    if (E.Cbid == Cbid && Cbid != CUPTI_DRIVER_TRACE_CBID_INVALID)
      return &E;
  return nullptr;
}

} // namespace

bool prepareDriverEntryPoints(std::string &Why) {
  setWrappers();
  // One list: every entry-point row has a wrapper, and every wrapper a row.
  for (const CuptiCall &Call : cuptiCalls())
    if (Call.Carrier == CallCarrier::EntryPointWhereSupported && !entryOfRow(Call.Cbid)) {
      Why = std::string("no entry-point wrapper for ") + Call.Name;
      return false;
    }
  for (const Entry &E : Entries) {
    if (E.Cbid == CUPTI_DRIVER_TRACE_CBID_INVALID)
      continue;
    bool Row = false;
    for (const CuptiCall &Call : cuptiCalls())
      Row |= Call.Cbid == E.Cbid && Call.Carrier == CallCarrier::EntryPointWhereSupported;
    if (!Row) {
      Why = std::string("the call table has no entry-point row for ") + E.Name;
      return false;
    }
  }
  void *Lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!Lib) {
    Why = "libcuda.so.1 is not loaded";
    return false;
  }
  for (Entry &E : Entries)
    E.Own = realDlsym()(Lib, E.Name);
  CtxGetCurrent = reinterpret_cast<CUresult (*)(CUcontext *)>(realDlsym()(Lib, "cuCtxGetCurrent"));
  auto DriverGetVersion = reinterpret_cast<CUresult (*)(int *)>(realDlsym()(Lib, "cuDriverGetVersion"));
  bool HasFuncGetName = realDlsym()(Lib, "cuFuncGetName") != nullptr;
  dlclose(Lib); // NOLOAD took a reference; the library stays loaded
  auto GetProc = reinterpret_cast<CUresult (*)(const char *, void **, int, cuuint64_t,
                                               CUdriverProcAddressQueryResult *)>(Entries[GetProcAddressV2].Own);
  if (!GetProc || !CtxGetCurrent || !DriverGetVersion) {
    Why = "libcuda.so.1 lacks cuGetProcAddress_v2, cuCtxGetCurrent or cuDriverGetVersion (a driver "
          "older than CUDA 12)";
    return false;
  }
  // Kernels are named and their parameter plans chosen by name; without
  // CUPTI's symbol name only the driver can say it.
  if (!HasFuncGetName) {
    Why = "libcuda.so.1 lacks cuFuncGetName (a driver older than CUDA 12.3), so launches would be unnamed";
    return false;
  }
  // The runtime's lookups are mapped by address: the driver must hand out
  // the functions it exports, for either stream flavour, or calls would
  // reach it unseen.
  int Version = 0;
  if (DriverGetVersion(&Version) != CUDA_SUCCESS)
    Version = CUDA_VERSION;
  for (unsigned I = LaunchKernel; I <= LastWrapped; I += 2)
    for (cuuint64_t Flags : {cuuint64_t(CU_GET_PROC_ADDRESS_LEGACY_STREAM),
                             cuuint64_t(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)}) {
      void *F = nullptr;
      CUdriverProcAddressQueryResult Status{};
      if (GetProc(Entries[I].Name, &F, Version, Flags, &Status) == CUDA_SUCCESS && F && handOut(F) == F) {
        Why = std::string("cuGetProcAddress hands out ") + Entries[I].Name +
              " at an address libcuda.so.1 does not export";
        return false;
      }
    }
  return true;
}

void activateDriverEntryPoints() { Active.store(true, std::memory_order_release); }

void setDriverEntryPointRuntime(ValidatorRuntime *R) { Intercepting.store(R, std::memory_order_release); }

} // namespace rt
} // namespace streamlife

// --- the exported definitions ----------------------------------------------------
//
// A program linked against libcuda.so.1 binds these names to the preloaded
// validator first; each is the wrapper of its own name.

using namespace streamlife::rt;

#define STREAMLIFE_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" void *streamlife_dlsym_in_handle(void *Handle, const char *Name) {
  void *F = realDlsym()(Handle, Name);
  if (F && Active.load(std::memory_order_relaxed))
    F = handOut(F);
  return F;
}

STREAMLIFE_EXPORT CUresult cuLaunchKernel(CUfunction F, unsigned GridX, unsigned GridY, unsigned GridZ,
                                          unsigned BlockX, unsigned BlockY, unsigned BlockZ,
                                          unsigned SharedBytes, CUstream Stream, void **KernelParams,
                                          void **Extra) {
  return launchKernel<LaunchKernel, STREAMLIFE_CBID(cuLaunchKernel)>(
      F, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes, Stream, KernelParams, Extra);
}

STREAMLIFE_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction F, unsigned GridX, unsigned GridY, unsigned GridZ,
                                               unsigned BlockX, unsigned BlockY, unsigned BlockZ,
                                               unsigned SharedBytes, CUstream Stream, void **KernelParams,
                                               void **Extra) {
  return launchKernel<LaunchKernelPtsz, STREAMLIFE_CBID(cuLaunchKernel_ptsz)>(
      F, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes, Stream, KernelParams, Extra);
}

STREAMLIFE_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *Config, CUfunction F, void **KernelParams,
                                            void **Extra) {
  return launchKernelEx<LaunchKernelEx, STREAMLIFE_CBID(cuLaunchKernelEx)>(Config, F, KernelParams, Extra);
}

STREAMLIFE_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *Config, CUfunction F,
                                                 void **KernelParams, void **Extra) {
  return launchKernelEx<LaunchKernelExPtsz, STREAMLIFE_CBID(cuLaunchKernelEx_ptsz)>(Config, F, KernelParams,
                                                                                   Extra);
}

STREAMLIFE_EXPORT CUresult cuEventRecord(CUevent Event, CUstream Stream) {
  return eventRecord<EventRecord, STREAMLIFE_CBID(cuEventRecord)>(Event, Stream);
}

STREAMLIFE_EXPORT CUresult cuEventRecord_ptsz(CUevent Event, CUstream Stream) {
  return eventRecord<EventRecordPtsz, STREAMLIFE_CBID(cuEventRecord_ptsz)>(Event, Stream);
}

STREAMLIFE_EXPORT CUresult cuEventRecordWithFlags(CUevent Event, CUstream Stream, unsigned Flags) {
  return eventRecordWithFlags<EventRecordWithFlags, STREAMLIFE_CBID(cuEventRecordWithFlags)>(Event, Stream,
                                                                                           Flags);
}

STREAMLIFE_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent Event, CUstream Stream, unsigned Flags) {
  return eventRecordWithFlags<EventRecordWithFlagsPtsz, STREAMLIFE_CBID(cuEventRecordWithFlags_ptsz)>(
      Event, Stream, Flags);
}

STREAMLIFE_EXPORT CUresult cuStreamWaitEvent(CUstream Stream, CUevent Event, unsigned Flags) {
  return streamWaitEvent<StreamWaitEvent, STREAMLIFE_CBID(cuStreamWaitEvent)>(Stream, Event, Flags);
}

STREAMLIFE_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream Stream, CUevent Event, unsigned Flags) {
  return streamWaitEvent<StreamWaitEventPtsz, STREAMLIFE_CBID(cuStreamWaitEvent_ptsz)>(Stream, Event, Flags);
}

STREAMLIFE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *Dptr, std::size_t Bytes, CUstream Stream) {
  return memAllocAsync<MemAllocAsync, STREAMLIFE_CBID(cuMemAllocAsync)>(Dptr, Bytes, Stream);
}

STREAMLIFE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *Dptr, std::size_t Bytes, CUstream Stream) {
  return memAllocAsync<MemAllocAsyncPtsz, STREAMLIFE_CBID(cuMemAllocAsync_ptsz)>(Dptr, Bytes, Stream);
}

STREAMLIFE_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *Dptr, std::size_t Bytes, CUmemoryPool Pool,
                                                   CUstream Stream) {
  return memAllocFromPoolAsync<MemAllocFromPoolAsync, STREAMLIFE_CBID(cuMemAllocFromPoolAsync)>(Dptr, Bytes, Pool,
                                                                                              Stream);
}

STREAMLIFE_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *Dptr, std::size_t Bytes, CUmemoryPool Pool,
                                                        CUstream Stream) {
  return memAllocFromPoolAsync<MemAllocFromPoolAsyncPtsz, STREAMLIFE_CBID(cuMemAllocFromPoolAsync_ptsz)>(
      Dptr, Bytes, Pool, Stream);
}

STREAMLIFE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr Ptr, CUstream Stream) {
  return memFreeAsync<MemFreeAsync, STREAMLIFE_CBID(cuMemFreeAsync)>(Ptr, Stream);
}

STREAMLIFE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr Ptr, CUstream Stream) {
  return memFreeAsync<MemFreeAsyncPtsz, STREAMLIFE_CBID(cuMemFreeAsync_ptsz)>(Ptr, Stream);
}

STREAMLIFE_EXPORT CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int CudaVersion, cuuint64_t Flags) {
  return getProcAddress(Symbol, Pfn, CudaVersion, Flags);
}

STREAMLIFE_EXPORT CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int CudaVersion,
                                               cuuint64_t Flags, CUdriverProcAddressQueryResult *Status) {
  return getProcAddressV2(Symbol, Pfn, CudaVersion, Flags, Status);
}

#else // not x86-64 Linux: CUPTI carries every row

namespace streamlife {
namespace rt {

bool prepareDriverEntryPoints(std::string &Why) {
  Why = "the driver's entry points are intercepted on x86-64 Linux only";
  return false;
}

void activateDriverEntryPoints() {}

void setDriverEntryPointRuntime(ValidatorRuntime *) {}

} // namespace rt
} // namespace streamlife

#endif
