// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// The copies and sets whose buffers are fields of a parameter struct
// (cudaMemcpy3DParms, cudaPitchedPtr, CUDA_MEMCPY2D/3D/3D_PEER) use the
// buffers the struct holds at the call: the fields its initializer and the
// assignments before the call in the function give it, through
// make_cudaPitchedPtr too. One probe per such row of checks/clang/ApiModel.cpp
// (scripts/row-mutants.py: deleting the row loses the probe's findings).

#include <cuda.h>
#include <cuda_runtime.h>

void rtMemcpy3DAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *dst, *src;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(src, 256, 64, 4);
  p.dstPtr = make_cudaPitchedPtr(dst, 256, 64, 4);
  p.extent = make_cudaExtent(256, 4, 1);
  p.kind = cudaMemcpyDeviceToDevice;
  cudaMemcpy3DAsync(&p, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

// The twin: the allocation stream waits for the copy before the releases.
void rtMemcpy3DAsyncWaited(cudaStream_t alloc, cudaStream_t copy, cudaEvent_t done) {
  float *dst, *src;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(src, 256, 64, 4);
  p.dstPtr = make_cudaPitchedPtr(dst, 256, 64, 4);
  cudaMemcpy3DAsync(&p, copy);
  cudaEventRecord(done, copy);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(dst, alloc);
  cudaFreeAsync(src, alloc);
}

// A field given after the call is not what the call read.
void rtMemcpy3DAsyncFieldAfter(cudaStream_t alloc, cudaStream_t copy) {
  float *dst, *other;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&other, 1024, alloc);
  cudaMemcpy3DParms p = {};
  p.dstPtr = make_cudaPitchedPtr(dst, 256, 64, 4);
  cudaMemcpy3DAsync(&p, copy);
  p.dstPtr = make_cudaPitchedPtr(other, 256, 64, 4);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(other, alloc);
}

// A struct reused for a second copy holds the second copy's source there:
// the first source was read on the allocation stream only.
void rtMemcpy3DAsyncReused(cudaStream_t alloc, cudaStream_t copy) {
  float *first, *second, *dst;
  cudaMallocAsync(&first, 1024, alloc);
  cudaMallocAsync(&second, 1024, alloc);
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(first, 256, 64, 4);
  p.dstPtr = make_cudaPitchedPtr(dst, 256, 64, 4);
  cudaMemcpy3DAsync(&p, alloc);
  p.srcPtr.ptr = second;
  cudaMemcpy3DAsync(&p, copy);
  cudaFreeAsync(first, alloc);
  cudaFreeAsync(second, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'second' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemcpy3DPeerAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *dst, *src;
  cudaMallocAsync(&dst, 1024, alloc);
  cudaMallocAsync(&src, 1024, alloc);
  cudaMemcpy3DPeerParms p = {};
  p.srcPtr = make_cudaPitchedPtr(src, 256, 64, 4);
  p.srcDevice = 1;
  p.dstPtr.ptr = dst;
  p.dstDevice = 0;
  cudaMemcpy3DPeerAsync(&p, copy);
  cudaFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemset3DAsync(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMemset3DAsync(make_cudaPitchedPtr(buf, 256, 64, 4), 0, make_cudaExtent(256, 4, 1), copy);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

void rtMemset3DAsyncLocal(cudaStream_t alloc, cudaStream_t copy) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaPitchedPtr pitched = make_cudaPitchedPtr(buf, 256, 64, 4);
  cudaMemset3DAsync(pitched, 0, make_cudaExtent(256, 4, 1), copy);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

// A pointer given to the field of a whole struct made before replaces it.
void rtMemset3DAsyncLocalRepointed(cudaStream_t alloc, cudaStream_t copy) {
  float *first, *second;
  cudaMallocAsync(&first, 1024, alloc);
  cudaMallocAsync(&second, 1024, alloc);
  cudaPitchedPtr pitched = make_cudaPitchedPtr(first, 256, 64, 4);
  pitched.ptr = second;
  cudaMemset3DAsync(pitched, 0, make_cudaExtent(256, 4, 1), copy);
  cudaFreeAsync(first, alloc);
  cudaFreeAsync(second, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'second' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpy2DAsync(CUstream alloc, CUstream copy) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  CUDA_MEMCPY2D c = {};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = src;
  c.srcPitch = 256;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dst;
  c.dstPitch = 256;
  c.WidthInBytes = 256;
  c.Height = 4;
  cuMemcpy2DAsync(&c, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

// Designated initializers give the fields too.
void drvMemcpy2DAsyncDesignated(CUstream alloc, CUstream copy) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = src, .srcPitch = 256,
                     .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = dst, .dstPitch = 256,
                     .WidthInBytes = 256, .Height = 4};
  cuMemcpy2DAsync(&c, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpy3DAsync(CUstream alloc, CUstream copy) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  CUDA_MEMCPY3D c = {};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = src;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dst;
  c.WidthInBytes = 256;
  c.Height = 4;
  c.Depth = 1;
  cuMemcpy3DAsync(&c, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

void drvMemcpy3DPeerAsync(CUstream alloc, CUstream copy, CUcontext a, CUcontext b) {
  CUdeviceptr dst, src;
  cuMemAllocAsync(&dst, 1024, alloc);
  cuMemAllocAsync(&src, 1024, alloc);
  CUDA_MEMCPY3D_PEER c = {};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = src;
  c.srcContext = a;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dst;
  c.dstContext = b;
  cuMemcpy3DPeerAsync(&c, copy);
  cuMemFreeAsync(dst, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(src, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'src' is released on stream 'alloc' while stream 'copy' may still use it
}

// A struct the caller filled (a parameter): what it holds is not known here.
void rtMemcpy3DAsyncGiven(const cudaMemcpy3DParms *p, cudaStream_t copy) {
  cudaMemcpy3DAsync(p, copy);
}
