// Mock of cudf/io/datasource.hpp: the interface cudf's readers read through.
// Device reads write the caller's device memory on the given stream; the
// base class's bodies only fail (a source that supports device reads
// overrides them), so what runs is known only at run time.
#pragma once
#include <rmm/cuda_stream_view.hpp>
#include <cstddef>
#include <cstdint>
#include <future>
#include <stdexcept>

namespace cudf {
namespace io {

class datasource {
public:
  virtual ~datasource() {}
  virtual bool supports_device_read() const { return false; }
  virtual std::size_t device_read(std::size_t offset, std::size_t size, std::uint8_t *dst,
                                  rmm::cuda_stream_view stream) {
    throw std::logic_error("datasource classes that support device_read must override it.");
  }
  virtual std::future<std::size_t> device_read_async(std::size_t offset, std::size_t size,
                                                     std::uint8_t *dst,
                                                     rmm::cuda_stream_view stream) {
    throw std::logic_error(
        "datasource classes that support device_read_async must override it.");
  }
  [[nodiscard]] virtual std::size_t size() const = 0;
};

} // namespace io
} // namespace cudf
