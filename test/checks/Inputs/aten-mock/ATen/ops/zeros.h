// Mock of ATen/ops/zeros.h (see ../../README.md).
#pragma once
#include <ATen/core/Tensor.h>
namespace at {
Tensor zeros(IntArrayRef size, TensorOptions options = {});
}
