// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -- %cuda_args -std=c++17 -I%S/Inputs/rmm
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -check-suffixes=,OPT \
// RUN:   -config="{CheckOptions: {streamlife-use-before-alloc.StreamForkFunctions: 'mylib::forkFrom:0', streamlife-free-before-wait.StreamForkFunctions: 'mylib::forkFrom:0'}}" \
// RUN:   -- %cuda_args -std=c++17 -I%S/Inputs/rmm -DUSE_MYLIB
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -check-suffixes=,NOOPT \
// RUN:   -- %cuda_args -std=c++17 -I%S/Inputs/rmm -DUSE_MYLIB
//
// Fork/join over stream pools, as libraries built on RMM write it: the
// streams cudf::detail::fork_streams(stream, n) returns wait on `stream`,
// join_streams(streams, stream) makes `stream` wait on them. A caller's
// buffer allocated on `stream` may be used on the forked streams and is
// released on `stream` after the join. A project's own fork helpers are an
// option (StreamForkFunctions: name:waited-stream-argument). Helpers that
// take a stream and write a caller's buffer (a datasource's async device
// read) use the buffer on that stream.

#include <cudf/detail/utilities/stream_pool.hpp>
#include <cudf/io/datasource.hpp>
#include <rmm/cuda_stream_pool.hpp>
#include <rmm/device_buffer.hpp>
#include <rmm/device_uvector.hpp>

__global__ void fill(float *p);

// Forked, used on the pool streams, joined: clean.
void forkUseJoin(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<float> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 2);
  fill<<<1, 32, 0, streams[0]>>>(v.data());
  fill<<<1, 32, 0, streams[1]>>>(v.data());
  cudf::detail::join_streams(streams, stream);
}

// Pool streams taken straight from the pool never waited for `stream`.
void poolWithoutFork(rmm::cuda_stream_pool &pool, rmm::cuda_stream_view stream,
                     std::size_t n) {
  rmm::device_uvector<float> v(n, stream);
  auto side = pool.get_stream();
  fill<<<1, 32, 0, side>>>(v.data());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'v' is used on stream 'side' before 'side' is ordered after its allocation on stream 'stream' [streamlife-use-before-alloc]
  side.synchronize();
}

// Forked but never joined: the buffer dies on `stream` while a pool stream
// may still write it.
void forkWithoutJoin(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<float> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 1);
  fill<<<1, 32, 0, streams[0]>>>(v.data());
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'v' is released on stream 'stream' while stream 'streams' may still use it [streamlife-free-before-wait]

// An async device read into the caller's buffer on a forked stream, joined
// before returning: clean.
void readIntoCaller(cudf::io::datasource &source, rmm::device_buffer &out,
                    rmm::cuda_stream_view stream) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  source.device_read_async(0, out.size(), static_cast<std::uint8_t *>(out.data()),
                           streams[0]);
  cudf::detail::join_streams(streams, stream);
}

// The read's destination is released on `stream` with the read still
// queued on the pool stream.
void readThenDrop(cudf::io::datasource &source, rmm::cuda_stream_view stream,
                  std::size_t n) {
  rmm::device_buffer staging(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 1);
  source.device_read_async(0, n, static_cast<std::uint8_t *>(staging.data()),
                           streams[0]);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'staging' is released on stream 'stream' while stream 'streams' may still use it [streamlife-free-before-wait]

// A read into a fresh buffer on a stream that never waited for its
// allocation.
void readBeforeAllocation(cudf::io::datasource &source,
                          rmm::cuda_stream_pool &pool,
                          rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_buffer staging(n, stream);
  auto reader = pool.get_stream();
  source.device_read(0, n, static_cast<std::uint8_t *>(staging.data()), reader);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'staging' is used on stream 'reader' before 'reader' is ordered after its allocation on stream 'stream' [streamlife-use-before-alloc]
  reader.synchronize();
}

#ifdef USE_MYLIB
namespace mylib {
std::vector<rmm::cuda_stream_view> forkFrom(rmm::cuda_stream_view stream,
                                            int count);
}

// A library's own fork helper, declared through the option.
void ownFork(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<float> v(n, stream);
  auto lanes = mylib::forkFrom(stream, 2);
  fill<<<1, 32, 0, lanes[0]>>>(v.data());
  // CHECK-MESSAGES-NOOPT: :[[@LINE-1]]:3: warning: 'v' is used on stream 'lanes' before 'lanes' is ordered after its allocation on stream 'stream' [streamlife-use-before-alloc]
  cudf::detail::join_streams(lanes, stream);
}
#endif
