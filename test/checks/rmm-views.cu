// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-use-before-alloc,streamlife-free-before-wait -- %cuda_args -std=c++17 -I%S/Inputs/rmm
//
// libcudf hands its buffers to helpers as spans (cudf::device_span, which is
// cuda::std::span) and makes them with its vector factories
// (make_device_uvector_async and kin allocate on their stream argument). A
// span owns nothing: a helper given a span of a buffer (or a subspan, or its
// data()) and one stream works on the buffer on that stream. The shapes are
// those of cudf's codecs, which split one batch between a device and a host
// engine on two forked streams and join them before the results are read.

#include <cudf/detail/utilities/stream_pool.hpp>
#include <cudf/detail/utilities/vector_factories.hpp>
#include <cudf/utilities/span.hpp>
#include <rmm/cuda_stream_pool.hpp>
#include <rmm/device_uvector.hpp>

__global__ void fill(int *p);
void deviceEngine(cudf::device_span<int> results, rmm::cuda_stream_view stream);
void hostEngine(cudf::device_span<int> results, rmm::cuda_stream_view stream);
void reorder(cudf::device_span<int const> results, rmm::cuda_stream_view stream);
void describe(std::size_t count, rmm::cuda_stream_view stream);

// Split between two forked streams through subspans, joined before the
// results are read and the vector released: clean.
void splitAndJoin(cudf::device_span<int const> initial, rmm::cuda_stream_view stream,
                  std::size_t split) {
  auto results = cudf::detail::make_device_uvector_async(initial, stream,
                                                         rmm::mr::get_current_device_resource());
  cudf::device_span<int> view = results;
  auto streams = cudf::detail::fork_streams(stream, 2);
  deviceEngine(view.subspan(split, view.size() - split), streams[0]);
  hostEngine(view.subspan(0, split), streams[1]);
  cudf::detail::join_streams(streams, stream);
  reorder(view, stream);
}

// The same without the join: the factory's vector is released on `stream`
// while the engines may still write it through their subspans.
void splitWithoutJoin(cudf::device_span<int const> initial, rmm::cuda_stream_view stream,
                      std::size_t split) {
  auto results = cudf::detail::make_device_uvector_async(initial, stream,
                                                         rmm::mr::get_current_device_resource());
  cudf::device_span<int> view = results;
  auto streams = cudf::detail::fork_streams(stream, 2);
  deviceEngine(view.subspan(split, view.size() - split), streams[0]);
  hostEngine(view.subspan(0, split), streams[1]);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'results' is released on stream 'stream' while stream 'streams' may still use it [streamlife-free-before-wait]

// A zeroed vector written through a span on a pool stream that never waited
// for the memset and allocation on `stream`.
void zeroedOnPool(rmm::cuda_stream_pool &pool, rmm::cuda_stream_view stream, std::size_t n) {
  auto counts = cudf::detail::make_zeroed_device_uvector_async<int>(
      n, stream, rmm::mr::get_current_device_resource());
  cudf::device_span<int> view{counts};
  auto side = pool.get_stream();
  deviceEngine(view, side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'counts' is used on stream 'side' before 'side' is ordered after its allocation on stream 'stream' [streamlife-use-before-alloc]
  side.synchronize();
}

// A span's data() launched on a forked stream, not joined.
void spanDataWithoutJoin(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<int> v(n, stream);
  auto const view = cudf::device_span<int>(v);
  auto streams = cudf::detail::fork_streams(stream, 1);
  fill<<<1, 32, 0, streams[0]>>>(view.first(n / 2).data());
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'v' is released on stream 'stream' while stream 'streams' may still use it [streamlife-free-before-wait]

// A helper of this file hands its span parameter on to a library call on its
// stream (cuDF's device_compress hands its spans to nvcomp): the caller's
// buffer is used on the stream the caller passes.
void compressOn(cudf::device_span<int> results, rmm::cuda_stream_view stream) {
  deviceEngine(results, stream);
}

void helperJoined(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<int> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 1);
  compressOn(v, streams[0]);
  cudf::detail::join_streams(streams, stream);
}

void helperWithoutJoin(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<int> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 1);
  compressOn(v, streams[0]);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'v' is released on stream 'stream' while stream 'streams' may still use it [streamlife-free-before-wait]

// What a span's metadata gives (its size) is not a use of the buffer.
void sizeIsNotAUse(rmm::cuda_stream_pool &pool, rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<int> v(n, stream);
  cudf::device_span<int> view = v;
  auto side = pool.get_stream();
  describe(view.size(), side);
  side.synchronize();
}

// A span the caller owns the storage of: nothing of this function's.
void callersSpan(cudf::device_span<int> out, rmm::cuda_stream_view stream) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  deviceEngine(out.subspan(0, 1), streams[0]);
}
