// Mock of rmm/cuda_stream_pool.hpp: a round-robin pool of non-blocking streams.
#pragma once
#include <rmm/cuda_stream.hpp>
#include <cstddef>

namespace rmm {

class cuda_stream_pool {
public:
  static constexpr std::size_t default_size{16};
  explicit cuda_stream_pool(std::size_t pool_size = default_size,
                            cuda_stream::flags flags = cuda_stream::flags::sync_default);
  ~cuda_stream_pool() = default;
  cuda_stream_pool(cuda_stream_pool &&) = delete;
  cuda_stream_pool(cuda_stream_pool const &) = delete;
  cuda_stream_pool &operator=(cuda_stream_pool &&) = delete;
  cuda_stream_pool &operator=(cuda_stream_pool const &) = delete;

  rmm::cuda_stream_view get_stream() const noexcept;
  rmm::cuda_stream_view get_stream(std::size_t stream_id) const;
  std::size_t get_pool_size() const noexcept;
};

} // namespace rmm
