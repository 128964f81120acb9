// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// Calls to functions defined in this translation unit are followed through
// summaries (what the callee does to the buffers, streams and events its
// caller passes in), not by inlining.

#include <cuda_runtime.h>

__global__ void consume(const float *p);

// A helper that launches on its stream parameter is a use on the caller's
// stream.
static void launchOn(const float *data, cudaStream_t stream) {
  consume<<<1, 32, 0, stream>>>(data);
}

void helperUse(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  launchOn(buf, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: used on stream 'compute' here
}

// The same helper on the allocation stream is fine.
void helperUseOnAllocStream(cudaStream_t alloc) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  launchOn(buf, alloc);
  cudaFreeAsync(buf, alloc);
}

// A helper that releases: the warning is at the call.
static void release(float *data, cudaStream_t stream) {
  cudaFreeAsync(data, stream);
}

void helperRelease(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  release(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// A helper that does the hand-off (record on the consumer, wait on the
// release stream) orders the use.
static void handOff(cudaStream_t from, cudaStream_t to, cudaEvent_t event) {
  cudaEventRecord(event, from);
  cudaStreamWaitEvent(to, event, 0);
}

void helperWait(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t e) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  handOff(compute, alloc, e);
  release(buf, alloc);
}

// ... in the right direction only.
void helperWaitWrongDirection(cudaStream_t alloc, cudaStream_t compute,
                              cudaEvent_t e) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  handOff(alloc, compute, e);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// A helper that synchronizes the stream it is given.
static void drain(cudaStream_t stream) { cudaStreamSynchronize(stream); }

void helperSync(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  drain(compute);
  cudaFreeAsync(buf, alloc);
}

// A helper that allocates through an out parameter; summaries compose
// (a helper calling a helper).
static void allocate(float **out, cudaStream_t stream) {
  cudaMallocAsync(out, 1024, stream);
}
static void produceAndConsume(float *data, cudaStream_t stream) {
  launchOn(data, stream);
}

void nestedHelpers(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  allocate(&buf, alloc);
  produceAndConsume(buf, compute);
  release(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: used on stream 'compute' here
}

// Recursion terminates (the recursive call sees an empty summary).
static void recurse(float *data, cudaStream_t stream, int depth) {
  if (depth > 0)
    recurse(data, stream, depth - 1);
  consume<<<1, 32, 0, stream>>>(data);
}

void recursiveHelper(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  recurse(buf, compute, 3);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// A helper working on its own stream and buffer has nothing to say about the
// caller's.
static void selfContained() {
  cudaStream_t own;
  cudaStreamCreate(&own);
  float *scratch;
  cudaMallocAsync(&scratch, 1024, own);
  consume<<<1, 32, 0, own>>>(scratch);
  cudaFreeAsync(scratch, own);
}

void selfContainedHelper(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  selfContained();
  cudaFreeAsync(buf, alloc);
}

// A helper doing the hand-off with its own local event.
static void handOffWithLocalEvent(cudaStream_t from, cudaStream_t to) {
  cudaEvent_t event;
  cudaEventCreate(&event);
  cudaEventRecord(event, from);
  cudaStreamWaitEvent(to, event, 0);
}

void helperWaitLocalEvent(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  handOffWithLocalEvent(compute, alloc);
  cudaFreeAsync(buf, alloc);
}

void helperWaitLocalEventWrongDirection(cudaStream_t alloc,
                                        cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  handOffWithLocalEvent(alloc, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// A helper that synchronizes only on one path: its summary is its own exit
// state, where the consumer's work is still pending on the other path (part
// 1 replayed the helper "as if everything ran" and took the sync as done).
static void maybeDrain(cudaStream_t stream, bool early) {
  if (early)
    cudaStreamSynchronize(stream);
}

void helperConditionalSync(cudaStream_t alloc, cudaStream_t compute,
                           bool early) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  maybeDrain(compute, early);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// A sync on both paths is a sync.
static void drainEitherWay(cudaStream_t stream, bool early) {
  if (early)
    cudaStreamSynchronize(stream);
  else
    cudaDeviceSynchronize();
}

void helperSyncOnBothPaths(cudaStream_t alloc, cudaStream_t compute,
                           bool early) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  drainEitherWay(compute, early);
  cudaFreeAsync(buf, alloc);
}

// A helper that returns a buffer still in use on another stream: the
// caller's buffer keeps that pending use.
static float *produce(cudaStream_t alloc, cudaStream_t compute) {
  float *out;
  cudaMallocAsync(&out, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(out);
  return out;
}

void helperReturnsBusyBuffer(cudaStream_t alloc, cudaStream_t compute) {
  float *buf = produce(alloc, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-3]]:16: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-4]]:16: note: used on stream 'compute' here
}

// ... and one that hands it back after the consumer's work is ordered.
static float *produceAndJoin(cudaStream_t alloc, cudaStream_t compute,
                             cudaEvent_t done) {
  float *out;
  cudaMallocAsync(&out, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(out);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(alloc, done, 0);
  return out;
}

void helperReturnsJoinedBuffer(cudaStream_t alloc, cudaStream_t compute,
                               cudaEvent_t done) {
  float *buf = produceAndJoin(alloc, compute, done);
  cudaFreeAsync(buf, alloc);
}
