// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args -std=c++17 -I%S/Inputs/rmm
//
// A libcudf column built on a pool stream and returned to the caller: its
// buffers are released on the pool stream, which the caller never sees, so
// the caller's later work on its own stream is not ordered before that
// release (the hand-off). Rebinding the column to the caller's stream after
// the join (cudf::rebind_stream) makes it the caller's.

#include <cudf/column/column.hpp>
#include <cudf/column/column_stream.hpp>
#include <cudf/detail/utilities/stream_pool.hpp>
#include <memory>
#include <utility>

__global__ void fill(float *p, cudf::size_type n);

std::unique_ptr<cudf::column> buildOnPool(rmm::cuda_stream_view stream,
                                          cudf::size_type n) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  auto col = cudf::make_numeric_column(cudf::data_type{cudf::type_id::FLOAT32}, n,
                                       cudf::mask_state::UNALLOCATED, streams[0]);
  fill<<<1, 32, 0, streams[0]>>>(col->mutable_view().data<float>(), n);
  cudf::detail::join_streams(streams, stream);
  return col;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'col' is handed to the caller but is released on stream 'streams', which the caller does not know; its uses on the caller's stream will not be ordered before that release [streamlife-free-before-wait]
}

std::unique_ptr<cudf::column> buildOnPoolRebound(rmm::cuda_stream_view stream,
                                                 cudf::size_type n) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  auto col = cudf::make_numeric_column(cudf::data_type{cudf::type_id::FLOAT32}, n,
                                       cudf::mask_state::UNALLOCATED, streams[0]);
  fill<<<1, 32, 0, streams[0]>>>(col->mutable_view().data<float>(), n);
  cudf::detail::join_streams(streams, stream);
  return cudf::rebind_stream(std::move(*col), stream);
}

// Rebound to the pool stream it was built on, the column is still released
// where the caller cannot order its work (the row's probe: without it the
// call would be an unknown function's, taking the column out of sight).
std::unique_ptr<cudf::column> buildOnPoolReboundToPool(rmm::cuda_stream_view stream,
                                                       cudf::size_type n) {
  auto streams = cudf::detail::fork_streams(stream, 1);
  auto col = cudf::make_numeric_column(cudf::data_type{cudf::type_id::FLOAT32}, n,
                                       cudf::mask_state::UNALLOCATED, stream);
  fill<<<1, 32, 0, streams[0]>>>(col->mutable_view().data<float>(), n);
  cudf::detail::join_streams(streams, stream);
  auto rebound = cudf::rebind_stream(std::move(*col), streams[0]);
  return rebound;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'col' is handed to the caller but is released on stream 'streams', which the caller does not know; its uses on the caller's stream will not be ordered before that release [streamlife-free-before-wait]
}

std::unique_ptr<cudf::column> buildOnCallerStream(rmm::cuda_stream_view stream,
                                                  cudf::size_type n) {
  auto col = cudf::make_numeric_column(cudf::data_type{cudf::type_id::FLOAT32}, n,
                                       cudf::mask_state::UNALLOCATED, stream);
  fill<<<1, 32, 0, stream>>>(col->mutable_view().data<float>(), n);
  return col;
}
