//===- FakeTorchCuda.cpp - plays libtorch_cuda.so's NCCL calls ------------===//
//
// Like libtorch_cuda.so: links libnccl.so.2, libcublas.so.13 and
// libcublasLt.so.13 (DT_NEEDED) and is itself loaded with dlopen(RTLD_LOCAL)
// (Python loads torch's extension that way), so those libraries are not in
// the global scope. Its calls must still reach the validator and, through it,
// the libraries. Each function returns the library's result.
//
//===----------------------------------------------------------------------===//
#ifdef STREAMLIFE_FAKE_CUBLAS
#include <cublasLt.h>
#include <cublas_api.h>
#endif

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>

extern "C" {
int ncclAllReduce(const void *, void *, std::size_t, int, int, void *, void *);
int ncclSend(const void *, std::size_t, int, int, void *, void *);
int ncclRecv(void *, std::size_t, int, int, void *, void *);
int ncclGroupStart();
int ncclGroupEnd();
int cudnnCreate(void **);
int cudnnSetStream(void *, void *);
int cudnnBackendCreateDescriptor(int, void **);
int cudnnBackendSetAttribute(void *, int, int, std::int64_t, const void *);
int cudnnBackendExecute(void *, void *, void *);

namespace {
constexpr int Float32 = 7, Sum = 0;
void *const Comm = reinterpret_cast<void *>(0xc0);
} // namespace

__attribute__((visibility("default"))) int fakeTorchAllReduce(void *Buffer, std::size_t Count, void *Stream) {
  return ncclAllReduce(Buffer, Buffer, Count, Float32, Sum, Comm, Stream);
}

__attribute__((visibility("default"))) int fakeTorchSendRecv(void *Send, void *Recv, std::size_t Count,
                                                             void *Stream) {
  int Rc = ncclGroupStart();
  if (Rc == 0)
    Rc = ncclSend(Send, Count, Float32, 1, Comm, Stream);
  if (Rc == 0)
    Rc = ncclRecv(Recv, Count, Float32, 1, Comm, Stream);
  int End = ncclGroupEnd();
  return Rc ? Rc : End;
}

/// A convolution through cuDNN's graph API (cudnn-frontend's execute): a
/// variant pack of X, W, Y and the workspace, executed on the handle's stream.
__attribute__((visibility("default"))) int fakeTorchConvolution(void *Stream, void *X, void *W, void *Y,
                                                                void *Workspace) {
  constexpr int VariantPack = 18, DataPointers = 1001, WorkspaceAttr = 1003, VoidPointer = 6;
  static void *Handle = nullptr;
  if (!Handle)
    cudnnCreate(&Handle);
  cudnnSetStream(Handle, Stream);
  void *Pack = nullptr;
  cudnnBackendCreateDescriptor(VariantPack, &Pack);
  void *Data[] = {X, W, Y};
  cudnnBackendSetAttribute(Pack, DataPointers, VoidPointer, 3, Data);
  cudnnBackendSetAttribute(Pack, WorkspaceAttr, VoidPointer, 1, &Workspace);
  return cudnnBackendExecute(Handle, reinterpret_cast<void *>(0x1), Pack);
}

#ifdef STREAMLIFE_FAKE_CUBLAS
/// at::cuda::blas::gemm for floats: the handle gets the current stream and
/// its workspace, then C (m x n) = A (m x k) * B (k x n), column-major.
__attribute__((visibility("default"))) int fakeTorchGemm(void *Stream, void *A, void *B, void *C, int M, int N,
                                                         int K, void *Workspace, size_t WorkspaceSize) {
  static cublasHandle_t Handle = nullptr;
  if (!Handle)
    cublasCreate_v2(&Handle);
  cublasSetStream_v2(Handle, static_cast<cudaStream_t>(Stream));
  cublasSetWorkspace_v2(Handle, Workspace, WorkspaceSize);
  float One = 1, Zero = 0;
  return cublasGemmEx(Handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, A, CUDA_R_32F, M, B, CUDA_R_32F, K, &Zero,
                      C, CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/// at::cuda::blas::gemm_and_bias: D (m x n) = A (m x k) * B (k x n), plus Bias
/// through the BIAS epilogue when UseBias (else the pointer is set but unused).
__attribute__((visibility("default"))) int fakeTorchLtMatmul(void *Stream, void *A, void *B, void *D, void *Bias,
                                                             int UseBias, int M, int N, int K, void *Workspace,
                                                             size_t WorkspaceSize) {
  static cublasLtHandle_t Handle = nullptr;
  if (!Handle)
    cublasLtCreate(&Handle);
  cublasLtMatmulDesc_t Desc;
  cublasLtMatmulDescCreate(&Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtEpilogue_t Epilogue = UseBias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &Epilogue, sizeof(Epilogue));
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &Bias, sizeof(Bias));
  cublasLtMatrixLayout_t La, Lb, Ld;
  cublasLtMatrixLayoutCreate(&La, CUDA_R_32F, M, K, M);
  cublasLtMatrixLayoutCreate(&Lb, CUDA_R_32F, K, N, K);
  cublasLtMatrixLayoutCreate(&Ld, CUDA_R_32F, M, N, M);
  float One = 1, Zero = 0;
  return cublasLtMatmul(Handle, Desc, &One, A, La, B, Lb, &Zero, D, Ld, D, Ld, nullptr, Workspace, WorkspaceSize,
                        static_cast<cudaStream_t>(Stream));
}
#endif

/// Whether dlsym(RTLD_DEFAULT) made here finds a function only this
/// library's own dependency defines: loaded RTLD_LOCAL (as Python loads
/// torch), its NCCL is outside the global scope, and the lookup searches the
/// scope of the object that called dlsym.
int fakeTorchSeesItsNccl() { return dlsym(RTLD_DEFAULT, "ncclCommCount") != nullptr; }
}
