//===- InterceptBlas.cpp - cuBLAS and cuBLASLt calls decoded at their API -===//
//
// Mechanism: interposition (Interposition.h), as for NCCL. A gemm's arguments
// name every matrix it reads and writes; the kernels cuBLAS launches for it
// carry parameter structs whose stale words are not accesses (a split-K
// reduction kernel of cuBLASLt held a pointer into a block released earlier,
// which read as an access made a false use-after-free under memory pressure).
// So each call below records, on its stream, exactly what its arguments say:
//   * cuBLAS gemms (typed, Ex, strided-batched, 64-bit): A, B, C as spans
//     (LibraryOperands.h), alpha and beta where they are device memory, and
//     the workspace the handle was given (cublasSetWorkspace), on the stream
//     it was given (cublasSetStream; cuBLAS resets the workspace to its own
//     pool when the stream changes);
//   * batched gemms given device arrays of pointers: the arrays (the
//     matrices they point to are in device memory the host cannot read, and
//     are said not analysed);
//   * cublasLtMatmul: A, B, C, D from their layout descriptors, the bias and
//     auxiliary outputs its epilogue reads or writes, the scale and amax
//     pointers set in the matmul descriptor, and the workspace, on its stream.
// Calls are recorded when they returned success; calls nested in another
// interposed call (cuBLAS calling cuBLASLt) are the outer call's business.
//
//===----------------------------------------------------------------------===//
#include "intercept/Interposition.h"
#include "intercept/LibraryOperands.h"

#include <cublasLt.h>
#include <cublas_api.h>

#include <mutex>
#include <unordered_map>

