// Mock of rmm/device_uvector.hpp: a typed, uninitialized vector in
// stream-ordered device memory, stored in a device_buffer; converts to a
// cuda::std::span of its elements.
#pragma once
#include <cuda/std/span>
#include <rmm/device_buffer.hpp>
#include <cstddef>
#include <type_traits>

namespace rmm {

template <typename T> class device_uvector {
  static_assert(std::is_trivially_copyable_v<T>, "T must be trivially copyable");

public:
  using value_type = T;
  using size_type = std::size_t;
  using pointer = value_type *;
  using const_pointer = value_type const *;

  ~device_uvector() = default;
  device_uvector(device_uvector &&) noexcept = default;
  device_uvector &operator=(device_uvector &&) noexcept = default;
  device_uvector(device_uvector const &) = delete;
  device_uvector &operator=(device_uvector const &) = delete;
  device_uvector() = delete;
  explicit device_uvector(std::size_t size, cuda_stream_view stream,
                          device_async_resource_ref mr = mr::get_current_device_resource());
  explicit device_uvector(device_uvector const &other, cuda_stream_view stream,
                          device_async_resource_ref mr = mr::get_current_device_resource());

  void set_element_async(size_type element_index, value_type const &value,
                         cuda_stream_view stream);
  [[nodiscard]] value_type element(size_type element_index, cuda_stream_view stream) const;
  [[nodiscard]] value_type front_element(cuda_stream_view stream) const;
  [[nodiscard]] value_type back_element(cuda_stream_view stream) const;
  void resize(size_type new_size, cuda_stream_view stream);
  void shrink_to_fit(cuda_stream_view stream);
  device_buffer release() noexcept;
  [[nodiscard]] pointer data() noexcept;
  [[nodiscard]] const_pointer data() const noexcept;
  [[nodiscard]] size_type size() const noexcept;
  [[nodiscard]] operator cuda::std::span<T const>() const noexcept;
  [[nodiscard]] operator cuda::std::span<T>() noexcept;
  [[nodiscard]] bool is_empty() const noexcept;
  [[nodiscard]] cuda_stream_view stream() const noexcept;
  void set_stream(cuda_stream_view stream) noexcept;
};

} // namespace rmm
