// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
//
// Producer/consumer pipelines across loop iterations (the seed's four
// pipelines in CUDA C++, plus deferred releases). The analysis iterates loops
// to a fixpoint, so a use in iteration k reaches a release in iteration k+1.

#include <cuda_runtime.h>

__global__ void allGather(float *params, int layer);
__global__ void forward(const float *params, float *out);

// No lifetime management: the release in each iteration races with the
// forward enqueued just before it, and so does the last one.
void buggy(cudaStream_t ag, cudaStream_t compute, float *out,
           cudaEvent_t gathered) {
  float *prev;
  cudaMallocAsync(&prev, 4096, ag);
  allGather<<<1, 256, 0, ag>>>(prev, 1);
  for (int layer = 2; layer <= 4; ++layer) {
    cudaEventRecord(gathered, ag);
    cudaStreamWaitEvent(compute, gathered, 0);
    forward<<<1, 256, 0, compute>>>(prev, out);
    cudaFreeAsync(prev, ag);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'prev' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
    // CHECK-NOTES: :[[@LINE-8]]:3: note: 'prev' allocated on stream 'ag' here
    // CHECK-NOTES: :[[@LINE-4]]:5: note: used on stream 'compute' here
    // CHECK-NOTES: :[[@LINE-5]]:5: note: record an event on 'compute' after this use and make 'ag' wait on it before the release
    cudaMallocAsync(&prev, 4096, ag);
    allGather<<<1, 256, 0, ag>>>(prev, layer);
  }
  cudaEventRecord(gathered, ag);
  cudaStreamWaitEvent(compute, gathered, 0);
  forward<<<1, 256, 0, compute>>>(prev, out);
  cudaFreeAsync(prev, ag);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'prev' is released on stream 'ag' while stream 'compute' may still use it
}

// Stall: the producer waits for each forward before the release.
void stall(cudaStream_t ag, cudaStream_t compute, float *out,
           cudaEvent_t gathered, cudaEvent_t forwarded) {
  float *prev;
  cudaMallocAsync(&prev, 4096, ag);
  allGather<<<1, 256, 0, ag>>>(prev, 1);
  for (int layer = 2; layer <= 4; ++layer) {
    cudaEventRecord(gathered, ag);
    cudaStreamWaitEvent(compute, gathered, 0);
    forward<<<1, 256, 0, compute>>>(prev, out);
    cudaEventRecord(forwarded, compute);
    cudaStreamWaitEvent(ag, forwarded, 0);
    cudaFreeAsync(prev, ag);
    cudaMallocAsync(&prev, 4096, ag);
    allGather<<<1, 256, 0, ag>>>(prev, layer);
  }
  cudaEventRecord(gathered, ag);
  cudaStreamWaitEvent(compute, gathered, 0);
  forward<<<1, 256, 0, compute>>>(prev, out);
  cudaEventRecord(forwarded, compute);
  cudaStreamWaitEvent(ag, forwarded, 0);
  cudaFreeAsync(prev, ag);
}

// Keepalive: keep a reference and its event, wait-then-release one step
// later, so the next all-gather gets a different block.
void keepalive(cudaStream_t ag, cudaStream_t compute, float *out,
               cudaEvent_t gathered, cudaEvent_t forwarded) {
  float *prev, *keep = nullptr;
  cudaEvent_t keepEvent = nullptr;
  cudaMallocAsync(&prev, 4096, ag);
  allGather<<<1, 256, 0, ag>>>(prev, 1);
  for (int layer = 2; layer <= 4; ++layer) {
    if (keep) {
      cudaStreamWaitEvent(ag, keepEvent, 0);
      cudaFreeAsync(keep, ag);
    }
    cudaEventRecord(gathered, ag);
    cudaStreamWaitEvent(compute, gathered, 0);
    forward<<<1, 256, 0, compute>>>(prev, out);
    cudaEventRecord(forwarded, compute);
    keep = prev;
    keepEvent = forwarded;
    cudaMallocAsync(&prev, 4096, ag);
    allGather<<<1, 256, 0, ag>>>(prev, layer);
  }
  if (keep) {
    cudaStreamWaitEvent(ag, keepEvent, 0);
    cudaFreeAsync(keep, ag);
  }
  cudaEventRecord(gathered, ag);
  cudaStreamWaitEvent(compute, gathered, 0);
  forward<<<1, 256, 0, compute>>>(prev, out);
  cudaEventRecord(forwarded, compute);
  cudaStreamWaitEvent(ag, forwarded, 0);
  cudaFreeAsync(prev, ag);
}

