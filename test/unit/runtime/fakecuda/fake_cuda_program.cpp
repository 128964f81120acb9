//===- fake_cuda_program.cpp - plays a CUDA program's driver calls --------===//
//
// Usage: fake_cuda_program SCENARIO. Drives libstreamlife_rt.so through the fake
// CUPTI (FakeCupti.cpp, found through $STREAMLIFE_CUPTI_LIBRARY) with the
// driver calls a CUDA program would make, so that the interceptors, the engine
// and the reports are tested end to end without a GPU. Each scenario mirrors a
// pattern from examples/cuda; see run-fake-cuda.test for the expectations.
//
//===----------------------------------------------------------------------===//
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using CallFn = void (*)(CUpti_CallbackId, const char *, void *, CUresult, const char *);
CallFn Call = nullptr;

CUstream const StreamA = reinterpret_cast<CUstream>(0x5000);
CUstream const StreamB = reinterpret_cast<CUstream>(0x6000);
CUevent const Event1 = reinterpret_cast<CUevent>(0x7100);
CUevent const Event2 = reinterpret_cast<CUevent>(0x7200);
CUfunction const Kernel3Params = reinterpret_cast<CUfunction>(0x1000);
CUfunction const KernelStruct = reinterpret_cast<CUfunction>(0x2000);
CUfunction const KernelUnknown = reinterpret_cast<CUfunction>(0x3000);
constexpr CUdeviceptr Buffer = 0x7f0000000000;
constexpr CUdeviceptr Output = 0x7f1000000000;
constexpr CUdeviceptr Stale = 0x7f2000000000;
constexpr CUdeviceptr GraphOutput = 0x7f3000000000;
constexpr CUdeviceptr Next = 0x7f4000000000;
constexpr CUdeviceptr Workspace = 0x7f5000000000;
CUfunction const KernelForeach = reinterpret_cast<CUfunction>(0x4000);
constexpr size_t Bytes = 4096;

void createStream(CUstream S) {
  CUstream Out = S;
  cuStreamCreate_params P{&Out, CU_STREAM_NON_BLOCKING};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, "cuStreamCreate", &P, CUDA_SUCCESS, nullptr);
}

void allocAsync(CUdeviceptr Ptr, CUstream S) {
  CUdeviceptr Out = Ptr;
  cuMemAllocAsync_params P{&Out, Bytes, S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, "cuMemAllocAsync", &P, CUDA_SUCCESS, nullptr);
}

void allocAsyncSized(CUdeviceptr Ptr, size_t Size, CUstream S) {
  CUdeviceptr Out = Ptr;
  cuMemAllocAsync_params P{&Out, Size, S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, "cuMemAllocAsync", &P, CUDA_SUCCESS, nullptr);
}

/// cuMemAllocFromPoolAsync from an explicit pool; Result is what the driver
/// answers (a failed allocation hands out nothing).
void allocFromPoolAsync(CUdeviceptr Ptr, CUstream S, CUresult Result = CUDA_SUCCESS) {
  CUdeviceptr Out = Ptr;
  cuMemAllocFromPoolAsync_params P{&Out, Bytes, reinterpret_cast<CUmemoryPool>(0x9100), S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", &P, Result, nullptr);
}

void allocSync(CUdeviceptr Ptr) {
  CUdeviceptr Out = Ptr;
  cuMemAlloc_v2_params P{&Out, Bytes};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &P, CUDA_SUCCESS, nullptr);
}

void freeAsync(CUdeviceptr Ptr, CUstream S) {
  cuMemFreeAsync_params P{Ptr, S};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, "cuMemFreeAsync", &P, CUDA_SUCCESS, nullptr);
}

/// The next cuMemAllocAsync on S after a free: the pool may hand it the block
/// just freed. A stream-ordered free is judged at the free itself
/// (engine/DeferredFrees.cpp); the allocation shows that nothing changes then.
void nextAllocation(CUstream S) { allocAsync(Next, S); }

