// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// streamlife-free-before-wait over the CUDA runtime API: a buffer released on
// stream R while a use on another stream U is not yet ordered before the
// release point on R. One scenario per function.

#include <cuda_runtime.h>

__global__ void produce(float *p);
__global__ void consume(const float *p, float *out);

// No wait at all: the consumer kernel may still read 'buf' when it is freed.
void noWait(cudaStream_t alloc, cudaStream_t compute, float *out) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  produce<<<1, 32, 0, alloc>>>(buf);
  consume<<<1, 32, 0, compute>>>(buf, out);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it [streamlife-free-before-wait]
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE-5]]:3: note: record an event on 'compute' after this use and make 'alloc' wait on it before the release
}

// The correct hand-off: record on the consumer after its use, make the
// allocation stream wait, then release.
void waitBeforeRelease(cudaStream_t alloc, cudaStream_t compute, float *out,
                       cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf, out);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// The wait comes after the release ("wait_event before del, not after").
void waitAfterRelease(cudaStream_t alloc, cudaStream_t compute, float *out,
                      cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf, out);
  cudaEventRecord(done, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-5]]:3: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE+2]]:3: note: stream 'alloc' waits for 'compute' only after the release
  // CHECK-NOTES: :[[@LINE-7]]:3: note: record an event on 'compute' after this use and make 'alloc' wait on it before the release
  cudaStreamWaitEvent(alloc, done, 0);
}

// The wait is issued on the consumer stream itself, not on the release stream.
void waitOnWrongStream(cudaStream_t alloc, cudaStream_t compute, float *out,
                       cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf, out);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(compute, done, 0);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-6]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-6]]:3: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE-5]]:3: note: the wait is on stream 'compute', not on the release stream 'alloc'
  // CHECK-NOTES: :[[@LINE-8]]:3: note: record an event on 'compute' after this use
}

// Two consumers, a wait for only one of them: the other one is named.
void waitForOneOfTwoConsumers(cudaStream_t alloc, cudaStream_t a,
                              cudaStream_t b, float *out, cudaEvent_t aDone) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, a>>>(buf, out);
  consume<<<1, 32, 0, b>>>(buf, out);
  cudaEventRecord(aDone, a);
  cudaStreamWaitEvent(alloc, aDone, 0);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'b' may still use it
  // CHECK-NOTES: :[[@LINE-7]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-6]]:3: note: used on stream 'b' here
}

// Both consumers waited for: fine.
void waitForBothConsumers(cudaStream_t alloc, cudaStream_t a, cudaStream_t b,
                          float *out, cudaEvent_t aDone, cudaEvent_t bDone) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, a>>>(buf, out);
  consume<<<1, 32, 0, b>>>(buf, out);
  cudaEventRecord(aDone, a);
  cudaEventRecord(bDone, b);
  cudaStreamWaitEvent(alloc, aDone, 0);
  cudaStreamWaitEvent(alloc, bDone, 0);
  cudaFreeAsync(buf, alloc);
}

// The wait happens on one branch only: a bug on any path warns.
void waitOnOneBranch(cudaStream_t alloc, cudaStream_t compute, float *out,
                     cudaEvent_t done, bool careful) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf, out);
  if (careful) {
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(alloc, done, 0);
  }
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// The use happens on one branch only, and is waited for there.
void useAndWaitOnSameBranch(cudaStream_t alloc, cudaStream_t compute,
                            float *out, cudaEvent_t done, bool use) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  if (use) {
    consume<<<1, 32, 0, compute>>>(buf, out);
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(alloc, done, 0);
  }
  cudaFreeAsync(buf, alloc);
}

// The event is recorded on the wrong stream (the allocation stream itself).
void eventRecordedOnAllocStream(cudaStream_t alloc, cudaStream_t compute,
                                float *out, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf, out);
  cudaEventRecord(done, alloc);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// Uses on the release stream itself are ordered by the stream.
void sameStream(cudaStream_t s, float *out) {
  float *buf;
  cudaMallocAsync(&buf, 1024, s);
  produce<<<1, 32, 0, s>>>(buf);
  consume<<<1, 32, 0, s>>>(buf, out);
  cudaFreeAsync(buf, s);
}

