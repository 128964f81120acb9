// Mock of c10/core/TensorOptions.h and ScalarType.h (see ../../README.md).
#pragma once
#include <c10/core/Device.h>
#include <optional>

namespace c10 {
enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16 };
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast };

struct TensorOptions {
  TensorOptions() = default;
  TensorOptions(Device device);
  TensorOptions(DeviceType device_type);
  TensorOptions(ScalarType dtype);
  TensorOptions device(std::optional<Device> device) const noexcept;
  TensorOptions dtype(std::optional<ScalarType> dtype) const noexcept;
  TensorOptions requires_grad(std::optional<bool> requires_grad) const noexcept;
  TensorOptions pinned_memory(std::optional<bool> pinned_memory) const noexcept;
  Device device() const noexcept;
  ScalarType dtype() const noexcept;
};
} // namespace c10
