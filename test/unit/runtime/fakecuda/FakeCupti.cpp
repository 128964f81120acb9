//===- FakeCupti.cpp - a stand-in CUPTI for CPU-only tests ----------------===//
//
// Just enough of CUPTI's callback API for libstreamlife_rt.so to subscribe,
// plus fakeCuptiCall(), with which fake_cuda_program plays the driver: it
// raises the ENTER and EXIT callbacks of one driver call, if enabled. The
// launches, event records, stream waits and stream-ordered allocations and
// frees go through the fake driver's own functions instead (FakeDriver.cpp),
// reached as FAKE_DRIVER_PATH says a program reaches them (see
// fakeCuptiCall), and the driver raises their callbacks: so that the
// validator's interception at the driver's entry points is exercised as on a
// GPU. Lets the whole path (callbacks or entry
// points -> interceptors -> engine -> reports -> exit status) run in CI,
// where there is no GPU.
//
// FAKE_CUPTI_BUSY=1 makes cuptiSubscribe fail as it does when a profiler
// already holds CUPTI.
//
// The activity API is played by a small GPU: each call advances a virtual
// host clock by 1 us; a kernel, copy or memset runs on its stream after the
// work before it and any event the stream waits for, for the duration
// fakeCuptiSetDuration() gave its kernel name (2 us by default, copies and
// memsets 500 ns); host synchronizations move the host clock to the GPU.
// Records are delivered, through the buffer callbacks, once the host clock
// has passed their end, and all at cuptiActivityFlushAll, so traces drawn
// from it are the same in every run. FAKE_CUPTI_NO_ACTIVITY=1 makes the
// activity API unavailable, as on a CUPTI that cannot trace.
//
//===----------------------------------------------------------------------===//
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {
CUpti_CallbackFunc Callback = nullptr;
void *UserData = nullptr;
bool Enabled[8][1024] = {};

// --- the activity API's GPU ---------------------------------------------------
CUpti_BuffersCallbackRequestFunc RequestBuffer = nullptr;
CUpti_BuffersCallbackCompleteFunc CompleteBuffer = nullptr;
bool ActivityKinds[64] = {};
std::atomic<std::uint64_t> HostNow{1000000}; ///< ns; starts at 1 ms
/// Guards the GPU's state; the runtime's buffer callback runs under it, never
/// the other way round (cuptiGetTimestamp reads HostNow without it).
std::mutex GpuLock;

void advanceHost(std::uint64_t To) {
  std::uint64_t Now = HostNow.load();
  while (To > Now && !HostNow.compare_exchange_weak(Now, To)) {
  }
}
std::uint32_t NextCorrelation = 1;
std::map<CUstream, std::uint64_t> StreamTail;
std::map<CUstream, std::uint32_t> StreamIds;
std::map<CUevent, std::uint64_t> EventTime;
std::map<std::string, std::uint64_t> Durations;
struct PendingRecord {
  std::uint64_t End;
  std::vector<unsigned char> Bytes;
};
std::vector<PendingRecord> Records;

std::uint32_t streamIdOf(CUstream S) {
  auto [It, New] = StreamIds.emplace(S, static_cast<std::uint32_t>(StreamIds.size() + 7));
  (void)New;
  return It->second;
}

/// Runs one piece of work on S and returns its [start, end).
std::pair<std::uint64_t, std::uint64_t> runOn(CUstream S, std::uint64_t Duration) {
  std::uint64_t &Tail = StreamTail[S];
  std::uint64_t Start = std::max(HostNow.load(), Tail);
  Tail = Start + Duration;
  return {Start, Tail};
}

template <typename Record> void queueRecord(const Record &R) {
  PendingRecord P;
  P.End = R.end;
  P.Bytes.resize(sizeof(Record));
  std::memcpy(P.Bytes.data(), &R, sizeof(Record));
  Records.push_back(std::move(P));
}

void kernelRecord(CUstream S, const char *Name, std::uint32_t Correlation) {
  auto It = Durations.find(Name ? Name : "");
  auto [Start, End] = runOn(S, It != Durations.end() ? It->second : 2000);
  if (!ActivityKinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL])
    return;
  CUpti_ActivityKernel10 K;
  std::memset(&K, 0, sizeof(K));
  K.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  K.start = Start;
  K.end = End;
  K.streamId = streamIdOf(S);
  K.correlationId = Correlation;
  K.name = Name;
  queueRecord(K);
}

