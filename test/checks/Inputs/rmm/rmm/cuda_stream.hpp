// Mock of rmm/cuda_stream.hpp: an owning CUDA stream.
#pragma once
#include <rmm/cuda_stream_view.hpp>

namespace rmm {

class cuda_stream {
public:
  enum class flags : unsigned int { sync_default = 0, non_blocking = 1 };
  cuda_stream(cuda_stream::flags flags = cuda_stream::flags::sync_default);
  cuda_stream(cuda_stream &&) = default;
  cuda_stream &operator=(cuda_stream &&) = default;
  ~cuda_stream() = default;
  cuda_stream(cuda_stream const &) = delete;
  cuda_stream &operator=(cuda_stream &) = delete;

  [[nodiscard]] bool is_valid() const;
  [[nodiscard]] cudaStream_t value() const;
  explicit operator cudaStream_t() const noexcept;
  [[nodiscard]] cuda_stream_view view() const;
  operator cuda_stream_view() const;
  void synchronize() const;
  void synchronize_no_throw() const noexcept;

private:
  cudaStream_t stream_{};
};

} // namespace rmm
