// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-missing-consumer-event -- %cuda_args
// RUN: %check_streamlife -check-suffixes=FBW %s streamlife-free-before-wait -- %cuda_args
//
// streamlife-missing-consumer-event: the allocation stream waits on an event
// the consumer recorded BEFORE its last use of the buffer (a stale event), so
// the wait does not cover that use.

#include <cuda_runtime.h>
#include <cuda.h>

__global__ void consume(const float *p);

// The event is recorded before the consumer's use: the wait is stale.
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
  cudaFreeAsync(buf, alloc);
  // The same bug seen from the release: a note names the stale wait.
  // CHECK-NOTES-FBW: :[[@LINE-2]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES-FBW: :[[@LINE-11]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES-FBW: :[[@LINE-10]]:3: note: used on stream 'compute' here
  // CHECK-NOTES-FBW: :[[@LINE-10]]:3: note: stream 'alloc' waits on event 'done' recorded on 'compute' before this use
}

// Recorded after the first use but before the last one.
void staleAfterSecondUse(cudaStream_t alloc, cudaStream_t compute,
                         cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
  // CHECK-NOTES: :[[@LINE-4]]:3: note: event 'done' recorded here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: last use on stream 'compute' here
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES-FBW: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}

// Recorded after the last use: correct.
void freshEvent(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(alloc, done, 0);
  cudaFreeAsync(buf, alloc);
}

// A stale event in a loop: recorded at the top of the iteration, before the
// forward that reads the buffer.
void staleInLoop(cudaStream_t alloc, cudaStream_t compute, cudaEvent_t done,
                 int layers) {
  for (int i = 0; i < layers; ++i) {
    float *buf;
    cudaMallocAsync(&buf, 1024, alloc);
    cudaStreamSynchronize(alloc);
    cudaEventRecord(done, compute);
    consume<<<1, 32, 0, compute>>>(buf);
    cudaStreamWaitEvent(alloc, done, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
    cudaFreeAsync(buf, alloc);
    // CHECK-MESSAGES-FBW: :[[@LINE-1]]:5: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  }
}

// A wait by a stream that is not the buffer's allocation stream is about
// something else (here: the consumer waiting for the producer).
void producerHandOff(cudaStream_t alloc, cudaStream_t compute,
                     cudaEvent_t produced) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaEventRecord(produced, alloc);
  cudaStreamWaitEvent(compute, produced, 0);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamSynchronize(compute);
  cudaFreeAsync(buf, alloc);
}

// An event recorded on a third stream says nothing about the consumer.
void eventFromUnrelatedStream(cudaStream_t alloc, cudaStream_t compute,
                              cudaStream_t other, cudaEvent_t e) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaEventRecord(e, other);
  cudaStreamWaitEvent(alloc, e, 0);
  cudaStreamSynchronize(compute);
  cudaFreeAsync(buf, alloc);
}

// An event whose record this function does not see (a parameter) is not
// judged.
void eventRecordedElsewhere(cudaStream_t alloc, cudaStream_t compute,
                            cudaEvent_t recordedByCaller) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaStreamWaitEvent(alloc, recordedByCaller, 0);
  cudaStreamSynchronize(compute);
  cudaFreeAsync(buf, alloc);
}

// The driver API: cuEventRecord before the use, cuStreamWaitEvent after it.
void driverStaleEvent(CUstream alloc, CUstream copy, CUevent done,
                      void *host) {
  CUdeviceptr buf;
  cuMemAllocAsync(&buf, 1024, alloc);
  cuEventRecord(done, copy);
  cuMemcpyDtoHAsync(host, buf, 1024, copy);
  cuStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'copy' before its last use of 'buf'
  cuMemFreeAsync(buf, alloc);
  // CHECK-MESSAGES-FBW: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'copy' may still use it
}

// The stale event is only recorded on one branch; on the other, the fresh
// record covers the use. A stale event on any path warns.
void staleOnOneBranch(cudaStream_t alloc, cudaStream_t compute,
                      cudaEvent_t done, bool early) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  if (early)
    cudaEventRecord(done, compute);
  consume<<<1, 32, 0, compute>>>(buf);
  if (!early)
    cudaEventRecord(done, compute);
  cudaStreamWaitEvent(alloc, done, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: stream 'alloc' waits on event 'done' recorded on 'compute' before its last use of 'buf'
  cudaFreeAsync(buf, alloc);
  // CHECK-MESSAGES-FBW: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
}
