// Mock of rmm/cuda_stream_view.hpp: a non-owning view of a CUDA stream.
#pragma once
#include <cuda_runtime_api.h>
#include <cstddef>

namespace rmm {

class cuda_stream_view {
public:
  constexpr cuda_stream_view() = default;
  cuda_stream_view(cuda_stream_view const &) = default;
  cuda_stream_view &operator=(cuda_stream_view const &) = default;
  cuda_stream_view(int) = delete;            // no cast from 0
  cuda_stream_view(std::nullptr_t) = delete; // no cast from nullptr
  constexpr cuda_stream_view(cudaStream_t stream) noexcept : stream_{stream} {}

  [[nodiscard]] constexpr cudaStream_t value() const noexcept { return stream_; }
  constexpr operator cudaStream_t() const noexcept { return value(); }
  [[nodiscard]] bool is_per_thread_default() const noexcept;
  [[nodiscard]] bool is_default() const noexcept;
  void synchronize() const;
  void synchronize_no_throw() const noexcept;

private:
  cudaStream_t stream_{};
};

static constexpr cuda_stream_view cuda_stream_default{};
static const cuda_stream_view cuda_stream_legacy{cudaStreamLegacy};
static const cuda_stream_view cuda_stream_per_thread{cudaStreamPerThread};

} // namespace rmm
