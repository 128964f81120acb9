// Mock of cudf/detail/utilities/stream_pool.hpp: the fork/join helpers libcudf
// builds over an rmm::cuda_stream_pool. fork_streams returns `count` streams
// that wait on `stream`; join_streams makes `stream` wait on every stream of
// `streams`.
#pragma once
#include <rmm/cuda_stream_view.hpp>
#include <cstddef>
#include <vector>

namespace cudf {
template <typename T> class host_span {
public:
  host_span(std::vector<T> const &v);
  host_span(std::vector<std::remove_const_t<T>> const &v);
};

namespace detail {
[[nodiscard]] std::vector<rmm::cuda_stream_view> fork_streams(rmm::cuda_stream_view stream,
                                                              std::size_t count);
void join_streams(host_span<rmm::cuda_stream_view const> streams, rmm::cuda_stream_view stream);
} // namespace detail
} // namespace cudf
