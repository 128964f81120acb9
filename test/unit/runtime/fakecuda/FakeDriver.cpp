//===- FakeDriver.cpp - a stand-in libcuda.so.1 for CPU-only tests --------===//
//
// The driver calls libstreamlife_rt.so makes itself. Kernel 0x1000 has the
// parameters (float *, float *, int); every other handle is rejected as
// cuKernelGetParamInfo rejects a CUfunction, and cuFuncGetParamInfo knows
// kernel 0x2000 as one 24-byte by-value struct; kernel 0x4000 is PyTorch's
// multi_tensor_apply_kernel with depth-2 metadata (one 3144-byte struct);
// kernel 0x5000 has (const float *, const float *, float *, int), a matmul's.
// Stream 0x8000 is capturing.
//
// The calls the validator intercepts at the driver's entry points (launches,
// event records, stream waits, stream-ordered allocations and frees) are
// defined here as a driver defines them, and are what the fake CUPTI's
// fakeCuptiCall reaches for those rows, by the way a program would
// (FakeCupti.cpp): each raises the fake CUPTI's callbacks for its own cbid and
// plays the call on the fake GPU, as the real driver raises CUPTI's. They are
// handed out by cuGetProcAddress(_v2) too, the _ptsz variant for
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, as the real driver does.
// Each returns what fakeDriverSetResult() last set on the calling thread
// (once; success otherwise), so that a failed call is played as the program
// made it. A stream-ordered allocation hands back the pointer the caller
// put in *dptr (the program plays the pool). Kernel names (cuKernelGetName,
// cuFuncGetName, and CUPTI's symbol name of a launch) are those
// fakeDriverNameKernel() gave. Every other call succeeds. With
// STREAMLIFE_FAKE_DRIVER_LOCKS=K each of those calls locks and unlocks a mutex
// of its own K times first, as the real driver does (the validator's thread
// interposers meet them, or not once bind_private_locks has bound them).
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <cupti.h>

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#undef cuGetProcAddress

namespace {

using RaiseFn = void (*)(CUpti_CallbackId, const char *, void *, CUresult, const char *);
std::atomic<RaiseFn> Raise{nullptr};

/// Kernel names by handle: a few kernels per test, written before their
/// first launch and read by any thread.
struct KernelName {
  std::atomic<CUfunction> Function{nullptr};
  std::atomic<const char *> Name{nullptr};
};
KernelName Names[64];

const char *nameOf(const void *Function) {
  for (const KernelName &K : Names) {
    CUfunction F = K.Function.load(std::memory_order_acquire);
    if (!F)
      return nullptr;
    if (F == Function)
      return K.Name.load(std::memory_order_acquire);
  }
  return nullptr;
}

/// What the next wrapped call of this thread returns (fakeDriverSetResult);
/// the thread-local is read only once a failure was set in the process, so
/// that the benchmarks' successful calls do not pay for its lookup.
thread_local CUresult NextResult = CUDA_SUCCESS;
std::atomic<bool> AnyResultSet{false};

/// The mutex passes each call makes, as the real driver locks its own state
/// (about 4 a call on an H200: bench/runtime/README.md). From
/// STREAMLIFE_FAKE_DRIVER_LOCKS, read at load; 0 by default.
const int DriverLockPasses = [] {
  const char *Env = std::getenv("STREAMLIFE_FAKE_DRIVER_LOCKS");
  return Env ? std::atoi(Env) : 0;
}();
pthread_mutex_t DriverState = PTHREAD_MUTEX_INITIALIZER;

/// With lock passes, the driver also keeps a thread of its own, asleep, as
/// the real one does from cuInit: glibc takes a cheaper lock path in a
/// process with one thread (measured here: 4-5 ns a lock pass), which a
/// CUDA process never has, so without it the benchmark's plain run, and the
/// validator's run without its replay thread, would lock faster than any
/// real program can.
void *driverThread(void *) {
  for (;;)
    pause();
  return nullptr;
}
const bool DriverThreadStarted = [] {
  if (DriverLockPasses <= 0)
    return false;
  pthread_t Thread;
  if (pthread_create(&Thread, nullptr, driverThread, nullptr) != 0)
    return false;
  pthread_detach(Thread);
  return true;
}();

CUresult raised(CUpti_CallbackId Cbid, const char *Name, void *Params, const char *Symbol = nullptr) {
  for (int I = 0; I < DriverLockPasses; ++I) {
    pthread_mutex_lock(&DriverState);
    pthread_mutex_unlock(&DriverState);
  }
  CUresult Result = CUDA_SUCCESS;
  if (AnyResultSet.load(std::memory_order_relaxed)) {
    Result = NextResult;
    NextResult = CUDA_SUCCESS;
  }
  if (RaiseFn F = Raise.load(std::memory_order_acquire))
    F(Cbid, Name, Params, Result, Symbol);
  return Result;
}

} // namespace