// cudaMemcpyAsync, cudaMemsetAsync and their 2D/peer/symbol forms are uses.
__device__ float symbol[256];
void copiesAndSetsAreUses(cudaStream_t alloc, cudaStream_t copy, float *host) {
  float *a, *b, *c, *d, *e, *f, *g;
  cudaMallocAsync(&a, 1024, alloc);
  cudaMallocAsync(&b, 1024, alloc);
  cudaMallocAsync(&c, 1024, alloc);
  cudaMallocAsync(&d, 1024, alloc);
  cudaMallocAsync(&e, 1024, alloc);
  cudaMallocAsync(&f, 1024, alloc);
  cudaMallocAsync(&g, 1024, alloc);
  cudaStreamSynchronize(alloc);
  cudaMemcpyAsync(host, a, 1024, cudaMemcpyDeviceToHost, copy);
  cudaMemsetAsync(b, 0, 1024, copy);
  cudaMemcpy2DAsync(c, 64, host, 64, 64, 16, cudaMemcpyHostToDevice, copy);
  cudaMemcpyPeerAsync(d, 1, host, 0, 1024, copy);
  cudaMemcpyToSymbolAsync(symbol, e, 1024, 0, cudaMemcpyDeviceToDevice, copy);
  cudaMemcpyFromSymbolAsync(f, symbol, 1024, 0, cudaMemcpyDeviceToDevice, copy);
  cudaMemset2DAsync(g, 64, 0, 64, 16, copy);
  cudaFreeAsync(a, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(b, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(c, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'c' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(d, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(e, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'e' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(f, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'f' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(g, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'g' is released on stream 'alloc' while stream 'copy' may still use it
}

// Copies between arrays and linear memory use the linear side.
void arrayCopies(cudaStream_t alloc, cudaStream_t copy, cudaArray_t array) {
  float *a, *b;
  cudaMallocAsync(&a, 1024, alloc);
  cudaMallocAsync(&b, 1024, alloc);
  cudaStreamSynchronize(alloc);
  cudaMemcpy2DToArrayAsync(array, 0, 0, a, 64, 64, 16, cudaMemcpyDeviceToDevice, copy);
  cudaMemcpy2DFromArrayAsync(b, 64, array, 0, 0, 64, 16, cudaMemcpyDeviceToDevice, copy);
  cudaFreeAsync(a, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is released on stream 'alloc' while stream 'copy' may still use it
  cudaFreeAsync(b, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is released on stream 'alloc' while stream 'copy' may still use it
}

// cudaMallocFromPoolAsync allocates like cudaMallocAsync; an offset pointer
// still names the buffer.
void poolAllocationAndOffsets(cudaStream_t alloc, cudaStream_t compute,
                              cudaMemPool_t pool, float *out) {
  float *buf;
  cudaMallocFromPoolAsync(&buf, 1024, pool, alloc);
  consume<<<1, 32, 0, compute>>>(buf + 16, out);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
}

// cudaLaunchKernel with the buffer in its argument array is a use.
void launchKernelArgs(cudaStream_t alloc, cudaStream_t compute, float *out) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  void *args[] = {&buf, &out};
  cudaLaunchKernel((const void *)consume, dim3(1), dim3(32), args, 0, compute);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: used on stream 'compute' here
}

// A buffer that came from elsewhere (a parameter) is checked too, without
// the allocation note.
void parameterBuffer(float *buf, cudaStream_t alloc, cudaStream_t compute,
                     float *out) {
  consume<<<1, 32, 0, compute>>>(buf, out);
  cudaFreeAsync(buf, alloc);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES: :[[@LINE-3]]:3: note: used on stream 'compute' here
}

// Buffers held in members and structs are named by their source text.
struct Pipeline {
  cudaStream_t alloc, compute;
  float *params;
  void step(float *out) {
    consume<<<1, 32, 0, compute>>>(params, out);
    cudaFreeAsync(params, alloc);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'params' is released on stream 'alloc' while stream 'compute' may still use it
  }
  void stepWithWait(float *out, cudaEvent_t done) {
    consume<<<1, 32, 0, compute>>>(params, out);
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(alloc, done, 0);
    cudaFreeAsync(params, alloc);
  }
};

// The stream of a launch without a configured stream is the legacy default
// stream; streams we cannot name (an array element picked at run time) are
// not guessed at.
void unknownStream(cudaStream_t *streams, int i, cudaStream_t alloc,
                   float *out) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32, 0, streams[i]>>>(buf, out);
  cudaFreeAsync(buf, alloc);
}
