// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args
// RUN: %check_streamlife -check-suffixes=,OPT %s streamlife-free-before-wait \
// RUN:   -config='{CheckOptions: {streamlife-free-before-wait.ReleaseFunctions: "pool::release:0:1", streamlife-free-before-wait.UseFunctions: "enqueueWork:1:0", streamlife-free-before-wait.AllocateFunctions: "pool::acquire:0:1"}}' \
// RUN:   -- %cuda_args
//
// User-declared wrappers (extern, no body to summarise) become API rows
// through the ReleaseFunctions / UseFunctions / AllocateFunctions options
// ("name:buffer-argument:stream-argument"); NOLINT silences a finding.

#include <cuda_runtime.h>

__global__ void consume(const float *p);

namespace pool {
void acquire(float **out, cudaStream_t stream);
void release(float *data, cudaStream_t stream);
} // namespace pool
void enqueueWork(cudaStream_t stream, const float *data);

// Without the options these calls are opaque and nothing is reported.
void wrappers(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  pool::acquire(&buf, alloc);
  enqueueWork(compute, buf);
  pool::release(buf, alloc);
  // CHECK-NOTES-OPT: :[[@LINE-1]]:3: warning: 'buf' is released on stream 'alloc' while stream 'compute' may still use it
  // CHECK-NOTES-OPT: :[[@LINE-4]]:3: note: 'buf' allocated on stream 'alloc' here
  // CHECK-NOTES-OPT: :[[@LINE-4]]:3: note: used on stream 'compute' here
}

// NOLINT on the release line silences the finding.
void silenced(cudaStream_t alloc, cudaStream_t compute) {
  float *buf;
  cudaMallocAsync(&buf, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  cudaFreeAsync(buf, alloc); // NOLINT(streamlife-free-before-wait)
}

// NOLINTNEXTLINE works too, and a NOLINT for another check does not.
void silencedNextLine(cudaStream_t alloc, cudaStream_t compute) {
  float *buf, *other;
  cudaMallocAsync(&buf, 1024, alloc);
  cudaMallocAsync(&other, 1024, alloc);
  consume<<<1, 32, 0, compute>>>(buf);
  consume<<<1, 32, 0, compute>>>(other);
  // NOLINTNEXTLINE(streamlife-free-before-wait)
  cudaFreeAsync(buf, alloc);
  cudaFreeAsync(other, alloc); // NOLINT(streamlife-use-before-alloc)
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'other' is released on stream 'alloc' while stream 'compute' may still use it
}
