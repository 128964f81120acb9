// Mock of c10/cuda/CUDAFunctions.h (see ../../README.md).
#pragma once
#include <c10/core/Device.h>

namespace c10::cuda {
DeviceIndex device_count() noexcept;
DeviceIndex current_device();
void set_device(DeviceIndex device);
void device_synchronize();
} // namespace c10::cuda