/// A copy's or memset's record: the members the two record types share.
template <typename Record>
void transferRecord(CUpti_ActivityKind Kind, CUstream S, std::uint32_t Correlation) {
  auto [Start, End] = runOn(S, 500);
  if (!ActivityKinds[Kind])
    return;
  Record R;
  std::memset(&R, 0, sizeof(R));
  R.kind = Kind;
  R.start = Start;
  R.end = End;
  R.streamId = streamIdOf(S);
  R.correlationId = Correlation;
  queueRecord(R);
}

void copyRecord(CUstream S, std::uint32_t Correlation, bool Memset) {
  if (Memset)
    transferRecord<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET, S, Correlation);
  else
    transferRecord<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY, S, Correlation);
}

/// The GPU's side of one driver call.
void simulate(CUpti_CallbackId Cbid, void *Params, const char *Symbol, std::uint32_t Correlation) {
  switch (Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    kernelRecord(static_cast<cuLaunchKernel_params *>(Params)->hStream, Symbol, Correlation);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
    copyRecord(static_cast<cuMemcpyAsync_params *>(Params)->hStream, Correlation, false);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
  case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
    copyRecord(static_cast<cuMemsetD8Async_params *>(Params)->hStream, Correlation, true);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord: {
    auto *P = static_cast<cuEventRecord_params *>(Params);
    EventTime[P->hEvent] = std::max(HostNow.load(), StreamTail[P->hStream]);
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent: {
    auto *P = static_cast<cuStreamWaitEvent_params *>(Params);
    std::uint64_t &Tail = StreamTail[P->hStream];
    Tail = std::max(Tail, EventTime[P->hEvent]);
    return;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    advanceHost(StreamTail[static_cast<cuStreamSynchronize_params *>(Params)->hStream]);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
    advanceHost(EventTime[static_cast<cuEventSynchronize_params *>(Params)->hEvent]);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuEventQuery: // the program says it completed
    advanceHost(EventTime[static_cast<cuEventQuery_params *>(Params)->hEvent]);
    return;
  case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    for (auto &[S, Tail] : StreamTail)
      advanceHost(Tail);
    return;
  default:
    return;
  }
}

/// Hands the records that ended by Until (all with Until = ~0) to the
/// runtime, in one buffer, in the order they ended.
void deliver(std::uint64_t Until) {
  if (!RequestBuffer || !CompleteBuffer)
    return;
  std::stable_sort(Records.begin(), Records.end(),
                   [](const PendingRecord &A, const PendingRecord &B) { return A.End < B.End; });
  std::size_t N = 0;
  while (N < Records.size() && Records[N].End <= Until)
    ++N;
  if (N == 0)
    return;
  uint8_t *Buffer = nullptr;
  size_t Size = 0, MaxRecords = 0;
  RequestBuffer(&Buffer, &Size, &MaxRecords);
  size_t Used = 0, Taken = 0;
  for (; Taken < N && Buffer && Used + Records[Taken].Bytes.size() <= Size; ++Taken) {
    std::memcpy(Buffer + Used, Records[Taken].Bytes.data(), Records[Taken].Bytes.size());
    Used += Records[Taken].Bytes.size();
  }
  Records.erase(Records.begin(), Records.begin() + static_cast<std::ptrdiff_t>(Taken));
  CompleteBuffer(nullptr, 0, Buffer, Size, Used);
  if (Taken && Taken < N)
    deliver(Until);
}

bool activityAvailable() { return std::getenv("FAKE_CUPTI_NO_ACTIVITY") == nullptr; }

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

// --- the activity API -------------------------------------------------------------

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc Request,
                                           CUpti_BuffersCallbackCompleteFunc Complete) {
  if (!activityAvailable())
    return CUPTI_ERROR_NOT_SUPPORTED;
  RequestBuffer = Request;
  CompleteBuffer = Complete;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind Kind) {
  if (!activityAvailable())
    return CUPTI_ERROR_NOT_SUPPORTED;
  if (Kind >= 64)
    return CUPTI_ERROR_INVALID_KIND;
  ActivityKinds[Kind] = true;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind Kind) {
  if (Kind < 64)
    ActivityKinds[Kind] = false;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t) {
  std::lock_guard<std::mutex> Guard(GpuLock);
  deliver(~std::uint64_t(0));
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *Buffer, size_t Valid, CUpti_Activity **Record) {
  std::size_t At = 0;
  if (*Record)
    At = static_cast<std::size_t>(reinterpret_cast<uint8_t *>(*Record) - Buffer);
  auto SizeOf = [](const CUpti_Activity *R) -> std::size_t {
    switch (R->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    default:
      return 0;
    }
  };
  if (*Record)
    At += SizeOf(*Record);
  if (At >= Valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *Record = reinterpret_cast<CUpti_Activity *>(Buffer + At);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t *Dropped) {
  *Dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *Timestamp) {
  *Timestamp = HostNow;
  return CUPTI_SUCCESS;
}

/// How long kernel Symbol runs on the fake GPU.
void fakeCuptiSetDuration(const char *Symbol, std::uint64_t Ns) {
  std::lock_guard<std::mutex> Guard(GpuLock);
  Durations[Symbol] = Ns;
}

/// Whether the work before event E's record has finished on the fake GPU by
/// now: what cuEventQuery would answer.
bool fakeCuptiEventDone(CUevent E) {
  std::lock_guard<std::mutex> Guard(GpuLock);
  auto It = EventTime.find(E);
  return It == EventTime.end() || It->second <= HostNow.load();
}

} // extern "C"

// A program linked against libcuda.so.1 calls these by name.
extern "C" CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, CUstream, void **, void **);
extern "C" CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **, void **);
extern "C" CUresult cuEventRecord_ptsz(CUevent, CUstream);
extern "C" CUresult cuEventRecordWithFlags_ptsz(CUevent, CUstream, unsigned);
extern "C" CUresult cuStreamWaitEvent_ptsz(CUstream, CUevent, unsigned);
extern "C" CUresult cuMemAllocAsync_ptsz(CUdeviceptr *, size_t, CUstream);
extern "C" CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
extern "C" CUresult cuMemFreeAsync_ptsz(CUdeviceptr, CUstream);
extern "C" void fakeDriverSetResult(CUresult);
extern "C" void fakeDriverConnect(void (*)(CUpti_CallbackId, const char *, void *, CUresult, const char *));
extern "C" void fakeDriverNameKernel(CUfunction, const char *);

