// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// streamlife-free-before-wait over the CUDA driver API (cuda.h defines some
// of these names as _v2 / _ptsz macros; the model strips the suffixes).

#include <cuda.h>

// cuMemAllocAsync / cuMemcpyHtoDAsync on another stream / cuMemFreeAsync.
void driverNoWait(CUstream alloc, CUstream copy, const void *host) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemcpyHtoDAsync(buf, host, 1024, copy);
  cuMemFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: used on stream 'copy' here
}

// cuEventRecord + cuStreamWaitEvent on the release stream.
void driverWait(CUstream alloc, CUstream copy, CUevent done, void *host) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemcpyDtoHAsync(host, buf, 1024, copy);
  cuEventRecord(done, copy);
  cuStreamWaitEvent(alloc, done, 0);
  cuMemFreeAsync(buf, alloc);
}

// cuEventRecordWithFlags, and a wait after the release.
void driverLateWait(CUstream alloc, CUstream copy, CUevent done, void *host) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemcpyDtoHAsync(host, buf, 1024, copy);
  cuEventRecordWithFlags(done, copy, 0);
  cuMemFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
  // CHECK-NOTES: :[[@LINE+1]]:3: note: stream 'alloc' waits for 'copy' only after the release
  cuStreamWaitEvent(alloc, done, 0);
}

// cuStreamSynchronize / cuEventSynchronize / cuCtxSynchronize / cuMemFree.
void driverSyncs(CUstream alloc, CUstream copy, CUevent done, void *host,
                 CUdeviceptr other) {
  CUdeviceptr a, b, c, d;
  cuMemAllocAsync(&a, 1024, alloc);
  cuMemAllocAsync(&b, 1024, alloc);
  cuMemAllocAsync(&c, 1024, alloc);
  cuMemAllocAsync(&d, 1024, alloc);
  cuStreamSynchronize(alloc);
  cuMemsetD8Async(a, 0, 1024, copy);
  cuStreamSynchronize(copy);
  cuMemFreeAsync(a, alloc);
  cuMemsetD32Async(b, 0, 256, copy);
  cuEventRecord(done, copy);
  cuEventSynchronize(done);
  cuMemFreeAsync(b, alloc);
  cuMemsetD16Async(c, 0, 512, copy);
  cuCtxSynchronize();
  cuMemFreeAsync(c, alloc);
  cuMemsetD2D8Async(d, 64, 0, 64, 16, copy);
  cuMemFree(other);
  cuMemFreeAsync(d, alloc);
}

// Each driver copy/set family is a use.
void driverUses(CUstream alloc, CUstream copy, void *host, CUcontext ctx,
                CUmemoryPool pool) {
  CUdeviceptr a, b, c, d, e, f;
  cuMemAllocAsync(&a, 1024, alloc);
  cuMemAllocAsync(&b, 1024, alloc);
  cuMemAllocAsync(&c, 1024, alloc);
  cuMemAllocAsync(&d, 1024, alloc);
  cuMemAllocFromPoolAsync(&e, 1024, pool, alloc);
  cuMemAllocAsync(&f, 1024, alloc);
  cuStreamSynchronize(alloc);
  cuMemcpyAsync(a, (CUdeviceptr)host, 1024, copy);
  cuMemcpyDtoDAsync(b, a, 1024, copy);
  cuMemcpyPeerAsync(c, ctx, a, ctx, 1024, copy);
  cuMemsetD2D16Async(d, 64, 0, 32, 16, copy);
  cuMemsetD2D32Async(e, 64, 0, 16, 16, copy);
  cuMemsetD8Async(f, 0, 1024, copy);
  cuMemFreeAsync(a, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(b, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(c, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(d, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(e, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'e' is released on stream 'alloc' while stream 'copy' may still use it
  cuMemFreeAsync(f, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'f' is released on stream 'alloc' while stream 'copy' may still use it
}

// cuLaunchKernel with the buffer in the kernelParams array is a use; a
// scalar in the same array is not a buffer.
void driverLaunch(CUstream alloc, CUstream compute, CUfunction kernel, int n) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  void *params[] = {&buf, &n};
  cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, compute, params, nullptr);
  cuMemFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-3]]:3: note: used on stream 'compute' here
}

// ... and ordered like any other use.
void driverLaunchWaited(CUstream alloc, CUstream compute, CUfunction kernel,
                        CUevent done) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  void *params[] = {&buf};
  cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, compute, params, nullptr);
  cuEventRecord(done, compute);
  cuStreamWaitEvent(alloc, done, 0);
  cuMemFreeAsync(buf, alloc);
}

// CU_STREAM_LEGACY orders blocking streams created with cuStreamCreate.
void driverLegacyStream(CUfunction kernel) {
  CUstream blocking, nonBlocking;
  cuStreamCreate(&blocking, CU_STREAM_DEFAULT);
  cuStreamCreate(&nonBlocking, CU_STREAM_NON_BLOCKING);
  CUdeviceptr a, b;
  cuMemAllocAsync(&a, 1024, CU_STREAM_LEGACY);
  cuMemAllocAsync(&b, 1024, CU_STREAM_LEGACY);
  cuMemsetD8Async(a, 0, 1024, blocking);
  cuMemsetD8Async(b, 0, 1024, nonBlocking);
  cuMemFreeAsync(a, CU_STREAM_LEGACY);
  cuMemFreeAsync(b, CU_STREAM_LEGACY);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is released on the legacy default stream while stream 'nonBlocking' may still use it
}

// CU_STREAM_PER_THREAD is a stream of its own.
void driverPerThread(CUstream alloc) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuMemsetD8Async(buf, 0, 1024, CU_STREAM_PER_THREAD);
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while the per-thread default stream may still use it
}
