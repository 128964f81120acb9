// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait,streamlife-missing-consumer-event -check-suffixes=,PT -- %cuda_args -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1
// RUN: %check_streamlife %s streamlife-free-before-wait,streamlife-missing-consumer-event -check-suffixes=,LEGACY -- %cuda_args
//
// The default stream under nvcc's --default-stream per-thread (which defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM): the null stream, an omitted stream argument and a kernel launch
// without one are the calling thread's per-thread default stream, an ordinary
// stream. The legacy default stream waits for earlier work on every blocking
// stream and makes later work on them wait for it; the per-thread one does
// neither. Each function below is ordered by that implicit synchronization
// with the legacy default stream only: clean in the legacy run, a finding
// under per-thread default streams whose note names the per-thread stream.

#include <cuda_runtime.h>

__global__ void consume(const float *p);
__global__ void touch(const float *p);

// Allocated and released on the default stream, used on another stream.
void releaseOnDefaultStream(cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
  // CHECK-NOTES-PT: :[[@LINE-1]]:3: warning: 'buf' is released on the per-thread default stream while stream 'compute' may still use it [streamlife-free-before-wait]
  // CHECK-NOTES-PT: :[[@LINE-2]]:3: note: the default stream of this file is the per-thread default stream (nvcc --default-stream per-thread, or CUDA_API_PER_THREAD_DEFAULT_STREAM): unlike the legacy default stream it neither waits for other streams' work nor makes them wait for its own
}

// nullptr and an omitted stream argument are the same stream.
void releaseOnNullStream(cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, nullptr);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, nullptr);
  // CHECK-MESSAGES-PT: :[[@LINE-1]]:3: warning: 'buf' is released on the per-thread default stream while stream 'compute' may still use it [streamlife-free-before-wait]
}

// A kernel launched without a stream between the use and the release: on
// the legacy stream it orders the release after the use.
void defaultStreamLaunchBetween(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  touch<<<1, 1>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES-PT: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it [streamlife-free-before-wait]
}

// The consumer is the default stream and records its event before its last
// use: the allocation stream's wait is stale, which only the legacy stream's
// implicit ordering would cover.
void staleEventOnDefaultStream(cudaStream_t alloc, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32>>>(buf);
  cudaEventRecord(done, 0);
  consume<<<1, 32>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-NOTES-PT: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on the per-thread default stream before its last use of 'buf' [streamlife-missing-consumer-event]
  // CHECK-NOTES-PT: :[[@LINE-2]]:3: note: the default stream of this file is the per-thread default stream {{.*}}
  cudaFreeAsync(buf, alloc);
}

// Not the default stream: cudaStreamLegacy names the legacy stream whatever
// the default, so its implicit ordering holds in both runs.
void explicitLegacyStream(cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, cudaStreamLegacy);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, cudaStreamLegacy);
}

// Waited for properly: clean under both.
void perThreadWaitedFor(cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(0, done, 0);
  cudaFreeAsync(buf, 0);
}

// Control: a race between two named streams is one in both runs.
void namedStreamsRace(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it [streamlife-free-before-wait]
}
