// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args -std=c++17 -I%S/Inputs/rmm
//
// RMM owned buffers (mock headers mirroring rmm's declarations):
// device_buffer, device_uvector<T> and device_scalar<T> are allocated on
// their stream and released on it (or on the stream set_stream gave them) by
// the destructor, a move-assignment or release(); `.data()` in a launch or a
// copy is a use. cuda_stream_view converts to cudaStream_t.

#include <rmm/cuda_stream_pool.hpp>
#include <rmm/device_buffer.hpp>
#include <rmm/device_scalar.hpp>
#include <rmm/device_uvector.hpp>
#include <cudf/detail/utilities/stream_pool.hpp>
#include <utility>

__global__ void consume(const float *p);
__global__ void count(int *c);

// The vector dies at the end of its scope, released on 'ag', while the kernel
// on 'compute' may still read it.
void uvectorDiesAtScopeEnd(rmm::cuda_stream_view ag,
                           rmm::cuda_stream_view compute, std::size_t n) {
  {
    rmm::device_uvector<float> v(n, ag);
    consume<<<1, 32, 0, compute>>>(v.data());
  }
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'v' is released on stream 'ag' while stream 'compute' may still use it [streamlife-free-before-wait]
  // CHECK-NOTES: :[[@LINE-4]]:32: note: 'v' allocated on stream 'ag' here
  // CHECK-NOTES: :[[@LINE-4]]:5: note: used on stream 'compute' here
  // CHECK-NOTES: :[[@LINE-5]]:5: note: record an event on 'compute' after this use and make 'ag' wait on it before the release
}

// Wait, then let it die: correct.
void uvectorWaitThenDie(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute,
                        std::size_t n, cudaEvent_t done) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(ag, done, 0);
}

// set_stream moves the release to the consumer's stream: correct for the
// release (the consumer's own work is in order before it).
void setStreamToConsumer(rmm::cuda_stream_view ag,
                         rmm::cuda_stream_view compute, std::size_t n) {
  rmm::device_buffer b(n, ag);
  consume<<<1, 32, 0, compute>>>(static_cast<const float *>(b.data()));
  b.set_stream(compute);
}

// set_stream to a stream that is not the consumer: still a race.
void setStreamElsewhere(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute,
                        rmm::cuda_stream_view other, std::size_t n) {
  rmm::device_buffer b(n, ag);
  consume<<<1, 32, 0, compute>>>(static_cast<const float *>(b.data()));
  b.set_stream(other);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'b' is released on stream 'other' while stream 'compute' may still use it

// A move-assignment releases the old buffer.
void moveAssignReleases(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute,
                        std::size_t n) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  v = rmm::device_uvector<float>(n, ag);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'v' is released on stream 'ag' while stream 'compute' may still use it
  compute.synchronize();
}

// release() hands the storage out as a device_buffer; dropped at once, it is
// released there. A host sync of the consumer orders everything.
void releaseDropped(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute,
                    std::size_t n) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  v.release();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'v.release()' is released on stream 'ag' while stream 'compute' may still use it
  rmm::device_uvector<float> w(n, ag);
  consume<<<1, 32, 0, compute>>>(w.data());
  compute.synchronize();
  w.release();
}

// device_scalar: the same; value(s) synchronizes s.
void scalarCounter(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute) {
  rmm::device_scalar<int> hits(ag);
  count<<<1, 32, 0, compute>>>(hits.data());
  int seen = hits.value(compute);
  (void)seen;
  rmm::device_scalar<int> misses(0, ag);
  count<<<1, 32, 0, compute>>>(misses.data());
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'misses' is released on stream 'ag' while stream 'compute' may still use it

// Moving the buffer out transfers it: the new owner's end is the release.
void moveTransfers(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute,
                   std::size_t n) {
  rmm::device_buffer b(n, ag);
  consume<<<1, 32, 0, compute>>>(static_cast<const float *>(b.data()));
  {
    rmm::device_buffer owner(std::move(b));
  }
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'owner' is released on stream 'ag' while stream 'compute' may still use it
  compute.synchronize();
}

// Streams from a cuda_stream_pool; cudf's fork/join helpers order them.
void forkJoin(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<float> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 2);
  consume<<<1, 32, 0, streams[0]>>>(v.data());
  consume<<<1, 32, 0, streams[1]>>>(v.data());
  cudf::detail::join_streams(streams, stream);
}

void forkNoJoin(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<float> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 2);
  consume<<<1, 32, 0, streams[1]>>>(v.data());
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'v' is released on stream 'stream' while stream 'streams' may still use it

void poolStreams(rmm::cuda_stream_pool &pool, std::size_t n) {
  rmm::cuda_stream_view a = pool.get_stream();
  rmm::cuda_stream_view b = pool.get_stream();
  rmm::device_buffer buf(n, a);
  consume<<<1, 32, 0, b>>>(static_cast<const float *>(buf.data()));
  cudaFreeAsync(nullptr, a); // unrelated
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'buf' is released on stream 'a' while stream 'b' may still use it