namespace streamlife {
namespace rt {

namespace {

template <auto Self> decltype(Self) realCublas(const char *Name) {
  static decltype(Self) Real =
      nextFunction<decltype(Self)>(Name, {"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
  return Real;
}

template <auto Self> decltype(Self) realCublasLt(const char *Name) {
  static decltype(Self) Real =
      nextFunction<decltype(Self)>(Name, {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"});
  return Real;
}

/// What a cuBLAS handle was told: its stream and its workspace.
struct HandleState {
  CUstream Stream = nullptr;
  bool StreamKnown = false; ///< false: set before we loaded, asked from cuBLAS
  Addr Workspace = 0;
  std::uint64_t WorkspaceSize = 0;
};

class BlasHandles {
public:
  void streamSet(const void *H, CUstream S) {
    std::lock_guard<std::mutex> Guard(Lock);
    HandleState &State = States[H];
    State.Stream = S;
    State.StreamKnown = true;
    State.Workspace = 0; // cublasSetStream resets the workspace to cuBLAS's pool
    State.WorkspaceSize = 0;
  }
  void workspaceSet(const void *H, void *Workspace, std::uint64_t Size) {
    std::lock_guard<std::mutex> Guard(Lock);
    HandleState &State = States[H];
    State.Workspace = reinterpret_cast<Addr>(Workspace);
    State.WorkspaceSize = Workspace ? Size : 0;
  }
  HandleState get(const void *H) {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = States.find(H);
    return It == States.end() ? HandleState() : It->second;
  }

private:
  std::mutex Lock;
  std::unordered_map<const void *, HandleState> States;
};

BlasHandles &handles() {
  static auto *Handles = new BlasHandles; // never destroyed: cuBLAS is called during exit
  return *Handles;
}

void addWhole(std::vector<Range> &Out, const void *Ptr) {
  if (Ptr)
    Out.push_back(Range{reinterpret_cast<Addr>(Ptr), WholeAllocation});
}

void addBytes(std::vector<Range> &Out, Addr Ptr, std::uint64_t Size) {
  if (Ptr && Size)
    Out.push_back(Range{Ptr, Size});
}

/// The handle's stream and its workspace range.
CUstream handleStream(cublasHandle_t Handle, std::vector<Range> &Ranges) {
  HandleState State = handles().get(Handle);
  addBytes(Ranges, State.Workspace, State.WorkspaceSize);
  if (State.StreamKnown)
    return State.Stream;
  cudaStream_t S = nullptr;
  if (auto Get = realCublas<&cublasGetStream_v2>("cublasGetStream_v2"))
    Get(Handle, &S);
  return reinterpret_cast<CUstream>(S);
}

void recordGemm(InterposedApi &Api, cublasHandle_t Handle, const GemmCall &G, const void *Alpha,
                const void *Beta) {
  static thread_local std::vector<Range> Ranges;
  Ranges.clear();
  gemmRanges(G, Ranges);
  addWhole(Ranges, Alpha); // device memory under CUBLAS_POINTER_MODE_DEVICE; host memory is untracked
  addWhole(Ranges, Beta);
  CUstream S = handleStream(Handle, Ranges);
  recordLibraryCall(Api, S, Ranges);
}

/// Batched gemms through device arrays of pointers: the arrays are read; the
/// matrices behind them cannot be known from the host.
void recordPointerArrayGemm(InterposedApi &Api, cublasHandle_t Handle, const void *A, const void *B,
                            const void *C, std::int64_t Batches) {
  static thread_local std::vector<Range> Ranges;
  Ranges.clear();
  std::uint64_t Bytes = Batches > 0 ? static_cast<std::uint64_t>(Batches) * sizeof(void *) : 0;
  for (const void *Array : {A, B, C})
    addBytes(Ranges, reinterpret_cast<Addr>(Array), Bytes);
  CUstream S = handleStream(Handle, Ranges);
  recordLibraryCall(Api, S, Ranges);
  if (ValidatorRuntime *R = runtime())
    InterceptContext(*R).notAnalysed(NotAnalysed::LibraryPointerArrays);
}

GemmCall gemmCall(cublasOperation_t TransA, cublasOperation_t TransB, std::int64_t M, std::int64_t N,
                  std::int64_t K, const void *A, std::int64_t Lda, const void *B, std::int64_t Ldb,
                  const void *C, std::int64_t Ldc, std::uint64_t SizeA, std::uint64_t SizeB,
                  std::uint64_t SizeC) {
  GemmCall G;
  G.TransA = TransA;
  G.TransB = TransB;
  G.M = M;
  G.N = N;
  G.K = K;
  G.A = reinterpret_cast<Addr>(A);
  G.B = reinterpret_cast<Addr>(B);
  G.C = reinterpret_cast<Addr>(C);
  G.Lda = Lda;
  G.Ldb = Ldb;
  G.Ldc = Ldc;
  G.SizeA = SizeA;
  G.SizeB = SizeB;
  G.SizeC = SizeC;
  return G;
}

GemmCall strided(GemmCall G, std::int64_t StrideA, std::int64_t StrideB, std::int64_t StrideC,
                 std::int64_t Batches) {
  G.StrideA = StrideA;
  G.StrideB = StrideB;
  G.StrideC = StrideC;
  G.Batches = Batches;
  return G;
}

// --- cuBLASLt ----------------------------------------------------------------

template <typename T> bool layoutAttribute(cublasLtMatrixLayout_t L, cublasLtMatrixLayoutAttribute_t A, T &Out) {
  auto Get = realCublasLt<&cublasLtMatrixLayoutGetAttribute>("cublasLtMatrixLayoutGetAttribute");
  size_t Written = 0;
  return L && Get && Get(L, A, &Out, sizeof(T), &Written) == CUBLAS_STATUS_SUCCESS && Written == sizeof(T);
}

template <typename T> bool matmulAttribute(cublasLtMatmulDesc_t D, cublasLtMatmulDescAttributes_t A, T &Out) {
  auto Get = realCublasLt<&cublasLtMatmulDescGetAttribute>("cublasLtMatmulDescGetAttribute");
  size_t Written = 0;
  return D && Get && Get(D, A, &Out, sizeof(T), &Written) == CUBLAS_STATUS_SUCCESS && Written == sizeof(T);
}

/// A matrix from its cuBLASLt layout descriptor; an unreadable or tiled layout
/// touches the whole allocation.
Range layoutSpan(const void *Ptr, cublasLtMatrixLayout_t Layout) {
  MatrixOperand M;
  M.Base = reinterpret_cast<Addr>(Ptr);
  std::uint32_t Type = 0;
  std::int32_t Order = CUBLASLT_ORDER_COL, Batches = 1;
  std::uint64_t Rows = 0, Cols = 0;
  std::int64_t Ld = 0, Stride = 0;
  bool Known = layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_TYPE, Type) &&
               layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_ROWS, Rows) &&
               layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_COLS, Cols) &&
               layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_LD, Ld);
  layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_ORDER, Order);
  layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, Batches);
  layoutAttribute(Layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, Stride);
  if (!Known || (Order != CUBLASLT_ORDER_COL && Order != CUBLASLT_ORDER_ROW))
    return Range{M.Base, M.Base ? WholeAllocation : 0};
  M.Rows = static_cast<std::int64_t>(Rows);
  M.Cols = static_cast<std::int64_t>(Cols);
  M.Ld = Ld;
  M.ElementSize = dataTypeSize(static_cast<int>(Type));
  M.RowMajor = Order == CUBLASLT_ORDER_ROW;
  M.Batches = Batches;
  M.BatchStride = Stride;
  return operandSpan(M);
}

/// What the matmul descriptor adds: the epilogue's bias and auxiliary
/// buffers, and scale and amax pointers, each where set.
void descriptorRanges(cublasLtMatmulDesc_t Desc, std::vector<Range> &Out) {
  std::uint32_t Epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  matmulAttribute(Desc, CUBLASLT_MATMUL_DESC_EPILOGUE, Epilogue);
  // CUBLASLT_EPILOGUE_BIAS (4) reads the bias; the BGRAD variants (16, and
  // BGRADA 256 / BGRADB 512) write the bias gradient to the same pointer;
  // the AUX variants (128) read or write the auxiliary matrix.
  constexpr std::uint32_t UsesBias = 4 | 16 | 256 | 512, UsesAux = 128;
  void *Ptr = nullptr;
  if ((Epilogue & UsesBias) && matmulAttribute(Desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, Ptr))
    addWhole(Out, Ptr);
  if ((Epilogue & UsesAux) && matmulAttribute(Desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, Ptr))
    addWhole(Out, Ptr);
  for (cublasLtMatmulDescAttributes_t A :
       {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
        CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER,
        CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER,
        CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER}) {
    Ptr = nullptr;
    if (matmulAttribute(Desc, A, Ptr))
      addWhole(Out, Ptr);
  }
}

} // namespace

} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;

