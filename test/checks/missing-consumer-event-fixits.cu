// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-missing-consumer-event -check-fixed-clean -fixed-file=%t.cu -- %cuda_args
// RUN: clang++-22 -fsyntax-only %cuda_args %t.cu
// RUN: %clang_tidy -load %streamlife_plugin -checks='-*,streamlife-free-before-wait,streamlife-missing-consumer-event' %t.cu -- %cuda_args 2>&1 | %FileCheck %s --allow-empty --check-prefix=RECHECK
// RECHECK-NOT: warning:
//
// streamlife-missing-consumer-event fix-its: the consumer records its event
// before its last use of the buffer, so the allocation stream's wait does not
// cover that use; the fix moves the record after the last use (in the same
// block as the record and the wait). The fixed file compiles and is clean
// for both lifetime checks. Cases without a certain fix are in
// missing-consumer-event-nofix.cu.
//
// Expectations stand before each function: the fixed copy keeps the code's
// lines adjacent.

#include <cuda_runtime.h>
#include <cuda.h>

__global__ void consume(const float *p);
__global__ void combine(const float *a, const float *b);
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

// CHECK-MESSAGES: :[[@LINE+13]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf' [streamlife-missing-consumer-event]
// CHECK-NOTES: :[[@LINE+11]]:3: note: fix: move the record after this statement
// CHECK-FIXES: {{^}}void recordBeforeUse(
// CHECK-FIXES: cudaMallocAsync(&buf, 1024, alloc);
// CHECK-FIXES-NEXT: {{^  }}consume<<<1, 32, 0, compute>>>(buf);
// CHECK-FIXES-NEXT: {{^  }}cudaEventRecord(done, compute); // the consumer is done{{$}}
// CHECK-FIXES-NEXT: {{^  }}cudaStreamWaitEvent(alloc, done, 0);
// CHECK-FIXES-NEXT: {{^  }}cudaFreeAsync(buf, alloc);
void recordBeforeUse(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute); // the consumer is done
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// Recorded between two uses, with an unrelated statement after the last.
// CHECK-MESSAGES: :[[@LINE+13]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
// CHECK-FIXES: {{^}}void recordBetweenUses(
// CHECK-FIXES: consume<<<1, 32, 0, compute>>>(buf);
// CHECK-FIXES-NEXT: {{^  }}consume<<<1, 32, 0, compute>>>(buf);
// CHECK-FIXES-NEXT: {{^  }}cudaEventRecord(done, compute);
// CHECK-FIXES-NEXT: {{^  }}logStep("forward");
void recordBetweenUses(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  logStep("forward");
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// In a loop body; the last use is a block of its own (the record moves
// after the block).
// CHECK-MESSAGES: :[[@LINE+17]]:5: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
// CHECK-FIXES: {{^}}void recordInLoop(
// CHECK-FIXES: cudaStreamSynchronize(alloc);
// CHECK-FIXES-NEXT: {{^    }}{
// CHECK-FIXES: {{^    }}}
// CHECK-FIXES-NEXT: {{^    }}cudaEventRecord(done, compute);
// CHECK-FIXES-NEXT: {{^    }}cudaStreamWaitEvent(alloc, done, 0);
void recordInLoop(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                  int layers) {
  for (int i = 0; i < layers; ++i) {
    float *buf;
    cudaMallocAsync(&buf, 1024, alloc);
    cudaStreamSynchronize(alloc);
    cudaEventRecord(done, compute);
    {
      consume<<<1, 32, 0, compute>>>(buf);
    }
    cudaStreamWaitEvent(alloc, done, 0);
    cudaFreeAsync(buf, alloc);
  }
}

// The driver API inside an error-checking macro.
// CHECK-MESSAGES: :[[@LINE+10]]:14: warning: stream 'alloc' waits on event 'done' recorded on 'copy' before its last use of 'buf'
// CHECK-FIXES: {{^}}void driverInMacros(
// CHECK-FIXES: CHECK_CUDA(cuMemcpyDtoHAsync(host, buf, 1024, copy));
// CHECK-FIXES-NEXT: {{^  }}CHECK_CUDA(cuEventRecord(done, copy));
// CHECK-FIXES-NEXT: {{^  }}CHECK_CUDA(cuStreamWaitEvent(alloc, done, 0));
void driverInMacros(CUstream alloc, CUstream copy, CUevent done, void *host) {
  CUdeviceptr buf;
  CHECK_CUDA(cuMemAllocAsync(&buf, 1024, alloc));
  CHECK_CUDA(cuEventRecord(done, copy));
  CHECK_CUDA(cuMemcpyDtoHAsync(host, buf, 1024, copy));
  CHECK_CUDA(cuStreamWaitEvent(alloc, done, 0));
  CHECK_CUDA(cuMemFreeAsync(buf, alloc));
}

// Two buffers share the record and the wait: one move, after the later of
// their last uses (a warning per buffer, the fix-it on the first).
// CHECK-MESSAGES: :[[@LINE+16]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'a'
// CHECK-MESSAGES: :[[@LINE+15]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'b'
// CHECK-FIXES: {{^}}void twoBuffersOneRecord(
// CHECK-FIXES: consume<<<1, 32, 0, compute>>>(a);
// CHECK-FIXES-NEXT: {{^  }}combine<<<1, 32, 0, compute>>>(a, b);
// CHECK-FIXES-NEXT: {{^  }}consume<<<1, 32, 0, compute>>>(b);
// CHECK-FIXES-NEXT: {{^  }}cudaEventRecord(done, compute);
// CHECK-FIXES-NEXT: {{^  }}cudaStreamWaitEvent(alloc, done, 0);
void twoBuffersOneRecord(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *a, *b;
  cudaMallocAsync(&a, 1024, alloc);
  cudaMallocAsync(&b, 1024, alloc);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(a);
  combine<<<1, 32, 0, compute>>>(a, b);
  consume<<<1, 32, 0, compute>>>(b);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(a, alloc);
  cudaFreeAsync(b, alloc);
}

// The record in a do-while(0) error-checking macro moves as a whole.
// CHECK-MESSAGES: :[[@LINE+10]]:12: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
// CHECK-FIXES: {{^}}void doWhileMacro(
// CHECK-FIXES: consume<<<1, 32, 0, compute>>>(buf);
// CHECK-FIXES-NEXT: {{^  }}CUDA_TRY(cudaEventRecord(done, compute));
// CHECK-FIXES-NEXT: {{^  }}CUDA_TRY(cudaStreamWaitEvent(alloc, done, 0));
void doWhileMacro(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  CUDA_TRY(cudaMallocAsync(&buf, 1024, alloc));
  CUDA_TRY(cudaEventRecord(done, compute));
  consume<<<1, 32, 0, compute>>>(buf);
  CUDA_TRY(cudaStreamWaitEvent(alloc, done, 0));
  CUDA_TRY(cudaFreeAsync(buf, alloc));
}
