//===- launch_decode_cost.cpp - decoding one launch's parameters, per family ===//
//
// What the "parameter decoding" and "kernel first sight" rows of the
// self-profile pay, without a GPU: the parameter blocks PyTorch's kernels pass
// (the mirrors of test/unit/runtime/TorchKernelParams.h, stale pointers where
// PyTorch leaves them) decoded by launchPointerWords, the very code a launch
// runs (intercept/LaunchWords.h), and a kernel's first sight
// (KernelInfoCache::get: the driver's parameter layout, faked here, the
// demangling of a real PyTorch symbol, the names interned and the plan chosen).
//
//   launch_decode_cost [--launches N] [--family NAME] [--engine]
//
// NAME is one of the families below or "first-sight" (each of the K kernels
// seen once, K = N); by default all run. --engine hands each decoded launch
// to the engine as well (Engine::launchedWithPointerWords, on one stream,
// every pointer a live caching-allocator block among 4096), the rest of what
// a launch costs past its parameters. Prints one line per family:
//   launch_decode_cost: family=F plan=P words=W ns_per_call=X
// Times move with the machine's load; for instructions run one family under
// `valgrind --tool=callgrind` at two N and divide the difference by it.
// Exit 0; 1 when a family decodes to the wrong plan; 2 on bad usage.
//
//===----------------------------------------------------------------------===//
#include "intercept/CudaLibraries.h"
#include "intercept/LaunchWords.h"

#include "engine/Engine.h"

#include "TorchKernelParams.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace streamlife::rt;
using namespace streamlife::rt::torch_params;

namespace {

/// One kernel as the driver and CUPTI describe it, and one launch's bytes.
struct Family {
  const char *Name;          ///< as the benchmark calls it
  const char *ExpectedPlan;  ///< the plan family it must get
  const char *Symbol;        ///< the mangled name CUPTI gives
  std::vector<ParamSlot> Layout;
  std::vector<void *> Params; ///< kernelParams
  LaunchGrid Grid;
};

// The launches' parameter storage (kernelParams point into it).
int Numel = 4096;
std::array<char *, 3> Data3 = {reinterpret_cast<char *>(Live + 0x10), reinterpret_cast<char *>(Live + 0x20),
                               reinterpret_cast<char *>(Live + 0x30)};
struct AddFunctor {
  float alpha;
} Add{1};
struct DirectCopyLambda {
  OffsetCalc<2> offset_calc;
  std::array<char *, 2> data;
  char f;
} DirectCopy;
ReduceOpMirror<float> Reduce;
TensorListMeta<2, 64> Foreach;
struct CutlassParams { // a by-value params struct of a kernel no plan knows
  int m, n, k, batch;
  const float *a, *b;
  float *c;
  long lda, ldb, ldc;
  float alpha, beta;
} Gemm;
float *Gamma = reinterpret_cast<float *>(Live + 0x5000), *Mean = reinterpret_cast<float *>(Live + 0x6000),
      *Grad = reinterpret_cast<float *>(Live + 0x7000);

std::vector<Family> families() {
  fillCalculator(DirectCopy.offset_calc, 2);
  DirectCopy.data = {reinterpret_cast<char *>(Live + 0x40), reinterpret_cast<char *>(Live + 0x50)};
  fillReduce(Reduce, 1);
  fillThreeTensorLaunch(Foreach, 2);
  Gemm = CutlassParams{64, 64, 64, 1, reinterpret_cast<const float *>(Live + 0x1000),
                       reinterpret_cast<const float *>(Live + 0x2000), reinterpret_cast<float *>(Live + 0x3000),
                       64, 64, 64, 1.0f, 0.0f};
  return {
      {"vectorized-elementwise", "tensor_iterator_elementwise",
       "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
       {{0, 4}, {4, 4}, {8, 24}},
       {&Numel, &Add, &Data3},
       {16, 1, 1}},
      {"legacy-elementwise", "tensor_iterator_elementwise",
       "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_"
       "cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_",
       {{0, 4}, {8, sizeof(DirectCopy)}},
       {&Numel, &DirectCopy},
       {16, 1, 1}},
      {"reduce", "tensor_iterator_reduce",
       "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_"
       "14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_",
       {{0, sizeof(Reduce)}},
       {&Reduce},
       {1, 1, 1}},
      {"multi-tensor-apply", "multi_tensor_apply",
       "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_"
       "kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_"
       "T0_DpT1_",
       {{0, sizeof(Foreach)}},
       {&Foreach},
       {4, 1, 1}},
      {"generic-pointers", "generic",
       "_ZN2at6native53_GLOBAL__N__87a90936_20_layer_norm_kernel_cu_3ff0b71f39layer_norm_grad_input_kernel_"
       "vectorizedIffLb0EEEvPKT_S5_PKT0_S8_S5_PS3_i",
       {{0, 8}, {8, 8}, {16, 8}, {24, 4}},
       {&Grad, &Gamma, &Mean, &Numel},
       {64, 1, 1}},
      {"generic-struct", "generic", "_ZN7cutlass6KernelI10GemmKernelEEvNT_6ParamsE", {{0, sizeof(Gemm)}}, {&Gemm},
       {8, 8, 1}},
  };
}

// The fake driver's answers for first sight: kernel handle I + 1 has the
// layout of family I % families.
std::vector<Family> *Known = nullptr;

CUresult paramInfo(CUkernel Kernel, size_t Index, size_t *Offset, size_t *Size) {
  std::size_t Handle = reinterpret_cast<std::size_t>(Kernel);
  if (!Known || Handle == 0)
    return CUDA_ERROR_INVALID_HANDLE;
  const Family &F = (*Known)[(Handle - 1) % Known->size()];
  if (Index >= F.Layout.size())
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = F.Layout[Index].Offset;
  *Size = F.Layout[Index].Size;
  return CUDA_SUCCESS;
}

struct IgnoreFindings : FindingSink {
  void report(const Finding &) override {}
};

/// An engine with one stream and 4096 live 16-byte blocks from Live on: every
/// pointer the families decode is inside one of them.
struct EngineUnderTest {
  EngineUnderTest() : E(Sink) {
    StreamDesc D;
    D.StreamHandle = 0x5000;
    D.Flavor = StreamFlavor::NonBlocking;
    S = E.stream(1, D);
    for (Addr Block = 0; Block < 4096; ++Block)
      E.allocated(1, Range{Live + 16 * Block, 16}, AllocKind::CachingAllocator, S, /*Site=*/1, 0);
  }
  IgnoreFindings Sink;
  Engine E;
  StreamId S = NoStream;
};

double nsPerCall(long N, const std::function<void(long)> &Body) {
  auto Start = std::chrono::steady_clock::now();
  for (long I = 0; I < N; ++I)
    Body(I);
  auto End = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(End - Start).count() / double(N);
}

} // namespace

