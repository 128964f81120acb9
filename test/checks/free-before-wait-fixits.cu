// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -check-fixed-clean -fixed-file=%t.cu -- %cuda_args
// RUN: clang++-22 -fsyntax-only %cuda_args %t.cu
// RUN: %clang_tidy -load %streamlife_plugin -checks='-*,streamlife-free-before-wait,streamlife-missing-consumer-event' %t.cu -- %cuda_args 2>&1 | %FileCheck %s --allow-empty --check-prefix=RECHECK
// RECHECK-NOT: warning:
//
// streamlife-free-before-wait fix-its: the allocation stream's wait on an
// event the consumer recorded after its last use comes only after the
// release; the fix moves the release after that wait ("wait before free").
// Each fixed function is compiled and checked again (clean). Cases without a
// certain fix are in free-before-wait-nofix.cu.
//
// Expectations stand before each function: the fixed copy keeps the code's
// lines adjacent.

#include <cuda_runtime.h>
#include <cuda.h>

__global__ void consume(const float *p);
__global__ void fill(float *p);
void logStep(const char *what);

#define CHECK_CUDA(call) (void)(call)
void reportError(cudaError_t status);
// A statement-like error-checking macro, as most CUDA code has one.
#define CUDA_TRY(call)                                                         \
  do {                                                                         \
    cudaError_t status = (call);                                               \
    if (status != cudaSuccess)                                                 \
      reportError(status);                                                     \
  } while (0)

// CHECK-MESSAGES: :[[@LINE+11]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it [streamlife-free-before-wait]
// CHECK-NOTES: :[[@LINE+11]]:3: note: stream 'alloc' waits for 'compute' only after the release
// CHECK-NOTES: :[[@LINE+10]]:3: note: fix: move the release after this wait
// CHECK-FIXES: cudaEventRecord(done, compute);
// CHECK-FIXES-NEXT: {{^  }}cudaStreamWaitEvent(alloc, done, 0);
// CHECK-FIXES-NEXT: {{^  }}cudaFreeAsync(buf, alloc);
void waitRightAfterRelease(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  cudaStreamWaitEvent(alloc, done, 0);
}

// The record and an unrelated statement between the release and the wait:
// the release moves past both, with its trailing comment.
// CHECK-MESSAGES: :[[@LINE+11]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
// CHECK-FIXES: {{^}}void recordAfterRelease(
// CHECK-FIXES: consume<<<1, 32, 0, compute>>>(buf);
// CHECK-FIXES-NEXT: {{^  }}cudaEventRecord(done, compute);
// CHECK-FIXES-NEXT: {{^  }}logStep("released");
// CHECK-FIXES-NEXT: {{^  }}cudaStreamWaitEvent(alloc, done, 0);
// CHECK-FIXES-NEXT: {{^  }}cudaFreeAsync(buf, alloc); // hand the block back{{$}}
void recordAfterRelease(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc); // hand the block back
  cudaEventRecord(done, compute);
  logStep("released");
  cudaStreamWaitEvent(alloc, done, 0);
}

// The driver API, and calls wrapped in an error-checking macro: the whole
// invocation moves.
// CHECK-MESSAGES: :[[@LINE+9]]:14: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
// CHECK-FIXES: {{^}}void driverInMacros(
// CHECK-FIXES: CHECK_CUDA(cuStreamWaitEvent(alloc, done, 0));
// CHECK-FIXES-NEXT: {{^  }}CHECK_CUDA(cuMemFreeAsync(buf, alloc));
void driverInMacros(CUstream alloc, CUstream copy, CUevent done, void *host) {
  CUdeviceptr buf;
  CHECK_CUDA(cuMemAllocAsync(&buf, 1024, alloc));
  CHECK_CUDA(cuMemcpyDtoHAsync(host, buf, 1024, copy));
  CHECK_CUDA(cuEventRecord(done, copy));
  CHECK_CUDA(cuMemFreeAsync(buf, alloc));
  CHECK_CUDA(cuStreamWaitEvent(alloc, done, 0));
}

// Two consumers, each with its own event and late wait: the release moves
// after the later wait, which is the one that makes it safe.
// CHECK-MESSAGES: :[[@LINE+14]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
// CHECK-FIXES: {{^}}void twoConsumers(
// CHECK-FIXES: cudaEventRecord(copied, copy);
// CHECK-FIXES-NEXT: {{^  }}cudaStreamWaitEvent(alloc, computed, 0);
// CHECK-FIXES-NEXT: {{^  }}cudaStreamWaitEvent(alloc, copied, 0);
// CHECK-FIXES-NEXT: {{^  }}cudaFreeAsync(buf, alloc);
void twoConsumers(cudaStream_t alloc, cudaStream_t compute, cudaStream_t copy,
                  cudaEvent_t computed, cudaEvent_t copied, float *host) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaMemcpyAsync(host, buf, 1024, cudaMemcpyDeviceToHost, copy);
  cudaEventRecord(computed, compute);
  cudaEventRecord(copied, copy);
  cudaFreeAsync(buf, alloc);
  cudaStreamWaitEvent(alloc, computed, 0);
  cudaStreamWaitEvent(alloc, copied, 0);
}

// In a loop body, where the buffer is made and dropped each iteration.
// CHECK-MESSAGES: :[[@LINE+10]]:5: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
// CHECK-FIXES: {{^}}void perIteration(
// CHECK-FIXES: cudaStreamWaitEvent(alloc, done, 0);
// CHECK-FIXES-NEXT: {{^    }}cudaFreeAsync(buf, alloc);
void perIteration(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done, int steps) {
  for (int i = 0; i < steps; ++i) {
    float *buf;
    cudaMallocAsync(&buf, 1024, alloc);
    consume<<<1, 32, 0, compute>>>(buf);
    cudaEventRecord(done, compute);
    cudaFreeAsync(buf, alloc);
    cudaStreamWaitEvent(alloc, done, 0);
  }
}

// Two statements on one line swap in place.
// CHECK-MESSAGES: :[[@LINE+7]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
// CHECK-FIXES: {{^}}  cudaStreamWaitEvent(alloc, done, 0); cudaFreeAsync(buf, alloc);{{$}}
void oneLine(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc); cudaStreamWaitEvent(alloc, done, 0);
}

// Each call in a do-while(0) error-checking macro: the invocations swap.
// CHECK-MESSAGES: :[[@LINE+10]]:12: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
// CHECK-FIXES: {{^}}void doWhileMacros(
// CHECK-FIXES: CUDA_TRY(cudaEventRecord(done, compute));
// CHECK-FIXES-NEXT: {{^  }}CUDA_TRY(cudaStreamWaitEvent(alloc, done, 0));
// CHECK-FIXES-NEXT: {{^  }}CUDA_TRY(cudaFreeAsync(buf, alloc));
void doWhileMacros(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  CUDA_TRY(cudaMallocAsync(&buf, 1024, alloc));
  consume<<<1, 32, 0, compute>>>(buf);
  CUDA_TRY(cudaEventRecord(done, compute));
  CUDA_TRY(cudaFreeAsync(buf, alloc));
  CUDA_TRY(cudaStreamWaitEvent(alloc, done, 0));
}
