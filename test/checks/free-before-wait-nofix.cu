// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -expect-no-fixes -- %cuda_args
//
// streamlife-free-before-wait: findings whose fix is not local or not
// certain get no fix-it (-fix leaves the file as it is); the notes say what
// to change. The fixed cases are in free-before-wait-fixits.cu.

#include <cuda_runtime.h>

__global__ void consume(const float *p);
void logStep(const char *what);

// No wait at all: the fix needs an event that does not exist yet.
void noWait(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-3]]:3: note: record an event on 'compute' after this use and make 'alloc' wait on it before the release
  // CHECK-NOTES-NOT: note: fix:
}

// The late wait is in a branch: moving the release there would leak it on
// the other path.
void waitInBranch(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                  bool ready) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  if (ready)
    cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The late wait is under a preprocessor condition: moving the release after
// it would release the buffer only in the builds that define the condition
// and leak it in all the others, which were never analysed.
void waitUnderIfdef(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
#ifndef STREAMLIFE_TEST_NO_SYNC
  cudaStreamWaitEvent(alloc, done, 0);
#endif
}

// The release is under a preprocessor condition, the wait after it: the
// moved release would leave the condition and be released in every build.
void releaseUnderIfndef(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
#ifndef STREAMLIFE_TEST_KEEP_BUFFERS
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
#endif
  cudaStreamWaitEvent(alloc, done, 0);
}

// A return between the release and the wait: the moved release would be
// skipped on that path.
void returnInBetween(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                     bool abort) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  if (abort)
    return;
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-4]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The late wait's event was recorded before the consumer's use: waiting
// on it first would not cover the use (a stale event).
void staleLateWait(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The event is recorded in a branch: the wait may see an older record.
void recordInBranch(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                    bool again) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  if (again)
    cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The wait covers only one of two consumers.
void waitForOneOfTwo(cudaStream_t alloc, cudaStream_t compute, cudaStream_t copy,
                     cudaEvent_t computed, float *host) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaMemcpyAsync(host, buf, 1024, cudaMemcpyDeviceToHost, copy);
  cudaEventRecord(computed, compute);
  cudaFreeAsync(buf, alloc);
  cudaStreamWaitEvent(alloc, computed, 0);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The variable the release names its stream by changes before the wait:
// the moved release would run on the other stream.
void streamReassigned(cudaStream_t alloc, cudaStream_t compute, cudaStream_t other,
                      cudaEvent_t done) {
  float *buf;
  cudaStream_t releaseOn = alloc;
  cudaMallocAsync(&buf, 1024, releaseOn);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, releaseOn);
  releaseOn = other;
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// A member stream: any call in between may change it.
struct Pipeline {
  cudaStream_t alloc;
  cudaStream_t compute;
  cudaEvent_t done;
  void step() {
    float *buf;
    cudaMallocAsync(&buf, 1024, alloc);
    consume<<<1, 32, 0, compute>>>(buf);
    cudaEventRecord(done, compute);
    cudaFreeAsync(buf, alloc);
    cudaStreamWaitEvent(alloc, done, 0);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  }
};

// The buffer is used again between the release and the wait (a use after
// free as well): moving the release would hide it.
void usedInBetween(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  consume<<<1, 32, 0, alloc>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The wait's error check may return: the moved release would be skipped on
// that path (a leak where there was none).
#define RETURN_IF_FAILED(call)                                                 \
  do {                                                                         \
    if ((call) != cudaSuccess)                                                 \
      return;                                                                  \
  } while (0)
void waitMayReturn(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  RETURN_IF_FAILED(cudaStreamWaitEvent(alloc, done, 0));
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}
