// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// Orderings that make a release safe besides wait-on-event: host syncs of the
// consumer stream, of an event recorded after the use, of the device, the
// implicit device sync of cudaFree, and the legacy default stream's implicit
// ordering with blocking streams.

#include <cuda_runtime.h>

__global__ void consume(const float *p);

// cudaStreamSynchronize on the consumer stream completes its use.
void streamSyncOfConsumer(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamSynchronize(compute);
  cudaFreeAsync(buf, alloc);
}

// Synchronizing the allocation stream does not complete the consumer's use.
void streamSyncOfWrongStream(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamSynchronize(alloc);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// cudaEventSynchronize on an event recorded on the consumer after the use.
void eventSyncAfterUse(cudaStream_t alloc, cudaStream_t compute,
                       cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaEventSynchronize(done);
  cudaFreeAsync(buf, alloc);
}

// ... but not on an event recorded before the use.
void eventSyncBeforeUse(cudaStream_t alloc, cudaStream_t compute,
                        cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventSynchronize(done);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// cudaEventRecordWithFlags records like cudaEventRecord.
void eventRecordWithFlags(cudaStream_t alloc, cudaStream_t compute,
                          cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecordWithFlags(done, compute, 0);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// cudaDeviceSynchronize completes every use.
void deviceSync(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaDeviceSynchronize();
  cudaFreeAsync(buf, alloc);
}

// The synchronous cudaFree of another buffer syncs the device first.
void synchronousFreeOfAnotherBuffer(cudaStream_t alloc, cudaStream_t compute,
                                    float *other) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFree(other);
  cudaFreeAsync(buf, alloc);
}

// Releasing with the synchronous cudaFree is itself safe.
void synchronousFree(cudaStream_t compute) {
  float *buf;
  cudaMalloc(&buf, 1024);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFree(buf);
}

// A sync that comes only after the release does not help.
void syncAfterRelease(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  cudaDeviceSynchronize();
}

// Legacy default stream: a release on stream 0 waits for earlier work on
// blocking streams (created without cudaStreamNonBlocking).
void legacyReleaseAfterBlockingUse() {
  cudaStream_t compute;
  cudaStreamCreate(&compute);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
}

// ... but not for work on non-blocking streams.
void legacyReleaseAfterNonBlockingUse() {
  cudaStream_t compute;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on the legacy default stream while stream 'compute' may still use it
}

// cudaStreamLegacy and nullptr name the legacy default stream too.
void legacyHandleSpellings() {
  cudaStream_t compute;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  float *a, *b;
  cudaMallocAsync(&a, 1024, cudaStreamLegacy);
  cudaMallocAsync(&b, 1024, nullptr);
  consume<<<1, 32, 0, compute>>>(a);
  consume<<<1, 32, 0, compute>>>(b);
  cudaFreeAsync(a, cudaStreamLegacy);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'a' is released on the legacy default stream while stream 'compute' may still use it
  cudaFreeAsync(b, nullptr);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'b' is released on the legacy default stream while stream 'compute' may still use it
}

// A blocking stream waits for earlier work on the legacy stream: a kernel
// launched without a stream (legacy) and a release on a blocking stream.
void blockingReleaseAfterLegacyUse() {
  cudaStream_t alloc;
  cudaStreamCreateWithFlags(&alloc, cudaStreamDefault);
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32>>>(buf);
  cudaFreeAsync(buf, alloc);
}

// A non-blocking release stream does not wait for the legacy stream.
void nonBlockingReleaseAfterLegacyUse() {
  cudaStream_t alloc;
  cudaStreamCreateWithFlags(&alloc, cudaStreamNonBlocking);
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while the legacy default stream may still use it
}

// Two blocking streams are ordered through legacy-stream work in between.
void blockingStreamsThroughLegacyWork(float *other) {
  cudaStream_t alloc, compute;
  cudaStreamCreate(&alloc);
  cudaStreamCreate(&compute);
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  consume<<<1, 32, 0, 0>>>(other);
  cudaFreeAsync(buf, alloc);
}

// Without legacy-stream work in between, two blocking streams are unordered.
void blockingStreamsWithoutLegacyWork() {
  cudaStream_t alloc, compute;
  cudaStreamCreate(&alloc);
  cudaStreamCreate(&compute);
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaStreamSynchronize(alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// cudaStreamPerThread is a stream of its own.
void perThreadStreamIsAStream(cudaStream_t alloc) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, cudaStreamPerThread>>>(buf);
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while the per-thread default stream may still use it
}

// ... which is ordered like any other once waited for.
void perThreadStreamWaitedFor(cudaStream_t alloc, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, cudaStreamPerThread>>>(buf);
  cudaEventRecord(done, cudaStreamPerThread);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// Ordering is transitive through a chain of waits: compute -> mid -> alloc.
void transitiveWaits(cudaStream_t alloc, cudaStream_t mid,
                     cudaStream_t compute, cudaEvent_t e1, cudaEvent_t e2) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(e1, compute);
  cudaStreamWaitEvent(mid, e1, 0);
  cudaEventRecord(e2, mid);
  cudaStreamWaitEvent(alloc, e2, 0);
  cudaFreeAsync(buf, alloc);
}

// Streams whose creation flags are unknown (parameters) are assumed blocking:
// in doubt, no warning about legacy-stream ordering.
void unknownFlagsAssumedBlocking(cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, 0);
}

// A local copy of a stream handle is the same stream.
struct Worker {
  cudaStream_t stream;
  void run(cudaStream_t compute, cudaEvent_t done) {
    cudaStream_t s = stream;
    float *buf;
    cudaMallocAsync(&buf, 1024, stream);
    consume<<<1, 32, 0, compute>>>(buf);
    cudaEventRecord(done, compute);
    cudaStreamWaitEvent(s, done, 0);
    cudaFreeAsync(buf, stream);
  }
};

// An event recorded where the function cannot see it (an opaque call) is
// taken to order what came before the wait: in doubt, no warning.
void recordOnConsumer(cudaEvent_t event, cudaStream_t stream);
void opaqueRecord(cudaStream_t alloc, cudaStream_t compute) {
  cudaEvent_t done;
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  recordOnConsumer(done, compute);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// Events picked at run time (events[i]) cannot be followed: a wait or a sync
// on one is taken to order everything before it, rather than warn.
void eventArrays(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t *events,
                 int n) {
  for (int i = 0; i < n; ++i) {
    float *a, *b;
    cudaMallocAsync(&a, 1024, alloc);
    cudaMallocAsync(&b, 1024, alloc);
    consume<<<1, 32, 0, compute>>>(a);
    cudaEventRecord(events[i], compute);
    cudaStreamWaitEvent(alloc, events[i], 0);
    cudaFreeAsync(a, alloc);
    consume<<<1, 32, 0, compute>>>(b);
    cudaEventRecord(events[i], compute);
    cudaEventSynchronize(events[i]);
    cudaFreeAsync(b, alloc);
  }
}
