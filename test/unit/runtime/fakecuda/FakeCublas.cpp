//===- FakeCublas.cpp - a stand-in libcublas.so.13 for CPU-only tests -----===//
//
// Handles remember their stream and workspace as cuBLAS does (cublasSetStream
// resets the workspace). cublasGemmEx launches one internal kernel on the
// handle's stream whose parameters hold C and the workspace the handle had at
// the previous call: a stale word, as real library kernels carry them.
//
//===----------------------------------------------------------------------===//
#include "FakeLibraryKernel.h"

#include <cublas_api.h>

namespace {
struct FakeHandle {
  cudaStream_t Stream = nullptr;
  void *Workspace = nullptr;
  void *PreviousWorkspace = nullptr;
};
} // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *Handle) {
  *Handle = reinterpret_cast<cublasHandle_t>(new FakeHandle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t Handle, cudaStream_t Stream) {
  auto *H = reinterpret_cast<FakeHandle *>(Handle);
  H->Stream = Stream;
  H->Workspace = nullptr;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t Handle, cudaStream_t *Stream) {
  *Stream = reinterpret_cast<FakeHandle *>(Handle)->Stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t Handle, void *Workspace, size_t) {
  reinterpret_cast<FakeHandle *>(Handle)->Workspace = Workspace;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t Handle, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void *, const void *, cudaDataType, int, const void *, cudaDataType, int,
                            const void *, void *C, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) {
  auto *H = reinterpret_cast<FakeHandle *>(Handle);
  launchLibraryKernel(reinterpret_cast<CUstream>(H->Stream), reinterpret_cast<CUdeviceptr>(C),
                      reinterpret_cast<CUdeviceptr>(H->PreviousWorkspace));
  H->PreviousWorkspace = H->Workspace;
  return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"
