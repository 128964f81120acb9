//===- FakeCublasLt.cpp - a stand-in libcublasLt.so.13 for CPU-only tests -===//
//
// Layouts and matmul descriptors keep their attributes as cuBLASLt's do;
// cublasLtMatmul launches one internal kernel (a split-K reduction) on its
// stream whose parameters hold D and the workspace of the previous call: a
// stale word, like the one that made a false use-after-free on the GPU.
//
//===----------------------------------------------------------------------===//
#include "FakeLibraryKernel.h"

#include <cublasLt.h>

#include <cstring>

namespace {
void *PreviousWorkspace = nullptr;

template <typename T> cublasStatus_t give(T Value, void *Buf, size_t Size, size_t *Written) {
  if (Written)
    *Written = sizeof(T);
  if (!Buf || Size < sizeof(T))
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(Buf, &Value, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}
} // namespace

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *Handle) {
  *Handle = reinterpret_cast<cublasLtHandle_t>(0x11);
  return CUBLAS_STATUS_SUCCESS;
}

// Layout: data[0] type, [1] rows, [2] cols, [3] ld, [4] order, [5] batch count, [6] batch stride.
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *Layout, cudaDataType Type, uint64_t Rows,
                                          uint64_t Cols, int64_t Ld) {
  auto *L = new cublasLtMatrixLayoutOpaque_t{};
  L->data[0] = static_cast<uint64_t>(Type);
  L->data[1] = Rows;
  L->data[2] = Cols;
  L->data[3] = static_cast<uint64_t>(Ld);
  L->data[4] = CUBLASLT_ORDER_COL;
  L->data[5] = 1;
  *Layout = L;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t L, cublasLtMatrixLayoutAttribute_t Attr,
                                                void *Buf, size_t Size, size_t *Written) {
  switch (Attr) {
  case CUBLASLT_MATRIX_LAYOUT_TYPE:
    return give(static_cast<uint32_t>(L->data[0]), Buf, Size, Written);
  case CUBLASLT_MATRIX_LAYOUT_ORDER:
    return give(static_cast<int32_t>(L->data[4]), Buf, Size, Written);
  case CUBLASLT_MATRIX_LAYOUT_ROWS:
    return give(L->data[1], Buf, Size, Written);
  case CUBLASLT_MATRIX_LAYOUT_COLS:
    return give(L->data[2], Buf, Size, Written);
  case CUBLASLT_MATRIX_LAYOUT_LD:
    return give(static_cast<int64_t>(L->data[3]), Buf, Size, Written);
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    return give(static_cast<int32_t>(L->data[5]), Buf, Size, Written);
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    return give(static_cast<int64_t>(L->data[6]), Buf, Size, Written);
  default:
    return CUBLAS_STATUS_INVALID_VALUE;
  }
}

// Matmul descriptor: data[Attr] holds the attribute's value (at most 8 bytes);
// data[31] has bit Attr set once it was set. The epilogue defaults to DEFAULT.
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *Desc, cublasComputeType_t, cudaDataType_t) {
  auto *D = new cublasLtMatmulDescOpaque_t{};
  D->data[CUBLASLT_MATMUL_DESC_EPILOGUE] = CUBLASLT_EPILOGUE_DEFAULT;
  *Desc = D;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t D, cublasLtMatmulDescAttributes_t Attr,
                                              const void *Buf, size_t Size) {
  if (Attr >= 31 || Size > 8)
    return CUBLAS_STATUS_INVALID_VALUE;
  D->data[Attr] = 0;
  std::memcpy(&D->data[Attr], Buf, Size);
  D->data[31] |= uint64_t(1) << Attr;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t D, cublasLtMatmulDescAttributes_t Attr,
                                              void *Buf, size_t Size, size_t *Written) {
  if (Attr >= 31 || Size > 8)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (Written)
    *Written = Size;
  std::memcpy(Buf, &D->data[Attr], Size);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                              cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
                              const void *, cublasLtMatrixLayout_t, void *D, cublasLtMatrixLayout_t,
                              const cublasLtMatmulAlgo_t *, void *Workspace, size_t, cudaStream_t Stream) {
  launchLibraryKernel(reinterpret_cast<CUstream>(Stream), reinterpret_cast<CUdeviceptr>(D),
                      reinterpret_cast<CUdeviceptr>(PreviousWorkspace));
  PreviousWorkspace = Workspace;
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"
