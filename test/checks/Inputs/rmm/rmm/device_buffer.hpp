// Mock of rmm/device_buffer.hpp: untyped, uninitialized, stream-ordered device
// memory. Allocated on its stream, released on its stream (the one given at
// construction or by set_stream) by the destructor or a move-assignment.
#pragma once
#include <rmm/cuda_stream_view.hpp>
#include <cstddef>

namespace rmm {
namespace mr {
class device_memory_resource;
device_memory_resource *get_current_device_resource();
} // namespace mr
using device_async_resource_ref = mr::device_memory_resource *;

class device_buffer {
public:
  device_buffer(device_buffer const &other) = delete;
  device_buffer &operator=(device_buffer const &other) = delete;
  device_buffer();
  explicit device_buffer(std::size_t size, cuda_stream_view stream,
                         device_async_resource_ref mr = mr::get_current_device_resource());
  explicit device_buffer(std::size_t size, std::size_t alignment, cuda_stream_view stream,
                         device_async_resource_ref mr = mr::get_current_device_resource());
  device_buffer(void const *source_data, std::size_t size, cuda_stream_view stream,
                device_async_resource_ref mr = mr::get_current_device_resource());
  device_buffer(device_buffer const &other, cuda_stream_view stream,
                device_async_resource_ref mr = mr::get_current_device_resource());
  device_buffer(device_buffer &&other) noexcept;
  device_buffer &operator=(device_buffer &&other) noexcept;
  ~device_buffer() noexcept;

  void reserve(std::size_t new_capacity, cuda_stream_view stream);
  void resize(std::size_t new_size, cuda_stream_view stream);
  void shrink_to_fit(cuda_stream_view stream);
  [[nodiscard]] void const *data() const noexcept { return data_; }
  void *data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool is_empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] cuda_stream_view stream() const noexcept { return stream_; }
  void set_stream(cuda_stream_view stream) noexcept { stream_ = stream; }

private:
  void *data_{nullptr};
  std::size_t size_{};
  std::size_t capacity_{};
  cuda_stream_view stream_{};
};

} // namespace rmm
