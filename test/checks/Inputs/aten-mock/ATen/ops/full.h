// Mock of ATen/ops/full.h (see ../../README.md).
#pragma once
#include <ATen/core/Tensor.h>
namespace at {
Tensor full(IntArrayRef size, const Scalar &fill_value, TensorOptions options = {});
}
