// Mock of ATen/ops/empty_like.h (see ../../README.md).
#pragma once
#include <ATen/core/Tensor.h>
namespace at {
Tensor empty_like(const Tensor &self, TensorOptions options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt);
}
