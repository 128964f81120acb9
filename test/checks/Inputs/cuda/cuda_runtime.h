// Mock CUDA runtime for the checker tests (the mock tier): our own
// declarations of the types and functions the API model knows
// (checks/clang/ApiModel.cpp) and of the few others the tests call, with the
// names, parameter lists and default arguments of CUDA 13.0's
// cuda_runtime_api.h and cuda_runtime.h (their C++ overloads included), and
// their per-thread default stream spelling: with
// CUDA_API_PER_THREAD_DEFAULT_STREAM defined, the stream-ordered calls are
// the *_ptsz functions, as in the real headers. No bodies where the checker
// does not need one. Parsed with -nocudainc, so this file also gives clang
// the CUDA attributes and the launch configuration call that its CUDA
// wrapper headers would. The real headers are the second tier
// (test/checks/real-headers): they pin these declarations to the real ones.
#pragma once

#include "cuda_runtime_api.h"

// --- The C++ overloads of cuda_runtime.h -------------------------------------
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void **)(void *)ptr, size, stream);
}
static __inline__ __host__ cudaError_t cudaMallocAsync(void **ptr, size_t size,
                                                       cudaMemPool_t memPool,
                                                       cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaMemPool_t memPool,
                                                       cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void **)(void *)ptr, size, memPool, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size,
                                                               cudaMemPool_t memPool,
                                                               cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void **)(void *)ptr, size, memPool, stream);
}
static __inline__ __host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                        void **args, size_t sharedMem = 0,
                                                        cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbolAsync(
    const T &symbol, const void *src, size_t count, size_t offset = 0,
    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) {
  return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbolAsync(
    void *dst, const T &symbol, size_t count, size_t offset = 0,
    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0) {
  return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
