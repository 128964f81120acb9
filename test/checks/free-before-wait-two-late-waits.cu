// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// Two consumers, each waited for only after the release: each "only after
// the release" note names the consumer its own wait is for (the notes once
// named the first consumer for both waits).

#include <cuda_runtime.h>

__global__ void consume(const float *p, float *out);

void twoLateWaits(cudaStream_t alloc, cudaStream_t left, cudaStream_t right,
                  float *out, cudaEvent_t leftDone, cudaEvent_t rightDone) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, left>>>(buf, out);
  consume<<<1, 32, 0, right>>>(buf, out);
  cudaEventRecord(leftDone, left);
  cudaEventRecord(rightDone, right);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'left' may still use it
  // CHECK-NOTES: :[[@LINE-7]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-7]]:3: note: used on stream 'left' here
  // CHECK-NOTES: :[[@LINE-7]]:3: note: used on stream 'right' here
  // CHECK-NOTES: :[[@LINE+4]]:3: note: stream 'alloc' waits for 'left' only after the release
  // CHECK-NOTES: :[[@LINE+4]]:3: note: stream 'alloc' waits for 'right' only after the release
  // CHECK-NOTES: :[[@LINE-10]]:3: note: record an event on 'right' after this use and make 'alloc' wait on it before the release
  // CHECK-NOTES: :[[@LINE+2]]:3: note: fix: move the release after this wait
  cudaStreamWaitEvent(alloc, leftDone, 0);
  cudaStreamWaitEvent(alloc, rightDone, 0);
}

// The same waits in the other order: the notes follow the waits, each
// still naming its own consumer.
void twoLateWaitsSwapped(cudaStream_t alloc, cudaStream_t left,
                         cudaStream_t right, float *out, cudaEvent_t leftDone,
                         cudaEvent_t rightDone) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, left>>>(buf, out);
  consume<<<1, 32, 0, right>>>(buf, out);
  cudaEventRecord(leftDone, left);
  cudaEventRecord(rightDone, right);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'left' may still use it
  // CHECK-NOTES: :[[@LINE-7]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-7]]:3: note: used on stream 'left' here
  // CHECK-NOTES: :[[@LINE-7]]:3: note: used on stream 'right' here
  // CHECK-NOTES: :[[@LINE+4]]:3: note: stream 'alloc' waits for 'right' only after the release
  // CHECK-NOTES: :[[@LINE+4]]:3: note: stream 'alloc' waits for 'left' only after the release
  // CHECK-NOTES: :[[@LINE-10]]:3: note: record an event on 'right' after this use and make 'alloc' wait on it before the release
  // CHECK-NOTES: :[[@LINE+2]]:3: note: fix: move the release after this wait
  cudaStreamWaitEvent(alloc, rightDone, 0);
  cudaStreamWaitEvent(alloc, leftDone, 0);
}
