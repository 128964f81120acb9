// Mock of ATen/core/TensorBase.h (see ../../README.md): a reference-counted
// handle to a tensor's storage; copies share it, the last one releases it.
#pragma once
#include <c10/core/Storage.h>
#include <c10/core/Stream.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>

namespace c10 {
struct TensorImpl;
}

namespace at {
class TensorBase {
public:
  TensorBase() = default;
  TensorBase(const TensorBase &) = default;
  TensorBase(TensorBase &&) noexcept = default;
  TensorBase &operator=(const TensorBase &x) &;
  TensorBase &operator=(TensorBase &&x) & noexcept;
  ~TensorBase();

  bool defined() const;
  void reset();
  int64_t dim() const;
  int64_t numel() const;
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  size_t nbytes() const;
  Device device() const;
  TensorOptions options() const;
  ScalarType scalar_type() const;
  bool is_cuda() const;
  DeviceIndex get_device() const;
  const Storage &storage() const;
  void *data_ptr() const;
  template <typename T> T *data_ptr() const;
  const void *const_data_ptr() const;
  void *mutable_data_ptr() const;
  c10::TensorImpl *unsafeGetTensorImpl() const;
  int64_t use_count() const noexcept;
};
} // namespace at
