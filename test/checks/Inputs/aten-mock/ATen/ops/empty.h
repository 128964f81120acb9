// Mock of ATen/ops/empty.h (see ../../README.md).
#pragma once
#include <ATen/core/Tensor.h>
namespace at {
Tensor empty(IntArrayRef size, TensorOptions options = {},
             std::optional<MemoryFormat> memory_format = std::nullopt);
}