// Keepalive that forgets the wait: the release in iteration k+1 races with
// the forward of iteration k.
void keepaliveWithoutWait(cudaStream_t ag, cudaStream_t compute, float *out,
                          cudaEvent_t gathered) {
  float *keep = nullptr;
  for (int layer = 1; layer <= 4; ++layer) {
    if (keep)
      cudaFreeAsync(keep, ag);
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'keep' is released on stream 'ag' while stream 'compute' may still use it
    // CHECK-NOTES: :[[@LINE+5]]:5: note: 'cur' allocated on stream 'ag' here
    // CHECK-NOTES: :[[@LINE+8]]:5: note: used on stream 'compute' here
    // CHECK-NOTES: :[[@LINE+7]]:5: note: the use happens in an earlier loop iteration than the release
    // CHECK-NOTES: :[[@LINE+6]]:5: note: record an event on 'compute' after this use and make 'ag' wait on it before the release
    float *cur;
    cudaMallocAsync(&cur, 4096, ag);
    allGather<<<1, 256, 0, ag>>>(cur, layer);
    cudaEventRecord(gathered, ag);
    cudaStreamWaitEvent(compute, gathered, 0);
    forward<<<1, 256, 0, compute>>>(cur, out);
    keep = cur;
  }
}

// The same pipelines written with while and do-while loops.
void buggyWhile(cudaStream_t ag, cudaStream_t compute, float *out,
                cudaEvent_t gathered, int layers) {
  float *prev;
  cudaMallocAsync(&prev, 4096, ag);
  while (layers-- > 0) {
    cudaEventRecord(gathered, ag);
    cudaStreamWaitEvent(compute, gathered, 0);
    forward<<<1, 256, 0, compute>>>(prev, out);
    cudaFreeAsync(prev, ag);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'prev' is released on stream 'ag' while stream 'compute' may still use it
    cudaMallocAsync(&prev, 4096, ag);
  }
  cudaFreeAsync(prev, ag);
}

void stallDoWhile(cudaStream_t ag, cudaStream_t compute, float *out,
                  cudaEvent_t gathered, cudaEvent_t forwarded, int layers) {
  float *prev;
  cudaMallocAsync(&prev, 4096, ag);
  do {
    cudaEventRecord(gathered, ag);
    cudaStreamWaitEvent(compute, gathered, 0);
    forward<<<1, 256, 0, compute>>>(prev, out);
    cudaEventRecord(forwarded, compute);
    cudaStreamWaitEvent(ag, forwarded, 0);
    cudaFreeAsync(prev, ag);
    cudaMallocAsync(&prev, 4096, ag);
  } while (--layers > 0);
  cudaFreeAsync(prev, ag);
}

// Ping-pong over two named slots of an array (constant subscripts name one
// buffer each): slot 0 is waited for, slot 1 is not.
void pingPongSlots(cudaStream_t ag, cudaStream_t compute, float *out,
                   cudaEvent_t done0) {
  float *slot[2];
  cudaMallocAsync(&slot[0], 4096, ag);
  cudaMallocAsync(&slot[1], 4096, ag);
  cudaStreamSynchronize(ag);
  forward<<<1, 256, 0, compute>>>(slot[0], out);
  cudaEventRecord(done0, compute);
  forward<<<1, 256, 0, compute>>>(slot[1], out);
  cudaStreamWaitEvent(ag, done0, 0);
  cudaFreeAsync(slot[0], ag);
  cudaFreeAsync(slot[1], ag);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'slot[1]' is released on stream 'ag' while stream 'compute' may still use it
}

// An N-deep queue indexed at run time (ring[i % N]) is not tracked: the
// analysis does not guess which slot an index names, so it stays silent.
void ringQueue(cudaStream_t ag, cudaStream_t compute, float *out, int layers) {
  constexpr int N = 3;
  float *ring[N];
  for (int i = 0; i < layers; ++i) {
    if (i >= N)
      cudaFreeAsync(ring[i % N], ag);
    cudaMallocAsync(&ring[i % N], 4096, ag);
    forward<<<1, 256, 0, compute>>>(ring[i % N], out);
  }
}