void freeSync(CUdeviceptr Ptr) {
  cuMemFree_v2_params P{Ptr};
  Call(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", &P, CUDA_SUCCESS, nullptr);
}

/// Makes Waiter wait for everything enqueued on Producer so far.
void order(CUstream Waiter, CUstream Producer, CUevent E) {
  cuEventRecord_params R{E, Producer};
  Call(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", &R, CUDA_SUCCESS, nullptr);
  cuStreamWaitEvent_params W{Waiter, E, 0};
  Call(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &W, CUDA_SUCCESS, nullptr);
}

void launch(CUfunction F, CUstream S, void **Params, void **Extra, const char *Name) {
  cuLaunchKernel_params P{F, 1, 1, 1, 32, 1, 1, 0, S, Params, Extra};
  Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &P, CUDA_SUCCESS, Name);
}

/// consume(const float *in, float *out, int n) on S, reading Ptr.
void consume(CUdeviceptr Ptr, CUstream S) {
  CUdeviceptr In = Ptr, Out = Output;
  int N = 1024;
  void *Params[] = {&In, &Out, &N};
  launch(Kernel3Params, S, Params, nullptr, "_Z7consumePKfPfi");
}

/// A function of the stand-in libtorch_cuda.so (FakeTorchCuda.cpp), loaded the
/// way Python loads torch: RTLD_LOCAL, so its libnccl.so.2 stays out of the
/// global scope.
template <typename Fn> Fn fakeTorch(const char *Name) {
  void *Lib = dlopen("libfaketorchcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    std::fprintf(stderr, "fake_cuda_program: %s\n", dlerror());
    std::exit(2);
  }
  return reinterpret_cast<Fn>(dlsym(Lib, Name));
}

/// Exits like a training script when a collective fails.
void ncclChecked(int Rc) {
  if (Rc != 0) {
    std::fprintf(stderr, "fake_cuda_program: NCCL error %d\n", Rc);
    std::exit(1);
  }
}

/// Exits like a training script when a math-library call fails.
void libraryChecked(int Rc) {
  if (Rc != 0) {
    std::fprintf(stderr, "fake_cuda_program: library error %d\n", Rc);
    std::exit(1);
  }
}

template <typename Fn> __attribute__((noinline)) void deep(int Depth, const Fn &F) {
  if (Depth <= 0)
    F();
  else
    deep(Depth - 1, F);
  __asm__ __volatile__("" ::: "memory"); // keeps every level's frame
}

void syncDevice() {
  // cuCtxSynchronize has no parameters.
  Call(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", nullptr, CUDA_SUCCESS, nullptr);
}

void prologue() {
  createStream(StreamA);
  createStream(StreamB);
  allocSync(Output);
  allocAsync(Buffer, StreamA);
  order(StreamB, StreamA, Event1);
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Scenario = Argc > 1 ? Argv[1] : "";
  if (Scenario == "none") {
    std::puts("ran");
    return 0;
  }
  const char *Cupti = std::getenv("STREAMLIFE_CUPTI_LIBRARY");
  void *Lib = Cupti ? dlopen(Cupti, RTLD_NOW) : nullptr;
  Call = Lib ? reinterpret_cast<CallFn>(dlsym(Lib, "fakeCuptiCall")) : nullptr;
  if (!Call) {
    std::fprintf(stderr, "fake_cuda_program: set STREAMLIFE_CUPTI_LIBRARY to the fake CUPTI\n");
    return 2;
  }

  if (Scenario == "unsafe-free" || Scenario == "abort") {
    // no_lifetime_management: consumer on B, free on A with no wait.
    prologue();
    consume(Buffer, StreamB);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
    if (Scenario == "abort")
      std::abort();
  } else if (Scenario == "unsafe-free-ex") {
    // unsafe-free with the calls Triton's launcher and newer runtimes make:
    // the producer is ordered with cuEventRecordWithFlags, the consumer
    // launched with cuLaunchKernelEx.
    createStream(StreamA);
    createStream(StreamB);
    allocSync(Output);
    allocAsync(Buffer, StreamA);
    cuEventRecordWithFlags_params R{Event1, StreamA, CU_EVENT_RECORD_DEFAULT};
    Call(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, "cuEventRecordWithFlags", &R, CUDA_SUCCESS, nullptr);
    cuStreamWaitEvent_params W{StreamB, Event1, 0};
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &W, CUDA_SUCCESS, nullptr);
    CUdeviceptr In = Buffer, Out = Output;
    int N = 1024;
    void *Params[] = {&In, &Out, &N};
    CUlaunchConfig Config{};
    Config.gridDimX = Config.gridDimY = Config.gridDimZ = 1;
    Config.blockDimX = 32;
    Config.blockDimY = Config.blockDimZ = 1;
    Config.hStream = StreamB;
    cuLaunchKernelEx_params L{&Config, Kernel3Params, Params, nullptr};
    Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx", &L, CUDA_SUCCESS, "_Z7consumePKfPfi");
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "local-default-lookup") {
    // A library loaded RTLD_LOCAL looks up its own dependency's function
    // with dlsym(RTLD_DEFAULT) (the validator's dlsym must keep the caller).
    auto Sees = fakeTorch<int (*)()>("fakeTorchSeesItsNccl");
    std::printf("default lookup from a local library: %s\n", Sees() ? "found" : "not found");
  } else if (Scenario == "loop") {
    // The same bug ten times from the same call sites: one finding.
    createStream(StreamA);
    createStream(StreamB);
    allocSync(Output);
    for (int I = 0; I < 10; ++I) {
      allocAsync(Buffer + I * 0x10000, StreamA);
      order(StreamB, StreamA, Event1);
      consume(Buffer + I * 0x10000, StreamB);
      freeAsync(Buffer + I * 0x10000, StreamA);
    }
  } else if (Scenario == "ordered") {
    // stall_producer: wait on the consumer, then free (and allocate again).
    prologue();
    consume(Buffer, StreamB);
    order(StreamA, StreamB, Event2);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "pool-unsafe-free" || Scenario == "pool-ordered") {
    // unsafe-free and ordered from an explicit pool, after an allocation the
    // driver refused: the refused address is used and freed unordered, which
    // is no finding, since no allocation was made there.
    createStream(StreamA);
    createStream(StreamB);
    allocSync(Output);
    allocFromPoolAsync(Workspace, StreamA, CUDA_ERROR_OUT_OF_MEMORY);
    consume(Workspace, StreamB);
    freeAsync(Workspace, StreamA);
    allocFromPoolAsync(Buffer, StreamA);
    order(StreamB, StreamA, Event1);
    consume(Buffer, StreamB);
    if (Scenario == "pool-ordered")
      order(StreamA, StreamB, Event2);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "wait-before-reuse" || Scenario == "reuse-before-wait") {
    // The wait on the consumer comes after the free: a use-after-free by
    // CUDA's contract whether the next allocation comes before the wait or
    // after it (examples/python/wait_after_del.py).
    prologue();
    consume(Buffer, StreamB);
    freeAsync(Buffer, StreamA);
    if (Scenario == "reuse-before-wait")
      nextAllocation(StreamA);
    order(StreamA, StreamB, Event2);
    if (Scenario == "wait-before-reuse")
      nextAllocation(StreamA);
  } else if (Scenario == "struct") {
    // A by-value struct {int n; float *in; float *out;} through cuFuncGetParamInfo.
    prologue();
    struct {
      long N;
      CUdeviceptr In, Out;
    } Args{1024, Buffer + 256, Output};
    void *Params[] = {&Args};
    launch(KernelStruct, StreamB, Params, nullptr, "_Z7structK4Args");
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "extra") {
    // A packed argument buffer (CU_LAUNCH_PARAM_BUFFER_POINTER).
    prologue();
    CUdeviceptr Packed[3] = {Buffer, Output, 1024};
    size_t Size = sizeof(Packed);
    void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &Size,
                     CU_LAUNCH_PARAM_END};
    launch(Kernel3Params, StreamB, nullptr, Extra, "_Z7consumePKfPfi");
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "unknown-params") {
    // The driver cannot describe this kernel: said, not silently passed.
    prologue();
    CUdeviceptr In = Buffer;
    void *Params[] = {&In};
    launch(KernelUnknown, StreamB, Params, nullptr, "_Z7unknownPf");
    freeAsync(Buffer, StreamA);
  } else if (Scenario == "sync-free") {
    // cudaMalloc + cudaFree: the free synchronizes the device first.
    createStream(StreamB);
    allocSync(Buffer);
    consume(Buffer, StreamB);
    freeSync(Buffer);
  } else if (Scenario == "host-synced") {
    // The host synchronized the device before the stream-ordered free.
    prologue();
    consume(Buffer, StreamB);
    syncDevice();
    freeAsync(Buffer, StreamA);
  } else if (Scenario == "unsafe-free-exit5") {
    // The bug, then _exit(5): no exit handlers run, so --error-exitcode is
    // only seen by the launcher (through the tally).
    prologue();
    consume(Buffer, StreamB);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
    std::puts("ran");
    std::fflush(nullptr);
    _exit(5);
  } else if (Scenario == "exec-after-finding") {
    // A finding, then exec() of a clean CUDA program in the same process (a
    // wrapper that execs the real job): the new image keeps the pid.
    prologue();
    consume(Buffer, StreamB);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
    std::fflush(nullptr);
    execl("/proc/self/exe", Argv[0], "ordered", static_cast<char *>(nullptr));
    std::perror("fake_cuda_program: exec");
    return 2;
  } else if (Scenario == "torch-alloc") {
    // PyTorch's first segment: cuMemAlloc while libc10_cuda.so (argv[2], a
    // stand-in in a torch-like tree) is loaded makes the validator load or
    // build the allocator feed.
    if (Argc < 3 || !dlopen(Argv[2], RTLD_NOW | RTLD_GLOBAL)) {
      std::fprintf(stderr, "fake_cuda_program: torch-alloc needs a loadable libc10_cuda.so: %s\n",
                   Argc < 3 ? "none given" : dlerror());
      return 2;
    }
    allocSync(Buffer);
  } else if (Scenario == "fork") {
    // A finding, then a forked child that exits normally: one summary only.
    prologue();
    consume(Buffer, StreamB);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
    std::fflush(nullptr);
    pid_t Child = fork();
    if (Child == 0)
      std::exit(0);
    int Status = 0;
    waitpid(Child, &Status, 0);
  } else if (Scenario == "threads") {
    // Eight threads, each with its own stream, allocate, launch and free in
    // stream order concurrently: correct, and nothing may deadlock.
    std::vector<std::thread> Threads;
    for (int T = 0; T < 8; ++T)
      Threads.emplace_back([T] {
        CUstream S = reinterpret_cast<CUstream>(0x10000 + T * 0x100);
        createStream(S);
        for (int I = 0; I < 2000; ++I) {
          CUdeviceptr P = Buffer + (T * 2000 + I) * 0x10000ull;
          allocAsync(P, S);
          consume(P, S);
          freeAsync(P, S);
        }
      });
    for (std::thread &T : Threads)
      T.join();
  } else if (Scenario == "capture") {
    // A capturing stream's work goes into a graph, not onto the GPU: it is
    // not recorded as accesses (and said so), so the free is not racing it.
    CUstream Capturing = reinterpret_cast<CUstream>(0x8000);
    prologue();
    createStream(Capturing);
    cuStreamBeginCapture_v2_params B{Capturing, CU_STREAM_CAPTURE_MODE_GLOBAL};
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &B,
         CUDA_SUCCESS, nullptr);
    consume(Buffer, Capturing);
    CUgraph Graph = nullptr;
    cuStreamEndCapture_params End{Capturing, &Graph};
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &End, CUDA_SUCCESS,
         nullptr);
    freeAsync(Buffer, StreamA);
  } else if (Scenario == "capture-alloc") {
    // torch.cuda.graph: an output allocated while its stream captures is
    // graph memory; the eager stream reads it after a replay (issue 9's
    // false use-before-alloc).
    CUstream Capturing = reinterpret_cast<CUstream>(0x8000);
    prologue();
    createStream(Capturing);
    cuStreamBeginCapture_v2_params B{Capturing, CU_STREAM_CAPTURE_MODE_GLOBAL};
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &B,
         CUDA_SUCCESS, nullptr);
    allocAsync(GraphOutput, Capturing);
    CUgraph Graph = nullptr;
    cuStreamEndCapture_params End{Capturing, &Graph};
    Call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &End, CUDA_SUCCESS,
         nullptr);
    cuGraphLaunch_params G{reinterpret_cast<CUgraphExec>(0x9000), StreamB};
    Call(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &G, CUDA_SUCCESS, nullptr);
    consume(GraphOutput, StreamB);
  } else if (Scenario == "foreach-stale" || Scenario == "foreach-race") {
    // A _foreach_ launch over one tensor whose metadata struct still holds the
    // pointer of a tensor of an earlier launch (stale slot 1): not an access,
    // so freeing that tensor on its own stream afterwards is no race.
    // foreach-race frees the launch's own tensor on the other stream without a
    // wait: the decoded slot is an access.
    prologue();
    allocAsync(Stale, StreamA);
    unsigned char Meta[3144] = {};
    CUdeviceptr Slots[2][64] = {{Buffer, Stale}, {Output, Stale + 256}};
    std::memcpy(Meta, Slots, sizeof(Slots));
    long long Numel[2] = {1024, 1024};
    std::memcpy(Meta + 1024, Numel, sizeof(Numel)); // numel_for_tensor
    // block_to_tensor[0] = 0 and block_to_chunk[0] = 0 are already zero.
    void *Params[] = {Meta};
    launch(KernelForeach, StreamB, Params, nullptr,
           "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_"
           "kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_"
           "T0_DpT1_");
    freeAsync(Scenario == "foreach-race" ? Buffer : Stale, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "nccl-unsafe" || Scenario == "nccl-ordered") {
    // An all-reduce of the buffer on stream B, then its release on A, with
    // (ordered) or without a wait for B.
    prologue();
    auto AllReduce = fakeTorch<int (*)(void *, size_t, void *)>("fakeTorchAllReduce");
    ncclChecked(AllReduce(reinterpret_cast<void *>(Buffer), 256, StreamB));
    if (Scenario == "nccl-ordered")
      order(StreamA, StreamB, Event2);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "nccl-group") {
    // Point-to-point inside a group: recorded when the group ends (not at all
    // when ncclGroupEnd fails).
    prologue();
    auto SendRecv = fakeTorch<int (*)(void *, void *, size_t, void *)>("fakeTorchSendRecv");
    int Rc = SendRecv(reinterpret_cast<void *>(Buffer), reinterpret_cast<void *>(Buffer + 2048), 256, StreamB);
    if (!std::getenv("FAKE_NCCL_FAIL_GROUP"))
      ncclChecked(Rc);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "cublas-unsafe" || Scenario == "cublas-ordered") {
    // A float gemm on stream B reads A = Buffer (16 x 16) and B = Buffer+1 KiB;
    // the buffer is then released on A, without (unsafe) or after (ordered) a
    // wait for B. The access is the gemm, decoded at its API.
    prologue();
    auto Gemm = fakeTorch<int (*)(void *, void *, void *, void *, int, int, int, void *, size_t)>("fakeTorchGemm");
    libraryChecked(Gemm(StreamB, reinterpret_cast<void *>(Buffer), reinterpret_cast<void *>(Buffer + 1024),
                        reinterpret_cast<void *>(Output), 16, 16, 16, nullptr, 0));
    if (Scenario == "cublas-ordered")
      order(StreamA, StreamB, Event2);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "cublas-workspace") {
    // The handle's workspace (cublasSetWorkspace) is used by every gemm on it:
    // releasing it on another stream without a wait is the bug.
    prologue();
    allocAsync(Workspace, StreamA);
    order(StreamB, StreamA, Event1);
    auto Gemm = fakeTorch<int (*)(void *, void *, void *, void *, int, int, int, void *, size_t)>("fakeTorchGemm");
    libraryChecked(Gemm(StreamB, reinterpret_cast<void *>(Output), reinterpret_cast<void *>(Output + 1024),
                        reinterpret_cast<void *>(Output + 2048), 16, 16, 16, reinterpret_cast<void *>(Workspace),
                        Bytes));
    freeAsync(Workspace, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "cublaslt-bias" || Scenario == "cublaslt-bias-unused") {
    // cublasLtMatmul on B with Buffer as its bias: read under the BIAS
    // epilogue (then releasing it on A without a wait is the bug), not read
    // under the default epilogue although the pointer is set.
    prologue();
    auto Matmul = fakeTorch<int (*)(void *, void *, void *, void *, void *, int, int, int, int, void *, size_t)>(
        "fakeTorchLtMatmul");
    libraryChecked(Matmul(StreamB, reinterpret_cast<void *>(Output), reinterpret_cast<void *>(Output + 1024),
                          reinterpret_cast<void *>(Output + 2048), reinterpret_cast<void *>(Buffer),
                          Scenario == "cublaslt-bias", 16, 16, 16, nullptr, 0));
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "cublaslt-stale-param" || Scenario == "stale-param-direct") {
    // Under memory pressure, a block the library used as workspace on B is
    // released, ordered, and handed to an allocation on A. The next matmul on
    // B launches a split-K kernel whose parameters still hold the old
    // workspace: not an access, because the matmul's arguments say what it
    // touches. stale-param-direct launches the same kernel with the same
    // parameters outside any library call, where its words are all there is.
    prologue();
    allocAsync(Stale, StreamB);
    auto Matmul = fakeTorch<int (*)(void *, void *, void *, void *, void *, int, int, int, int, void *, size_t)>(
        "fakeTorchLtMatmul");
    void *In = reinterpret_cast<void *>(Output), *Out = reinterpret_cast<void *>(Output + 2048);
    libraryChecked(Matmul(StreamB, In, In, Out, nullptr, 0, 16, 16, 16, reinterpret_cast<void *>(Stale), Bytes));
    freeAsync(Stale, StreamB);
    order(StreamA, StreamB, Event2);
    allocAsync(Stale, StreamA); // the pool hands the block to stream A
    if (Scenario == "stale-param-direct") {
      CUdeviceptr D = Output + 2048, Word = Stale;
      int N = 1;
      void *Params[] = {&D, &Word, &N};
      launch(Kernel3Params, StreamB, Params, nullptr,
             "_ZN8cublasLt19splitKreduce_kernelILi32ELi16EifffLb0ELb0ELb0ELb1ELb0EEEvPKfPfi");
    } else {
      libraryChecked(Matmul(StreamB, In, In, Out, nullptr, 0, 16, 16, 16, nullptr, 0));
    }
  } else if (Scenario == "cudnn-unsafe" || Scenario == "cudnn-ordered") {
    // A convolution on stream B reads X = Buffer; it is released on A without
    // (unsafe) or after (ordered) a wait for B.
    prologue();
    auto Convolution = fakeTorch<int (*)(void *, void *, void *, void *, void *)>("fakeTorchConvolution");
    libraryChecked(Convolution(StreamB, reinterpret_cast<void *>(Buffer), reinterpret_cast<void *>(Output),
                               reinterpret_cast<void *>(Output + 2048), nullptr));
    if (Scenario == "cudnn-ordered")
      order(StreamA, StreamB, Event2);
    freeAsync(Buffer, StreamA);
    nextAllocation(StreamA);
  } else if (Scenario == "launch-loop") {
    // For profiling the validator's per-call cost (not a test): a correct
    // producer/consumer loop, FAKE_LOOP_ITERATIONS times (default 100000).
    const char *Env = std::getenv("FAKE_LOOP_ITERATIONS");
    long Iterations = Env ? std::atol(Env) : 100000;
    // PyTorch creates its stream pools (128 streams per device) up front.
    const char *Extra = std::getenv("FAKE_EXTRA_STREAMS");
    for (long I = 0, N = Extra ? std::atol(Extra) : 0; I < N; ++I)
      createStream(reinterpret_cast<CUstream>(0x100000 + I * 0x100));
    createStream(StreamA);
    createStream(StreamB);
    allocSync(Output);
    // Calls made FAKE_STACK_DEPTH frames deep, like a framework's.
    const char *DepthEnv = std::getenv("FAKE_STACK_DEPTH");
    int Depth = DepthEnv ? std::atoi(DepthEnv) : 0;
    // FAKE_FRAGMENT=1: blocks of varying size at varying offsets of one region,
    // as a stream-ordered pool hands out reused memory.
    bool Fragment = std::getenv("FAKE_FRAGMENT") != nullptr;
    for (long I = 0; I < Iterations; ++I)
      deep(Depth, [I, Fragment] {
        CUdeviceptr P = Buffer + (I % 64) * 0x100000ull;
        if (Fragment) {
          P = Buffer + ((I * 104729) % 256) * 4096;
          allocAsyncSized(P, 4096 * (1 + (I * 7919) % 256), StreamA);
        } else {
          allocAsync(P, StreamA);
        }
        order(StreamB, StreamA, Event1);
        consume(P, StreamB);
        order(StreamA, StreamB, Event2);
        freeAsync(P, StreamA);
      });
  } else if (Scenario == "graph") {
    createStream(StreamA);
    cuGraphLaunch_params G{reinterpret_cast<CUgraphExec>(0x9000), StreamA};
    Call(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &G, CUDA_SUCCESS, nullptr);
    Call(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &G, CUDA_SUCCESS, nullptr);
    cuLaunchHostFunc_params H{StreamA, nullptr, nullptr};
    Call(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", &H, CUDA_SUCCESS, nullptr);
  } else {
    std::fprintf(stderr, "fake_cuda_program: unknown scenario '%s'\n", Scenario.c_str());
    return 2;
  }
  std::puts("ran");
  return 0;
}