int main(int Argc, char **Argv) {
  long N = 200000;
  std::string Only;
  bool WithEngine = false;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--launches") && I + 1 < Argc) {
      N = std::atol(Argv[++I]);
    } else if (!std::strcmp(Argv[I], "--family") && I + 1 < Argc) {
      Only = Argv[++I];
    } else if (!std::strcmp(Argv[I], "--engine")) {
      WithEngine = true;
    } else {
      std::fprintf(stderr, "error: unknown option '%s'\nusage: %s [--launches N] [--family NAME] [--engine]\n", Argv[I],
                   Argv[0]);
      return 2;
    }
  }
  if (N <= 0) {
    std::fprintf(stderr, "error: --launches must be positive\n");
    return 2;
  }
  std::vector<Family> All = families();
  Known = &All;
  DriverApi Driver;
  Driver.KernelGetParamInfo = paramInfo;
  OpTable Ops;
  bool Ran = false;
  for (std::size_t F = 0; F < All.size(); ++F) {
    const Family &Fam = All[F];
    if (!Only.empty() && Only != Fam.Name)
      continue;
    Ran = true;
    KernelInfoCache Kernels(Driver);
    const KernelInfo *Info = Kernels.get(reinterpret_cast<void *>(F + 1), Fam.Symbol, Ops);
    std::vector<PointerWord> Words;
    LaunchDecoding First = launchPointerWords(*Info, Fam.Params.data(), nullptr, Fam.Grid, Words);
    if (!First.Family || std::strcmp(First.Family, Fam.ExpectedPlan) != 0) {
      std::fprintf(stderr, "error: %s decoded by plan '%s', expected '%s'\n", Fam.Name,
                   First.Family ? First.Family : "none", Fam.ExpectedPlan);
      return 1;
    }
    std::size_t Count = Words.size();
    std::unique_ptr<EngineUnderTest> Eng;
    if (WithEngine)
      Eng = std::make_unique<EngineUnderTest>();
    double Ns = nsPerCall(N, [&](long) {
      launchPointerWords(*Info, Fam.Params.data(), nullptr, Fam.Grid, Words);
      if (Eng)
        Eng->E.launchedWithPointerWords(1, Eng->S, Words.data(), Words.size(), /*Op=*/2, /*GenericOp=*/3);
    });
    std::printf("launch_decode_cost: family=%s plan=%s words=%zu%s ns_per_call=%.1f\n", Fam.Name, First.Family,
                Count, WithEngine ? " with-engine" : "", Ns);
  }
  if (Only.empty() || Only == "first-sight") {
    Ran = true;
    KernelInfoCache Kernels(Driver);
    double Ns = nsPerCall(N, [&](long I) {
      const Family &Fam = All[static_cast<std::size_t>(I) % All.size()];
      Kernels.get(reinterpret_cast<void *>(I + 1), Fam.Symbol, Ops);
    });
    std::printf("launch_decode_cost: family=first-sight kernels=%ld ns_per_call=%.1f\n", N, Ns);
  }
  if (!Ran) {
    std::fprintf(stderr, "error: no family '%s'\n", Only.c_str());
    return 2;
  }
  return 0;
}
