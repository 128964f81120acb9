// Mock of cudf/column/column.hpp and column_factories.hpp: a column owns
// rmm::device_buffers (data, null mask), allocated on the stream its factory
// is given and released on that stream when the column goes.
#pragma once
#include <rmm/cuda_stream_view.hpp>
#include <rmm/device_buffer.hpp>
#include <cstdint>
#include <memory>
#include <vector>

namespace cudf {
using size_type = std::int32_t;
enum class type_id : std::int32_t { EMPTY, INT8, INT16, INT32, INT64, FLOAT32, FLOAT64 };
enum class mask_state : std::int32_t { UNALLOCATED, UNINITIALIZED, ALL_VALID, ALL_NULL };
class data_type {
public:
  explicit constexpr data_type(type_id id) : _id{id} {}
  [[nodiscard]] constexpr type_id id() const noexcept { return _id; }

private:
  type_id _id{type_id::EMPTY};
};
rmm::cuda_stream_view const get_default_stream();

class mutable_column_view {
public:
  template <typename T> T *data() const noexcept;
  [[nodiscard]] size_type size() const noexcept;
};

class column {
public:
  column() = default;
  ~column() = default;
  column &operator=(column const &other) = delete;
  column &operator=(column &&other) = delete;
  column(column const &other, rmm::cuda_stream_view stream = cudf::get_default_stream(),
         rmm::device_async_resource_ref mr = rmm::mr::get_current_device_resource());
  column(column &&other) noexcept;
  [[nodiscard]] size_type size() const noexcept;
  mutable_column_view mutable_view();
};

std::unique_ptr<column> make_numeric_column(
    data_type type, size_type size, mask_state state = mask_state::UNALLOCATED,
    rmm::cuda_stream_view stream = cudf::get_default_stream(),
    rmm::device_async_resource_ref mr = rmm::mr::get_current_device_resource());

std::unique_ptr<column> make_fixed_width_column(
    data_type type, size_type size, mask_state state = mask_state::UNALLOCATED,
    rmm::cuda_stream_view stream = cudf::get_default_stream(),
    rmm::device_async_resource_ref mr = rmm::mr::get_current_device_resource());

} // namespace cudf
