// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-missing-consumer-event -expect-no-fixes -- %cuda_args
//
// streamlife-missing-consumer-event: stale records whose move is not local
// or not certain get no fix-it (-fix leaves the file as it is); the notes
// say what to change. The fixed cases are in missing-consumer-event-fixits.cu.

#include <cuda_runtime.h>

__global__ void consume(const float *p);

// The stale record is in a branch: which record the wait sees depends on
// the path.
void recordInBranch(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                    bool early) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  if (early)
    cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  if (!early)
    cudaEventRecord(done, compute);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
  // CHECK-NOTES: :[[@LINE-5]]:3: note: record the event on 'compute' after this use, then make 'alloc' wait on it
  // CHECK-NOTES-NOT: note: fix:
  cudaFreeAsync(buf, alloc);
}

// The wait is in another block than the record.
void waitInInnerBlock(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                      bool release) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  if (release) {
    consume<<<1, 32, 0, compute>>>(buf);
    cudaStreamWaitEvent(alloc, done, 0);
    cudaFreeAsync(buf, alloc);
  }
  // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
}

// Another stream waits on the event between the record and the last use:
// moving the record would change what that wait orders.
void eventWaitedInBetween(cudaStream_t alloc, cudaStream_t compute,
                          cudaStream_t copy, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(copy, done, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
  cudaFreeAsync(buf, alloc);
}

// A return between the record and the last use: on that path the event
// would never be recorded.
void returnInBetween(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                     bool skip) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  if (skip) {
    cudaStreamWaitEvent(alloc, done, 0);
    cudaFreeAsync(buf, alloc);
    return;
  }
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
  cudaFreeAsync(buf, alloc);
}

// The host polls the event between the record and the last use: moving
// the record would change what the poll sees.
void eventPolledInBetween(cudaStream_t alloc, cudaStream_t compute,
                          cudaEvent_t done, int *ready) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  *ready = cudaEventQuery(done) == cudaSuccess;
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
  cudaFreeAsync(buf, alloc);
}

// A member event: any call in between may touch it.
struct Stage {
  cudaStream_t alloc;
  cudaStream_t compute;
  cudaEvent_t done;
  void run() {
    float *buf;
    cudaMallocAsync(&buf, 1024, alloc);
    cudaEventRecord(done, compute);
    consume<<<1, 32, 0, compute>>>(buf);
    cudaStreamWaitEvent(alloc, done, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
    cudaFreeAsync(buf, alloc);
  }
};
