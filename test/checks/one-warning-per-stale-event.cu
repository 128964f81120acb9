// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-missing-consumer-event,streamlife-free-before-wait -- %cuda_args
//
// One bug, one warning. An event recorded on the consumer before its last
// use, waited on by the allocation stream, then the buffer freed, is one bug
// seen at two places. With both checks enabled, missing-consumer-event owns
// it (the stale wait is the cause and the place to fix); the free is a note.
// Each check alone still reports it (see missing-consumer-event.cu).

#include <cuda_runtime.h>

__global__ void consume(const float *p);

void staleEvent(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf' [streamlife-missing-consumer-event]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: event 'done' recorded here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: last use on stream 'compute' here
  // CHECK-NOTES: :[[@LINE-5]]:3: note: record the event on 'compute' after this use, then make 'alloc' wait on it
  // CHECK-NOTES: :[[@LINE+1]]:3: note: 'buf' released on stream 'alloc' here while stream 'compute' may still use it
  cudaFreeAsync(buf, alloc);
}

// A release that races for a second reason (a use on another stream that
// nothing orders) keeps its own warning.
void staleEventAndAnotherRace(cudaStream_t alloc, cudaStream_t compute,
                              cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  consume<<<1, 32, 0, copy>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf' [streamlife-missing-consumer-event]
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it [streamlife-free-before-wait]
}

// Keepalive with one reused event: 'alloc' waits on the record of the
// previous round, which covers the previous buffer it then frees. The newer
// buffer's use comes after that record, but nothing relies on the wait for
// it: no warning (a stale wait is reported only when a release relies on it).
void keepaliveOneEvent(cudaStream_t alloc, cudaStream_t compute,
                       cudaEvent_t done, int rounds) {
  float *keep = nullptr;
  for (int i = 0; i < rounds; ++i) {
    float *cur;
    cudaMallocAsync(&cur, 1024, alloc);
    consume<<<1, 32, 0, compute>>>(cur);
    cudaStreamWaitEvent(alloc, done, 0); // the previous round's record
    if (keep)
      cudaFreeAsync(keep, alloc);
    keep = cur;
    cudaEventRecord(done, compute);
  }
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(keep, alloc);
}

// The same loop, but it frees the current buffer after the stale wait: the
// bug, at the wait.
void keepaliveFreesTheWrongBuffer(cudaStream_t alloc, cudaStream_t compute,
                                  cudaEvent_t done, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    float *cur;
    cudaMallocAsync(&cur, 1024, alloc);
    consume<<<1, 32, 0, compute>>>(cur);
    cudaStreamWaitEvent(alloc, done, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'cur' [streamlife-missing-consumer-event]
    cudaFreeAsync(cur, alloc);
    cudaEventRecord(done, compute);
  }
}