namespace {

const char *wrappedName(CUpti_CallbackId Cbid, bool &PerThread);

/// Callbacks raised for the launches, records and waits, and for the
/// stream-ordered allocations and frees (FAKE_CUPTI_REPORT=1 prints their
/// numbers at exit): 0 where the validator intercepts them at the driver's
/// entry points and CUPTI does not enable them.
std::atomic<unsigned long> EntryPointCallbacks{0}, StreamOrderedCallbacks{0};
const bool Reporting = std::getenv("FAKE_CUPTI_REPORT") &&
                       std::atexit([] {
                         std::fprintf(stderr, "fake cupti: launch, record and wait callbacks raised: %lu\n",
                                      EntryPointCallbacks.load());
                         std::fprintf(stderr,
                                      "fake cupti: stream-ordered allocation and free callbacks raised: %lu\n",
                                      StreamOrderedCallbacks.load());
                       }) == 0;

/// Whether a wrapped name (wrappedName) is a stream-ordered allocation or
/// free: the only ones that start "cuMem" (one character tells, since a
/// string compare per call would be counted as the validator's own cost in
/// the benchmarks).
bool streamOrdered(const char *WrappedName) { return WrappedName[2] == 'M'; }

/// Raises the ENTER and EXIT callbacks of one driver call, and plays it on the
/// fake GPU: what the driver does for every call (the fake driver's own
/// functions call it, FakeDriver.cpp).
void raiseDriverCall(CUpti_CallbackId Cbid, const char *FunctionName, void *Params, CUresult Result,
                     const char *SymbolName) {
  std::uint32_t Correlation;
  {
    std::lock_guard<std::mutex> Guard(GpuLock);
    HostNow += 1000;
    Correlation = NextCorrelation++;
    if (Result == CUDA_SUCCESS)
      simulate(Cbid, Params, SymbolName, Correlation);
  }
  if (Callback && Cbid < 1024 && Enabled[CUPTI_CB_DOMAIN_DRIVER_API][Cbid]) {
    bool PerThread;
    if (const char *Wrapped = wrappedName(Cbid, PerThread))
      (streamOrdered(Wrapped) ? StreamOrderedCallbacks : EntryPointCallbacks).fetch_add(2, std::memory_order_relaxed);
    CUpti_CallbackData Data;
    std::memset(&Data, 0, sizeof(Data));
    Data.functionName = FunctionName;
    Data.functionParams = Params;
    Data.functionReturnValue = &Result;
    Data.symbolName = SymbolName;
    Data.context = reinterpret_cast<CUcontext>(0xc0);
    Data.correlationId = Correlation;
    Data.callbackSite = CUPTI_API_ENTER;
    Callback(UserData, CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &Data);
    Data.callbackSite = CUPTI_API_EXIT;
    Callback(UserData, CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &Data);
  }
  std::lock_guard<std::mutex> Guard(GpuLock);
  deliver(HostNow.load());
}

// --- how a program reaches the driver's launch, record and wait functions --------

enum class DriverPath {
  ProcAddress,   ///< the CUDA runtime's way: dlsym(libcuda, "cuGetProcAddress_v2"), then lookups
  ProcAddressV1, ///< the same through CUDA 11's cuGetProcAddress
  Dlsym,         ///< dlsym(libcuda, "cuLaunchKernelEx"), as Triton's launcher does
  Direct,        ///< a call of the function a program linked against libcuda.so.1 binds
};

DriverPath driverPath() {
  static const DriverPath Path = [] {
    const char *Env = std::getenv("FAKE_DRIVER_PATH");
    std::string P = Env ? Env : "proc-address";
    if (P == "proc-address-v1")
      return DriverPath::ProcAddressV1;
    if (P == "dlsym")
      return DriverPath::Dlsym;
    if (P == "direct")
      return DriverPath::Direct;
    return DriverPath::ProcAddress;
  }();
  return Path;
}

/// FAKE_DRIVER_PER_THREAD=1: the program was built with --default-stream
/// per-thread, so its lookups ask for the per-thread variants.
bool perThreadProgram() {
  static const bool PerThread = std::getenv("FAKE_DRIVER_PER_THREAD") != nullptr;
  return PerThread;
}

/// The driver function of a cbid that the fake driver defines, and whether
/// it is a per-thread variant; null for any other cbid.
const char *wrappedName(CUpti_CallbackId Cbid, bool &PerThread) {
  PerThread = false;
  switch (Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    return "cuLaunchKernel";
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    return "cuLaunchKernelEx";
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    return "cuEventRecord";
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    return "cuEventRecordWithFlags";
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    return "cuStreamWaitEvent";
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    return "cuMemAllocAsync";
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    return "cuMemAllocFromPoolAsync";
  case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
    PerThread = true;
    [[fallthrough]];
  case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    return "cuMemFreeAsync";
  default:
    return nullptr;
  }
}

/// The function a program gets for Name by the configured path (looked up
/// once per cbid, as the runtime fills its table once).
void *lookUp(CUpti_CallbackId Cbid, const char *Name, bool PerThread) {
  static std::atomic<void *> Found[1024];
  if (void *F = Found[Cbid].load(std::memory_order_acquire))
    return F;
  void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    std::fprintf(stderr, "fake cupti: libcuda.so.1: %s\n", dlerror());
    std::abort();
  }
  cuuint64_t Flags = PerThread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_DEFAULT;
  void *F = nullptr;
  switch (driverPath()) {
  case DriverPath::ProcAddress: {
    auto GetProc = reinterpret_cast<CUresult (*)(const char *, void **, int, cuuint64_t,
                                                 CUdriverProcAddressQueryResult *)>(
        dlsym(Lib, "cuGetProcAddress_v2"));
    CUdriverProcAddressQueryResult Status;
    if (GetProc)
      GetProc(Name, &F, 12000, Flags, &Status);
    break;
  }
  case DriverPath::ProcAddressV1: {
    auto GetProc =
        reinterpret_cast<CUresult (*)(const char *, void **, int, cuuint64_t)>(dlsym(Lib, "cuGetProcAddress"));
    if (GetProc)
      GetProc(Name, &F, 11080, Flags);
    break;
  }
  case DriverPath::Dlsym:
  case DriverPath::Direct:
    F = dlsym(Lib, (std::string(Name) + (PerThread ? "_ptsz" : "")).c_str());
    break;
  }
  if (!F) {
    std::fprintf(stderr, "fake cupti: the driver does not hand out %s\n", Name);
    std::abort();
  }
  Found[Cbid].store(F, std::memory_order_release);
  return F;
}

