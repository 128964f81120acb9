// Mock of cudf/column/column_stream.hpp: rebinds the stream a column's
// buffers are released on (and its children's). No ordering is inserted: the
// caller must order the old streams' work before the new one first.
#pragma once
#include <cudf/column/column.hpp>

namespace cudf {
// libcudf's declaration: the column is moved in (`std::move(*col)`).
[[nodiscard]] std::unique_ptr<column> rebind_stream(column &&col, rmm::cuda_stream_view stream);
} // namespace cudf
