// Mock of c10/core/Stream.h (see ../../README.md): the device-generic stream.
#pragma once
#include <c10/core/Device.h>

namespace c10 {
using StreamId = int64_t;

class Stream final {
public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };
  explicit Stream(Unsafe, Device device, StreamId id) : device_(device), id_(id) {}
  explicit Stream(Default, Device device) : device_(device), id_(0) {}
  Device device() const noexcept { return device_; }
  DeviceType device_type() const noexcept { return device_.type(); }
  StreamId id() const noexcept { return id_; }
  bool query() const;
  void synchronize() const;

private:
  Device device_;
  StreamId id_;
};
} // namespace c10
