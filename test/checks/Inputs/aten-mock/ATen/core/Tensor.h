// Mock of ATen/core/Tensor.h (see ../../README.md).
#pragma once
#include <ATen/core/TensorBody.h>
