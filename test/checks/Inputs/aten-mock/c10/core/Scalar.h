// Mock of c10/core/Scalar.h (see ../../README.md): a number of any type.
#pragma once
#include <c10/macros/Macros.h>
#include <cstdint>

namespace c10 {
class Scalar {
public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(double v);
  Scalar(float v);
  Scalar(int v);
  Scalar(int64_t v);
  Scalar(bool v);
};
} // namespace c10
