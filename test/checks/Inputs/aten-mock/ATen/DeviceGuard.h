// Mock of ATen/DeviceGuard.h (see ../README.md).
#pragma once
#include <ATen/core/Tensor.h>
#include <optional>
namespace at {
/// The tensor's device, or nullopt for an undefined tensor.
std::optional<Device> device_of(const Tensor &t);
} // namespace at
