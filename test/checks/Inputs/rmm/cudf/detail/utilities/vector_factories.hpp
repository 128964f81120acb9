// Mock of cudf/detail/utilities/vector_factories.hpp: device_uvectors made on
// a stream, from host or device data or zeroed (the real bodies construct
// the vector on `stream` and copy or memset there).
#pragma once
#include <cudf/detail/utilities/stream_pool.hpp>
#include <cudf/utilities/span.hpp>
#include <rmm/device_uvector.hpp>
#include <cstddef>
#include <type_traits>

namespace cudf {
namespace detail {

template <typename T>
rmm::device_uvector<T> make_zeroed_device_uvector_async(std::size_t size,
                                                        rmm::cuda_stream_view stream,
                                                        rmm::device_async_resource_ref mr);
template <typename T>
rmm::device_uvector<T> make_zeroed_device_uvector(std::size_t size, rmm::cuda_stream_view stream,
                                                  rmm::device_async_resource_ref mr);
template <typename T>
rmm::device_uvector<std::remove_cv_t<T>> make_device_uvector_async(host_span<T> source_data,
                                                                   rmm::cuda_stream_view stream,
                                                                   rmm::device_async_resource_ref mr);
template <typename T>
rmm::device_uvector<std::remove_cv_t<T>> make_device_uvector_async(device_span<T> source_data,
                                                                   rmm::cuda_stream_view stream,
                                                                   rmm::device_async_resource_ref mr);
template <typename T>
rmm::device_uvector<T> make_device_uvector(host_span<T const> source_data,
                                           rmm::cuda_stream_view stream,
                                           rmm::device_async_resource_ref mr);

} // namespace detail
} // namespace cudf
