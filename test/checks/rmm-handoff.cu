// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args -std=c++17 -I%S/Inputs/rmm
// RUN: %check_streamlife %s streamlife-free-before-wait -check-suffixes=,OPT \
// RUN:   -config="{CheckOptions: {streamlife-free-before-wait.StreamWaitFunctions: 'mylib::joinInto:1:0'}}" \
// RUN:   -- %cuda_args -std=c++17 -I%S/Inputs/rmm -DUSE_MYLIB
// RUN: %check_streamlife %s streamlife-free-before-wait -check-suffixes=,NOOPT \
// RUN:   -- %cuda_args -std=c++17 -I%S/Inputs/rmm -DUSE_MYLIB
//
// Hand-off of RMM buffers to the caller: a buffer allocated on a pool stream
// the caller never sees is returned; the caller's later release happens on
// that stream, unordered with the caller's own work. set_stream to the
// caller's stream after the join rebinds it (cudf::rebind_stream's idea).
// The fork/join wrappers of a library are an option (StreamWaitFunctions:
// name:waiting-stream-argument:waited-streams-argument).

#include <rmm/cuda_stream_pool.hpp>
#include <rmm/device_uvector.hpp>
#include <cudf/detail/utilities/stream_pool.hpp>
#include <utility>

__global__ void fill(float *p);

rmm::device_uvector<float> gatherOnPool(rmm::cuda_stream_view stream,
                                        std::size_t n) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  rmm::device_uvector<float> out(n, streams[0]);
  fill<<<1, 32, 0, streams[0]>>>(out.data());
  cudf::detail::join_streams(streams, stream);
  return out;
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'out' is handed to the caller but is released on stream 'streams', which the caller does not know; its uses on the caller's stream will not be ordered before that release
  // CHECK-NOTES: :[[@LINE-5]]:30: note: 'out' allocated on stream 'streams' here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: allocate it on the caller's stream, or rebind it to the caller's stream after the join (record_stream, set_stream)
}

rmm::device_uvector<float> gatherRebound(rmm::cuda_stream_view stream,
                                         std::size_t n) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  rmm::device_uvector<float> out(n, streams[0]);
  fill<<<1, 32, 0, streams[0]>>>(out.data());
  cudf::detail::join_streams(streams, stream);
  out.set_stream(stream);
  return out;
}

rmm::device_uvector<float> gatherOnCallerStream(rmm::cuda_stream_view stream,
                                                std::size_t n) {
  rmm::device_uvector<float> out(n, stream);
  fill<<<1, 32, 0, stream>>>(out.data());
  return out;
}

#ifdef USE_MYLIB
namespace mylib {
void joinInto(rmm::cuda_stream_view side, rmm::cuda_stream_view main);
}

// A library's own join wrapper, declared through the option: 'main' waits on
// 'side' before the buffer dies on it.
void ownJoin(rmm::cuda_stream_view main, rmm::cuda_stream_view side,
             std::size_t n) {
  rmm::device_uvector<float> v(n, main);
  fill<<<1, 32, 0, side>>>(v.data());
  mylib::joinInto(side, main);
}
// CHECK-MESSAGES-NOOPT: :[[@LINE-1]]:1: warning: 'v' is released on stream 'main' while stream 'side' may still use it
#endif