// The interposed definitions, exported (the library hides everything else).
#pragma GCC visibility push(default)
extern "C" {

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  auto Real = realCublas<&cublasSetStream_v2>("cublasSetStream_v2");
  cublasStatus_t Rc = Real ? Real(handle, streamId) : CUBLAS_STATUS_NOT_INITIALIZED;
  if (Rc == CUBLAS_STATUS_SUCCESS)
    handles().streamSet(handle, reinterpret_cast<CUstream>(streamId));
  return Rc;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes) {
  auto Real = realCublas<&cublasSetWorkspace_v2>("cublasSetWorkspace_v2");
  cublasStatus_t Rc = Real ? Real(handle, workspace, workspaceSizeInBytes) : CUBLAS_STATUS_NOT_INITIALIZED;
  if (Rc == CUBLAS_STATUS_SUCCESS)
    handles().workspaceSet(handle, workspace, workspaceSizeInBytes);
  return Rc;
}

// Typed gemms: cublas<T>gemm, cublas<T>gemmStridedBatched, cublas<T>gemmBatched.
#define STREAMLIFE_TYPED_GEMM(Name, T, Size)                                                       \
  cublasStatus_t Name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, \
                      int n, int k, const T *alpha, const T *A, int lda, const T *B, int ldb,      \
                      const T *beta, T *C, int ldc) {                                             \
    static InterposedApi Api(#Name);                                                               \
    LibraryCallScope Call;                                                                         \
    auto Real = realCublas<&Name>(#Name);                                                          \
    cublasStatus_t Rc = Real ? Real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) \
                             : CUBLAS_STATUS_NOT_INITIALIZED;                                      \
    if (Rc == CUBLAS_STATUS_SUCCESS && Call.outermost())                                           \
      recordGemm(Api, handle, gemmCall(transa, transb, m, n, k, A, lda, B, ldb, C, ldc, Size, Size, Size), \
                 alpha, beta);                                                                     \
    return Rc;                                                                                     \
  }
#define STREAMLIFE_TYPED_GEMM_STRIDED(Name, T, Size)                                               \
  cublasStatus_t Name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, \
                      int n, int k, const T *alpha, const T *A, int lda, long long int strideA,    \
                      const T *B, int ldb, long long int strideB, const T *beta, T *C, int ldc,    \
                      long long int strideC, int batchCount) {                                     \
    static InterposedApi Api(#Name);                                                               \
    LibraryCallScope Call;                                                                         \
    auto Real = realCublas<&Name>(#Name);                                                          \
    cublasStatus_t Rc = Real ? Real(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, \
                                    strideB, beta, C, ldc, strideC, batchCount)                    \
                             : CUBLAS_STATUS_NOT_INITIALIZED;                                      \
    if (Rc == CUBLAS_STATUS_SUCCESS && Call.outermost())                                           \
      recordGemm(Api, handle,                                                                      \
                 strided(gemmCall(transa, transb, m, n, k, A, lda, B, ldb, C, ldc, Size, Size, Size), \
                         strideA, strideB, strideC, batchCount),                                   \
                 alpha, beta);                                                                     \
    return Rc;                                                                                     \
  }
#define STREAMLIFE_TYPED_GEMM_BATCHED(Name, T)                                                     \
  cublasStatus_t Name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, \
                      int n, int k, const T *alpha, const T *const Aarray[], int lda,              \
                      const T *const Barray[], int ldb, const T *beta, T *const Carray[], int ldc, \
                      int batchCount) {                                                            \
    static InterposedApi Api(#Name);                                                               \
    LibraryCallScope Call;                                                                         \
    auto Real = realCublas<&Name>(#Name);                                                          \
    cublasStatus_t Rc = Real ? Real(handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, \
                                    beta, Carray, ldc, batchCount)                                 \
                             : CUBLAS_STATUS_NOT_INITIALIZED;                                      \
    if (Rc == CUBLAS_STATUS_SUCCESS && Call.outermost())                                           \
      recordPointerArrayGemm(Api, handle, Aarray, Barray, Carray, batchCount);                     \
    return Rc;                                                                                     \
  }

STREAMLIFE_TYPED_GEMM(cublasSgemm_v2, float, 4)
STREAMLIFE_TYPED_GEMM(cublasDgemm_v2, double, 8)
STREAMLIFE_TYPED_GEMM(cublasCgemm_v2, cuComplex, 8)
STREAMLIFE_TYPED_GEMM(cublasZgemm_v2, cuDoubleComplex, 16)
STREAMLIFE_TYPED_GEMM(cublasHgemm, __half, 2)
STREAMLIFE_TYPED_GEMM_STRIDED(cublasSgemmStridedBatched, float, 4)
STREAMLIFE_TYPED_GEMM_STRIDED(cublasDgemmStridedBatched, double, 8)
STREAMLIFE_TYPED_GEMM_STRIDED(cublasCgemmStridedBatched, cuComplex, 8)
STREAMLIFE_TYPED_GEMM_STRIDED(cublasZgemmStridedBatched, cuDoubleComplex, 16)
STREAMLIFE_TYPED_GEMM_STRIDED(cublasHgemmStridedBatched, __half, 2)
STREAMLIFE_TYPED_GEMM_BATCHED(cublasSgemmBatched, float)
STREAMLIFE_TYPED_GEMM_BATCHED(cublasDgemmBatched, double)
STREAMLIFE_TYPED_GEMM_BATCHED(cublasCgemmBatched, cuComplex)
STREAMLIFE_TYPED_GEMM_BATCHED(cublasZgemmBatched, cuDoubleComplex)
STREAMLIFE_TYPED_GEMM_BATCHED(cublasHgemmBatched, __half)

// The mixed-precision gemms, with 32- and 64-bit sizes.
#define STREAMLIFE_GEMM_EX(Name, Int)                                                              \
  cublasStatus_t Name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, Int m, \
                      Int n, Int k, const void *alpha, const void *A, cudaDataType Atype, Int lda, \
                      const void *B, cudaDataType Btype, Int ldb, const void *beta, void *C,       \
                      cudaDataType Ctype, Int ldc, cublasComputeType_t computeType,                \
                      cublasGemmAlgo_t algo) {                                                     \
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, Int, Int, Int, \
                                  const void *, const void *, cudaDataType, Int, const void *,     \
                                  cudaDataType, Int, const void *, void *, cudaDataType, Int,      \
                                  cublasComputeType_t, cublasGemmAlgo_t);                          \
    static InterposedApi Api(#Name);                                                               \
    static Fn Real = nextFunction<Fn>(#Name, {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}); \
    LibraryCallScope Call;                                                                         \
    cublasStatus_t Rc = Real ? Real(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, \
                                    beta, C, Ctype, ldc, computeType, algo)                        \
                             : CUBLAS_STATUS_NOT_INITIALIZED;                                      \
    if (Rc == CUBLAS_STATUS_SUCCESS && Call.outermost())                                           \
      recordGemm(Api, handle,                                                                      \
                 gemmCall(transa, transb, m, n, k, A, lda, B, ldb, C, ldc, dataTypeSize(Atype),    \
                          dataTypeSize(Btype), dataTypeSize(Ctype)),                               \
                 alpha, beta);                                                                     \
    return Rc;                                                                                     \
  }
#define STREAMLIFE_GEMM_STRIDED_EX(Name, Int)                                                      \
  cublasStatus_t Name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, Int m, \
                      Int n, Int k, const void *alpha, const void *A, cudaDataType Atype, Int lda, \
                      long long int strideA, const void *B, cudaDataType Btype, Int ldb,           \
                      long long int strideB, const void *beta, void *C, cudaDataType Ctype, Int ldc, \
                      long long int strideC, Int batchCount, cublasComputeType_t computeType,      \
                      cublasGemmAlgo_t algo) {                                                     \
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, Int, Int, Int, \
                                  const void *, const void *, cudaDataType, Int, long long int,    \
                                  const void *, cudaDataType, Int, long long int, const void *,    \
                                  void *, cudaDataType, Int, long long int, Int,                   \
                                  cublasComputeType_t, cublasGemmAlgo_t);                          \
    static InterposedApi Api(#Name);                                                               \
    static Fn Real = nextFunction<Fn>(#Name, {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}); \
    LibraryCallScope Call;                                                                         \
    cublasStatus_t Rc = Real ? Real(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, \
                                    Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, \
                                    computeType, algo)                                             \
                             : CUBLAS_STATUS_NOT_INITIALIZED;                                      \
    if (Rc == CUBLAS_STATUS_SUCCESS && Call.outermost())                                           \
      recordGemm(Api, handle,                                                                      \
                 strided(gemmCall(transa, transb, m, n, k, A, lda, B, ldb, C, ldc, dataTypeSize(Atype), \
                                  dataTypeSize(Btype), dataTypeSize(Ctype)),                       \
                         strideA, strideB, strideC, batchCount),                                   \
                 alpha, beta);                                                                     \
    return Rc;                                                                                     \
  }

STREAMLIFE_GEMM_EX(cublasGemmEx, int)
STREAMLIFE_GEMM_EX(cublasGemmEx_64, int64_t)
STREAMLIFE_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
STREAMLIFE_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                   int m, int n, int k, const void *alpha, const void *const Aarray[],
                                   cudaDataType Atype, int lda, const void *const Barray[],
                                   cudaDataType Btype, int ldb, const void *beta, void *const Carray[],
                                   cudaDataType Ctype, int ldc, int batchCount,
                                   cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                const void *, const void *const[], cudaDataType, int, const void *const[],
                                cudaDataType, int, const void *, void *const[], cudaDataType, int, int,
                                cublasComputeType_t, cublasGemmAlgo_t);
  static InterposedApi Api("cublasGemmBatchedEx");
  static Fn Real = nextFunction<Fn>("cublasGemmBatchedEx", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
  LibraryCallScope Call;
  cublasStatus_t Rc = Real ? Real(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype,
                                  ldb, beta, Carray, Ctype, ldc, batchCount, computeType, algo)
                           : CUBLAS_STATUS_NOT_INITIALIZED;
  if (Rc == CUBLAS_STATUS_SUCCESS && Call.outermost())
    recordPointerArrayGemm(Api, handle, Aarray, Barray, Carray, batchCount);
  return Rc;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
                              cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
                              cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspaceSizeInBytes,
                              cudaStream_t stream) {
  static InterposedApi Api("cublasLtMatmul");
  LibraryCallScope Call;
  auto Real = realCublasLt<&cublasLtMatmul>("cublasLtMatmul");
  cublasStatus_t Rc = Real ? Real(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D,
                                  Ddesc, algo, workspace, workspaceSizeInBytes, stream)
                           : CUBLAS_STATUS_NOT_INITIALIZED;
  if (Rc != CUBLAS_STATUS_SUCCESS || !Call.outermost())
    return Rc;
  static thread_local std::vector<Range> Ranges;
  Ranges.clear();
  for (Range R : {layoutSpan(A, Adesc), layoutSpan(B, Bdesc), layoutSpan(C, Cdesc), layoutSpan(D, Ddesc)})
    if (R.Size)
      Ranges.push_back(R);
  descriptorRanges(computeDesc, Ranges);
  addWhole(Ranges, alpha);
  addWhole(Ranges, beta);
  addBytes(Ranges, reinterpret_cast<Addr>(workspace), workspaceSizeInBytes);
  recordLibraryCall(Api, reinterpret_cast<CUstream>(stream), Ranges);
  return Rc;
}

} // extern "C"
#pragma GCC visibility pop
