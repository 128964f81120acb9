// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// One probe per CUDA runtime and driver row of checks/clang/ApiModel.cpp:
// each function's verdict depends on its row, so that a row deleted or
// given another meaning changes this file's findings (scripts/row-mutants.py
// deletes each row in turn and runs this test; checks/README.md, "API rows
// and their probes", has its last score). A use row is probed with a buffer
// in each of its buffer operands; an ordering row (a record, a wait, a
// synchronization) with a release that is clean only through it.

#include <cuda.h>
#include <cuda_runtime.h>

__global__ void consume(float *buf) {}

// Removed from CUDA 13's headers; code built against earlier toolkits still
// calls them (declared as CUDA 12 did).
extern "C" cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t count, cudaMemcpyKind kind,
                                              cudaStream_t stream);
extern "C" cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                                size_t hOffset, size_t count, cudaMemcpyKind kind,
                                                cudaStream_t stream);
extern "C" cudaError_t cudaThreadSynchronize(void);

// --- runtime: allocations and releases ----------------------------------------

// An allocation row is what names the allocation stream in the story.
void rtMallocAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
}

void rtMallocFromPoolAsync(cudaStream_t alloc, cudaStream_t copy, cudaMemPool_t pool) {
  float *buf;
  cudaMallocFromPoolAsync(&buf, 1024, pool, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
}

// cudaFree synchronizes the device first: the later release is clean.
void rtFreeSynchronizes(cudaStream_t alloc, cudaStream_t copy) {
  float *a, *b;
  cudaMallocAsync(&a, 1024, alloc);
  cudaMallocAsync(&b, 1024, alloc);
  cudaMemsetAsync(a, 0, 1024, copy);
  cudaMemsetAsync(b, 0, 1024, copy);
  cudaFree(a);
  cudaFreeAsync(b, alloc);
}

// --- runtime: uses --------------------------------------------------------------

void rtMemcpyAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *dst, *src;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpyAsync(dst, src, 1024, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpy2DAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *dst, *src;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpy2DAsync(dst, 64, src, 64, 64, 16, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpyPeerAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *dst, *src;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpyPeerAsync(dst, 0, src, 1, 1024, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

__device__ float symbol[256];

void rtMemcpyToSymbolAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *src;
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpyToSymbolAsync(symbol, src, 1024, 0, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpyFromSymbolAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *dst;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMemcpyFromSymbolAsync(dst, symbol, 1024, 0, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpy2DToArrayAsync(cudaStream_t alloc, cudaStream_t copy, cudaArray_t array) {
  float *src;
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpy2DToArrayAsync(array, 0, 0, src, 64, 64, 16, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpy2DFromArrayAsync(cudaStream_t alloc, cudaStream_t copy, cudaArray_const_t array) {
  float *dst;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMemcpy2DFromArrayAsync(dst, 64, array, 0, 0, 64, 16, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpyToArrayAsync(cudaStream_t alloc, cudaStream_t copy, cudaArray_t array) {
  float *src;
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpyToArrayAsync(array, 0, 0, src, 1024, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpyFromArrayAsync(cudaStream_t alloc, cudaStream_t copy, cudaArray_const_t array) {
  float *dst;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMemcpyFromArrayAsync(dst, array, 0, 0, 1024, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemsetAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemset2DAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemset2DAsync(buf, 64, 0, 64, 16, copy);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtLaunchKernel(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  void *args[] = {&buf};
  cudaLaunchKernel((const void *)consume, dim3(1), dim3(32), args, 0, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

void rtLaunchCooperativeKernel(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  void *args[] = {&buf};
  cudaLaunchCooperativeKernel((const void *)consume, dim3(1), dim3(32), args, 0, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// --- runtime: events and synchronization ----------------------------------------

void rtEventRecordAndStreamWaitEvent(cudaStream_t alloc, cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaEventRecord(done, copy);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

void rtEventRecordWithFlags(cudaStream_t alloc, cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaEventRecordWithFlags(done, copy, 0);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// An event recorded on the allocation stream, not the consumer, stands for none
// of the consumer's work: waiting on it orders nothing. (An event recorded
// where the function cannot see is taken to order everything.)
void rtEventRecordOnTheWrongStream(cudaStream_t alloc, cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaEventRecord(done, alloc);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtEventRecordWithFlagsOnTheWrongStream(cudaStream_t alloc, cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaEventRecordWithFlags(done, alloc, 0);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtStreamSynchronize(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaStreamSynchronize(copy);
  cudaFreeAsync(buf, alloc);
}

void rtEventSynchronize(cudaStream_t alloc, cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaEventRecord(done, copy);
  cudaEventSynchronize(done);
  cudaFreeAsync(buf, alloc);
}

void rtDeviceSynchronize(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaDeviceSynchronize();
  cudaFreeAsync(buf, alloc);
}

void rtThreadSynchronize(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemsetAsync(buf, 0, 1024, copy);
  cudaThreadSynchronize();
  cudaFreeAsync(buf, alloc);
}

// --- runtime: streams ----------------------------------------------------------

// A stream made with cudaStreamCreate blocks on the legacy default stream: a
// release there is ordered after its work. One made non-blocking is not.
void rtStreamCreateBlocks() {
  cudaStream_t compute;
  cudaStreamCreate(&compute);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
}

// Made again with cudaStreamCreate, the variable names a blocking stream (a
// stream of unknown origin is taken as blocking too, so the first probe alone
// would pass without the row).
void rtStreamCreateAgainBlocks() {
  cudaStream_t compute;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamDestroy(compute);
  cudaStreamCreate(&compute);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
}

void rtStreamCreateWithFlagsNonBlocking() {
  cudaStream_t compute;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on the legacy default stream while stream 'compute' may still use it
}

void rtStreamCreateWithPriorityNonBlocking() {
  cudaStream_t compute;
  cudaStreamCreateWithPriority(&compute, cudaStreamNonBlocking, 0);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on the legacy default stream while stream 'compute' may still use it
}

void rtStreamCreateWithPriorityBlocking() {
  cudaStream_t compute;
  cudaStreamCreateWithPriority(&compute, cudaStreamDefault, 0);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
}

// An event synchronized by the host covers what was recorded before it, not
// work the legacy stream ordered after the consumer and the event missed.
void rtEventSynchronizeCoversTheEventOnly(float *other, cudaEvent_t done) {
  cudaStream_t alloc, compute;
  cudaStreamCreateWithFlags(&alloc, cudaStreamNonBlocking);
  cudaStreamCreate(&compute);
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  consume<<<1, 32>>>(other);
  cudaEventRecord(done, alloc);
  cudaEventSynchronize(done);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// --- driver: allocations and releases -----------------------------------------

// An allocation row is what names the allocation stream in the story.
void drvMemAllocAsync(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
}

void drvMemAllocFromPoolAsync(CUstream alloc, CUstream copy, CUmemoryPool pool) {
  CUdeviceptr buf;
  cuMemAllocFromPoolAsync(&buf, 1024, pool, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
}

// cuMemFree synchronizes the device first: the later release is clean.
void drvMemFreeSynchronizes(CUstream alloc, CUstream copy) {
  CUdeviceptr a, b;
  cuMemAllocAsync(&a, 1024, alloc);
  cuMemAllocAsync(&b, 1024, alloc);
  cuMemsetD8Async(a, 0, 1024, copy);
  cuMemsetD8Async(b, 0, 1024, copy);
  cuMemFree(a);
  cuMemFreeAsync(b, alloc);
}

// --- driver: uses ---------------------------------------------------------------

void drvMemcpyAsync(CUstream alloc, CUstream copy) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  cuMemcpyAsync(dst, src, 1024, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpyHtoDAsync(CUstream alloc, CUstream copy, const void *host) {
  CUdeviceptr dst;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemcpyHtoDAsync(dst, host, 1024, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpyDtoHAsync(CUstream alloc, CUstream copy, void *host) {
  CUdeviceptr src;
  cuMemAllocAsync(&src, 1024, alloc);
  cuMemcpyDtoHAsync(host, src, 1024, copy);
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpyDtoDAsync(CUstream alloc, CUstream copy) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  cuMemcpyDtoDAsync(dst, src, 1024, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpyPeerAsync(CUstream alloc, CUstream copy, CUcontext ctx) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  cuMemcpyPeerAsync(dst, ctx, src, ctx, 1024, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemsetD8Async(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemsetD16Async(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD16Async(buf, 0, 512, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemsetD32Async(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD32Async(buf, 0, 256, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemsetD2D8Async(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD2D8Async(buf, 64, 0, 64, 16, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemsetD2D16Async(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD2D16Async(buf, 64, 0, 32, 16, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemsetD2D32Async(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD2D32Async(buf, 64, 0, 16, 16, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvLaunchKernel(CUstream alloc, CUstream compute, CUfunction kernel) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  void *params[] = {&buf};
  cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, compute, params, nullptr);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

void drvLaunchCooperativeKernel(CUstream alloc, CUstream compute, CUfunction kernel) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  void *params[] = {&buf};
  cuLaunchCooperativeKernel(kernel, 1, 1, 1, 32, 1, 1, 0, compute, params);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// --- driver: events and synchronization -----------------------------------------

void drvEventRecordAndStreamWaitEvent(CUstream alloc, CUstream copy, CUevent done) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuEventRecord(done, copy);
  cuStreamWaitEvent(alloc, done, 0);
  cuMemFreeAsync(buf, alloc);
}

void drvEventRecordWithFlags(CUstream alloc, CUstream copy, CUevent done) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuEventRecordWithFlags(done, copy, 0);
  cuStreamWaitEvent(alloc, done, 0);
  cuMemFreeAsync(buf, alloc);
}

void drvEventRecordOnTheWrongStream(CUstream alloc, CUstream copy, CUevent done) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuEventRecord(done, alloc);
  cuStreamWaitEvent(alloc, done, 0);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvEventRecordWithFlagsOnTheWrongStream(CUstream alloc, CUstream copy, CUevent done) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuEventRecordWithFlags(done, alloc, 0);
  cuStreamWaitEvent(alloc, done, 0);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvStreamSynchronize(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuStreamSynchronize(copy);
  cuMemFreeAsync(buf, alloc);
}

void drvEventSynchronize(CUstream alloc, CUstream copy, CUevent done) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuEventRecord(done, copy);
  cuEventSynchronize(done);
  cuMemFreeAsync(buf, alloc);
}

void drvCtxSynchronize(CUstream alloc, CUstream copy) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, copy);
  cuCtxSynchronize();
  cuMemFreeAsync(buf, alloc);
}

// --- driver: streams -------------------------------------------------------------

// Driver streams made with CU_STREAM_DEFAULT block on the legacy stream, those
// made with CU_STREAM_NON_BLOCKING do not.
void drvStreamCreateBlocking() {
  CUstream compute;
  cuStreamCreate(&compute, CU_STREAM_DEFAULT);
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, CU_STREAM_LEGACY);
  cuMemsetD8Async(buf, 0, 1024, compute);
  cuMemFreeAsync(buf, CU_STREAM_LEGACY);
}

void drvStreamCreateNonBlocking() {
  CUstream compute;
  cuStreamCreate(&compute, CU_STREAM_NON_BLOCKING);
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, CU_STREAM_LEGACY);
  cuMemsetD8Async(buf, 0, 1024, compute);
  cuMemFreeAsync(buf, CU_STREAM_LEGACY);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on the legacy default stream while stream 'compute' may still use it
}

void drvStreamCreateWithPriorityBlocking() {
  CUstream compute;
  cuStreamCreateWithPriority(&compute, CU_STREAM_DEFAULT, 0);
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, CU_STREAM_LEGACY);
  cuMemsetD8Async(buf, 0, 1024, compute);
  cuMemFreeAsync(buf, CU_STREAM_LEGACY);
}

void drvStreamCreateWithPriorityNonBlocking() {
  CUstream compute;
  cuStreamCreateWithPriority(&compute, CU_STREAM_NON_BLOCKING, 0);
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, CU_STREAM_LEGACY);
  cuMemsetD8Async(buf, 0, 1024, compute);
  cuMemFreeAsync(buf, CU_STREAM_LEGACY);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on the legacy default stream while stream 'compute' may still use it
}
