// Mock of ATen/core/TensorBody.h (see ../../README.md): at::Tensor, its
// methods used by the tests (operations run on the current stream) and
// record_stream.
#pragma once
#include <ATen/core/TensorBase.h>
#include <c10/core/Scalar.h>
#include <optional>

namespace at {
class Tensor : public TensorBase {
public:
  Tensor() = default;
  Tensor(const Tensor &tensor) = default;
  Tensor(Tensor &&tensor) = default;
  Tensor &operator=(const Tensor &x) &;
  Tensor &operator=(Tensor &&x) & noexcept;

  Tensor add(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &add_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &add_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor mul(const Tensor &other) const;
  Tensor mul(const Scalar &other) const;
  Tensor &mul_(const Tensor &other) const;
  Tensor &mul_(const Scalar &other) const;
  Tensor &fill_(const Scalar &value) const;
  Tensor &zero_() const;
  Tensor &copy_(const Tensor &src, bool non_blocking = false) const;
  Tensor clone(std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor view(IntArrayRef size) const;
  Tensor to(TensorOptions options = {}, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor sum() const;
  Tensor operator[](int64_t index) const;
  void record_stream(at::Stream s) const;
};

Tensor operator+(const Tensor &self, const Tensor &other);
Tensor operator*(const Tensor &self, const Tensor &other);
Tensor operator*(const Tensor &self, const Scalar &other);
} // namespace at
