// Mock of rmm/device_scalar.hpp: one typed element in stream-ordered device
// memory.
#pragma once
#include <rmm/device_uvector.hpp>

namespace rmm {

template <typename T> class device_scalar {
public:
  using value_type = T;
  using pointer = T *;
  using const_pointer = T const *;

  ~device_scalar() = default;
  device_scalar(device_scalar &&) noexcept = default;
  device_scalar &operator=(device_scalar &&) noexcept = default;
  device_scalar(device_scalar const &) = delete;
  device_scalar &operator=(device_scalar const &) = delete;
  device_scalar() = delete;
  explicit device_scalar(cuda_stream_view stream,
                         device_async_resource_ref mr = mr::get_current_device_resource());
  explicit device_scalar(value_type const &initial_value, cuda_stream_view stream,
                         device_async_resource_ref mr = mr::get_current_device_resource());

  [[nodiscard]] value_type value(cuda_stream_view stream) const;
  void set_value_async(value_type const &value, cuda_stream_view stream);
  void set_value_to_zero_async(cuda_stream_view stream);
  [[nodiscard]] pointer data() noexcept;
  [[nodiscard]] const_pointer data() const noexcept;
  [[nodiscard]] cuda_stream_view stream() const noexcept;
  void set_stream(cuda_stream_view stream) noexcept;
};

} // namespace rmm