/// The launch, record, wait, stream-ordered allocation or free of Cbid
/// through the driver's function, reached as the program would, returning
/// Result; false for any other cbid.
bool callDriver(CUpti_CallbackId Cbid, void *Params, const char *SymbolName, CUresult Result) {
  bool PerThread = false;
  const char *Name = wrappedName(Cbid, PerThread);
  if (!Name)
    return false;
  PerThread |= perThreadProgram();
  bool Direct = driverPath() == DriverPath::Direct;
  void *F = Direct ? nullptr : lookUp(Cbid, Name, PerThread);
  if (Result != CUDA_SUCCESS)
    fakeDriverSetResult(Result);
  // By cbid, not by name: a string compare per call would be most of the
  // fake's cost in the benchmarks that count instructions.
#define FAKE_BOTH(Name) CUPTI_DRIVER_TRACE_CBID_##Name : case CUPTI_DRIVER_TRACE_CBID_##Name##_ptsz
#define FAKE_FN(Name) (Direct ? (PerThread ? &Name##_ptsz : &Name) : reinterpret_cast<decltype(&Name)>(F))
  switch (Cbid) {
  case FAKE_BOTH(cuLaunchKernel): {
    auto &P = *static_cast<cuLaunchKernel_params *>(Params);
    if (SymbolName)
      fakeDriverNameKernel(P.f, SymbolName);
    FAKE_FN(cuLaunchKernel)(P.f, P.gridDimX, P.gridDimY, P.gridDimZ, P.blockDimX, P.blockDimY, P.blockDimZ,
                            P.sharedMemBytes, P.hStream, P.kernelParams, P.extra);
    break;
  }
  case FAKE_BOTH(cuLaunchKernelEx): {
    auto &P = *static_cast<cuLaunchKernelEx_params *>(Params);
    if (SymbolName)
      fakeDriverNameKernel(P.f, SymbolName);
    FAKE_FN(cuLaunchKernelEx)(P.config, P.f, P.kernelParams, P.extra);
    break;
  }
  case FAKE_BOTH(cuEventRecord): {
    auto &P = *static_cast<cuEventRecord_params *>(Params);
    FAKE_FN(cuEventRecord)(P.hEvent, P.hStream);
    break;
  }
  case FAKE_BOTH(cuEventRecordWithFlags): {
    auto &P = *static_cast<cuEventRecordWithFlags_params *>(Params);
    FAKE_FN(cuEventRecordWithFlags)(P.hEvent, P.hStream, P.flags);
    break;
  }
  case FAKE_BOTH(cuStreamWaitEvent): {
    auto &P = *static_cast<cuStreamWaitEvent_params *>(Params);
    FAKE_FN(cuStreamWaitEvent)(P.hStream, P.hEvent, P.Flags);
    break;
  }
  case FAKE_BOTH(cuMemAllocAsync): {
    auto &P = *static_cast<cuMemAllocAsync_params *>(Params);
    FAKE_FN(cuMemAllocAsync)(P.dptr, P.bytesize, P.hStream);
    break;
  }
  case FAKE_BOTH(cuMemAllocFromPoolAsync): {
    auto &P = *static_cast<cuMemAllocFromPoolAsync_params *>(Params);
    FAKE_FN(cuMemAllocFromPoolAsync)(P.dptr, P.bytesize, P.pool, P.hStream);
    break;
  }
  case FAKE_BOTH(cuMemFreeAsync): {
    auto &P = *static_cast<cuMemFreeAsync_params *>(Params);
    FAKE_FN(cuMemFreeAsync)(P.dptr, P.hStream);
    break;
  }
  default:
    break;
  }
#undef FAKE_BOTH
#undef FAKE_FN
  return true;
}

/// The fake driver raises its calls' callbacks through us.
const bool Connected = (fakeDriverConnect(raiseDriverCall), true);

} // namespace

extern "C" {

/// Plays one driver call: the launches, records, waits and stream-ordered
/// allocations and frees that a program makes through the driver's functions
/// go through the fake driver's (which raises their callbacks and returns
/// Result), reached by FAKE_DRIVER_PATH (proc-address, the default: as the
/// CUDA runtime does; proc-address-v1; dlsym; direct); every other call
/// raises its callbacks here.
void fakeCuptiCall(CUpti_CallbackId Cbid, const char *FunctionName, void *Params, CUresult Result,
                   const char *SymbolName) {
  if (callDriver(Cbid, Params, SymbolName, Result))
    return;
  raiseDriverCall(Cbid, FunctionName, Params, Result, SymbolName);
}

} // extern "C"
