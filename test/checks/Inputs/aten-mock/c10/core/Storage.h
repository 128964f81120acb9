// Mock of c10/core/Storage.h and c10/core/Allocator.h's DataPtr (see
// ../../README.md).
#pragma once
#include <c10/core/Device.h>
#include <cstddef>

namespace c10 {
class DataPtr {
public:
  void *get() const;
  Device device() const;
};

struct Storage {
  const DataPtr &data_ptr() const;
  DataPtr &mutable_data_ptr();
  size_t nbytes() const;
};
} // namespace c10
