// Mock of c10/core/Device.h (see ../../README.md).
#pragma once
#include <c10/macros/Macros.h>
#include <cstdint>

namespace c10 {
using DeviceIndex = int8_t;
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

struct Device {
  Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {}
  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }

private:
  DeviceType type_;
  DeviceIndex index_;
};
} // namespace c10