extern "C" {

/// The fake CUPTI's way to raise a driver call's callbacks (it connects at load).
void fakeDriverConnect(RaiseFn F) { Raise.store(F, std::memory_order_release); }

/// The result of the calling thread's next call of a function below.
void fakeDriverSetResult(CUresult Result) {
  AnyResultSet.store(true, std::memory_order_relaxed);
  NextResult = Result;
}

/// Names kernel F (a program's or a library's, before it launches it).
void fakeDriverNameKernel(CUfunction F, const char *Name) {
  for (KernelName &K : Names) {
    CUfunction Seen = K.Function.load(std::memory_order_acquire);
    if (!Seen) {
      K.Name.store(Name, std::memory_order_release);
      if (K.Function.compare_exchange_strong(Seen, F) || Seen == F) {
        K.Name.store(Name, std::memory_order_release);
        return;
      }
      continue;
    }
    if (Seen == F) {
      K.Name.store(Name, std::memory_order_release);
      return;
    }
  }
}

CUresult cuDriverGetVersion(int *Version) {
  *Version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *Ctx) {
  *Ctx = reinterpret_cast<CUcontext>(0xc0); // the fake CUPTI's context
  return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **Name, CUkernel Kernel) {
  *Name = nameOf(Kernel);
  return *Name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuFuncGetName(const char **Name, CUfunction Function) {
  *Name = nameOf(Function);
  return *Name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

#define FAKE_LAUNCH_KERNEL(Name)                                                                   \
  CUresult Name(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,            \
                unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ, unsigned sharedMemBytes, \
                CUstream hStream, void **kernelParams, void **extra) {                            \
    Name##_params P{f,         gridDimX,       gridDimY, gridDimZ,     blockDimX, blockDimY,      \
                    blockDimZ, sharedMemBytes, hStream,  kernelParams, extra};                    \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P, nameOf(f));                           \
  }
FAKE_LAUNCH_KERNEL(cuLaunchKernel)
FAKE_LAUNCH_KERNEL(cuLaunchKernel_ptsz)

#define FAKE_LAUNCH_KERNEL_EX(Name)                                                                \
  CUresult Name(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra) {   \
    Name##_params P{config, f, kernelParams, extra};                                               \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P, nameOf(f));                           \
  }
FAKE_LAUNCH_KERNEL_EX(cuLaunchKernelEx)
FAKE_LAUNCH_KERNEL_EX(cuLaunchKernelEx_ptsz)

#define FAKE_EVENT_RECORD(Name)                                                                    \
  CUresult Name(CUevent hEvent, CUstream hStream) {                                                \
    Name##_params P{hEvent, hStream};                                                              \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P);                                      \
  }
FAKE_EVENT_RECORD(cuEventRecord)
FAKE_EVENT_RECORD(cuEventRecord_ptsz)

#define FAKE_EVENT_RECORD_WITH_FLAGS(Name)                                                         \
  CUresult Name(CUevent hEvent, CUstream hStream, unsigned flags) {                                \
    Name##_params P{hEvent, hStream, flags};                                                       \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P);                                      \
  }
FAKE_EVENT_RECORD_WITH_FLAGS(cuEventRecordWithFlags)
FAKE_EVENT_RECORD_WITH_FLAGS(cuEventRecordWithFlags_ptsz)

#define FAKE_STREAM_WAIT_EVENT(Name)                                                               \
  CUresult Name(CUstream hStream, CUevent hEvent, unsigned Flags) {                                \
    Name##_params P{hStream, hEvent, Flags};                                                       \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P);                                      \
  }
FAKE_STREAM_WAIT_EVENT(cuStreamWaitEvent)
FAKE_STREAM_WAIT_EVENT(cuStreamWaitEvent_ptsz)

#define FAKE_MEM_ALLOC_ASYNC(Name)                                                                 \
  CUresult Name(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {                            \
    Name##_params P{dptr, bytesize, hStream};                                                      \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P);                                      \
  }
FAKE_MEM_ALLOC_ASYNC(cuMemAllocAsync)
FAKE_MEM_ALLOC_ASYNC(cuMemAllocAsync_ptsz)

#define FAKE_MEM_ALLOC_FROM_POOL_ASYNC(Name)                                                       \
  CUresult Name(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {         \
    Name##_params P{dptr, bytesize, pool, hStream};                                                \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P);                                      \
  }
FAKE_MEM_ALLOC_FROM_POOL_ASYNC(cuMemAllocFromPoolAsync)
FAKE_MEM_ALLOC_FROM_POOL_ASYNC(cuMemAllocFromPoolAsync_ptsz)

#define FAKE_MEM_FREE_ASYNC(Name)                                                                  \
  CUresult Name(CUdeviceptr dptr, CUstream hStream) {                                              \
    Name##_params P{dptr, hStream};                                                                \
    return raised(CUPTI_DRIVER_TRACE_CBID_##Name, #Name, &P);                                      \
  }
FAKE_MEM_FREE_ASYNC(cuMemFreeAsync)
FAKE_MEM_FREE_ASYNC(cuMemFreeAsync_ptsz)

CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int, cuuint64_t Flags,
                             CUdriverProcAddressQueryResult *Status);

CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int Version, cuuint64_t Flags) {
  return cuGetProcAddress_v2(Symbol, Pfn, Version, Flags, nullptr);
}

CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int, cuuint64_t Flags,
                             CUdriverProcAddressQueryResult *Status) {
  struct Row {
    const char *Name;
    void *Legacy, *PerThread;
  };
  static const Row Table[] = {
      {"cuLaunchKernel", reinterpret_cast<void *>(&cuLaunchKernel), reinterpret_cast<void *>(&cuLaunchKernel_ptsz)},
      {"cuLaunchKernelEx", reinterpret_cast<void *>(&cuLaunchKernelEx),
       reinterpret_cast<void *>(&cuLaunchKernelEx_ptsz)},
      {"cuEventRecord", reinterpret_cast<void *>(&cuEventRecord), reinterpret_cast<void *>(&cuEventRecord_ptsz)},
      {"cuEventRecordWithFlags", reinterpret_cast<void *>(&cuEventRecordWithFlags),
       reinterpret_cast<void *>(&cuEventRecordWithFlags_ptsz)},
      {"cuStreamWaitEvent", reinterpret_cast<void *>(&cuStreamWaitEvent),
       reinterpret_cast<void *>(&cuStreamWaitEvent_ptsz)},
      {"cuMemAllocAsync", reinterpret_cast<void *>(&cuMemAllocAsync), reinterpret_cast<void *>(&cuMemAllocAsync_ptsz)},
      {"cuMemAllocFromPoolAsync", reinterpret_cast<void *>(&cuMemAllocFromPoolAsync),
       reinterpret_cast<void *>(&cuMemAllocFromPoolAsync_ptsz)},
      {"cuMemFreeAsync", reinterpret_cast<void *>(&cuMemFreeAsync), reinterpret_cast<void *>(&cuMemFreeAsync_ptsz)},
      {"cuGetProcAddress", reinterpret_cast<void *>(&cuGetProcAddress_v2), nullptr},
      {"cuDriverGetVersion", reinterpret_cast<void *>(&cuDriverGetVersion), nullptr},
      {"cuCtxGetCurrent", reinterpret_cast<void *>(&cuCtxGetCurrent), nullptr},
  };
  for (const Row &R : Table)
    if (std::strcmp(R.Name, Symbol) == 0) {
      bool PerThread = (Flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && R.PerThread;
      *Pfn = PerThread ? R.PerThread : R.Legacy;
      if (Status)
        *Status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *Pfn = nullptr;
  if (Status)
    *Status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

CUresult cuCtxGetDevice(CUdevice *Device) {
  *Device = 0;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream, unsigned int *Flags) {
  *Flags = CU_STREAM_NON_BLOCKING;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetPriority(CUstream, int *Priority) {
  *Priority = 0;
  return CUDA_SUCCESS;
}

// Stream 0x8000 is capturing into a graph.
CUresult cuStreamIsCapturing(CUstream Stream, CUstreamCaptureStatus *Status) {
  *Status = reinterpret_cast<unsigned long>(Stream) == 0x8000 ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                               : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult cuKernelGetParamInfo(CUkernel Kernel, size_t Index, size_t *Offset, size_t *Size) {
  if (reinterpret_cast<unsigned long>(Kernel) == 0x4000) {
    // multi_tensor_apply_kernel<TensorListMetadata<2>, ...>: the metadata struct.
    if (Index >= 1)
      return CUDA_ERROR_INVALID_VALUE;
    *Offset = 0;
    *Size = 3144;
    return CUDA_SUCCESS;
  }
  if (reinterpret_cast<unsigned long>(Kernel) == 0x5000) {
    static const size_t Offsets[] = {0, 8, 16, 24}, Sizes[] = {8, 8, 8, 4};
    if (Index >= 4)
      return CUDA_ERROR_INVALID_VALUE;
    *Offset = Offsets[Index];
    *Size = Sizes[Index];
    return CUDA_SUCCESS;
  }
  if (reinterpret_cast<unsigned long>(Kernel) != 0x1000)
    return CUDA_ERROR_INVALID_HANDLE;
  static const size_t Offsets[] = {0, 8, 16}, Sizes[] = {8, 8, 4};
  if (Index >= 3)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = Offsets[Index];
  *Size = Sizes[Index];
  return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction Function, size_t Index, size_t *Offset, size_t *Size) {
  if (reinterpret_cast<unsigned long>(Function) != 0x2000)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Index >= 1)
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = 0;
  *Size = 24;
  return CUDA_SUCCESS;
}

} // extern "C"
