// Mock of c10/util/ArrayRef.h (see ../../README.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace c10 {
template <typename T> class ArrayRef final {
public:
  constexpr ArrayRef() : data_(nullptr), size_(0) {}
  constexpr ArrayRef(const T &one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T *data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T> &v) : data_(v.data()), size_(v.size()) {}
  constexpr ArrayRef(const std::initializer_list<T> &list)
      : data_(list.begin()), size_(list.size()) {}
  constexpr const T *begin() const { return data_; }
  constexpr const T *end() const { return data_ + size_; }
  constexpr size_t size() const { return size_; }
  constexpr const T &operator[](size_t i) const { return data_[i]; }

private:
  const T *data_;
  size_t size_;
};
using IntArrayRef = ArrayRef<int64_t>;
} // namespace c10
