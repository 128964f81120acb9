// Mock of cudf/utilities/span.hpp: libcudf's device_span is libcu++'s span.
#pragma once
#include <cuda/std/span>
#include <cstddef>

namespace cudf {
template <typename T, std::size_t Extent = cuda::std::dynamic_extent>
using device_span = cuda::std::span<T, Extent>;
} // namespace cudf
