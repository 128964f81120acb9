// Mock of c10/cuda/CUDAGuard.h (see ../../README.md): RAII guards that make a
// stream (or a device's current stream) current for their scope.
#pragma once
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/ArrayRef.h>
#include <optional>

namespace c10::cuda {
struct CUDAGuard {
  explicit CUDAGuard() = delete;
  explicit CUDAGuard(DeviceIndex device_index);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard &) = delete;
  CUDAGuard &operator=(const CUDAGuard &) = delete;
  ~CUDAGuard();
  void set_device(Device device);
  void reset_device(Device device);
  void set_index(DeviceIndex device_index);
};

struct OptionalCUDAGuard {
  explicit OptionalCUDAGuard();
  explicit OptionalCUDAGuard(std::optional<Device> device_opt);
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> device_index_opt);
  ~OptionalCUDAGuard();
  void set_device(Device device);
  void reset_device(Device device);
  void set_index(DeviceIndex device_index);
  void reset();
};

struct CUDAStreamGuard {
  explicit CUDAStreamGuard() = delete;
  explicit CUDAStreamGuard(Stream stream);
  CUDAStreamGuard(const CUDAStreamGuard &) = delete;
  CUDAStreamGuard &operator=(const CUDAStreamGuard &) = delete;
  ~CUDAStreamGuard();
  void reset_stream(Stream stream);
  CUDAStream original_stream() const;
  CUDAStream current_stream() const;
};

struct OptionalCUDAStreamGuard {
  explicit OptionalCUDAStreamGuard();
  explicit OptionalCUDAStreamGuard(Stream stream);
  explicit OptionalCUDAStreamGuard(std::optional<Stream> stream_opt);
  ~OptionalCUDAStreamGuard();
  void reset_stream(Stream stream);
  void reset();
};

struct CUDAMultiStreamGuard {
  explicit CUDAMultiStreamGuard(ArrayRef<CUDAStream> streams);
  CUDAMultiStreamGuard(const CUDAMultiStreamGuard &) = delete;
  CUDAMultiStreamGuard &operator=(const CUDAMultiStreamGuard &) = delete;
  ~CUDAMultiStreamGuard();
};
} // namespace c10::cuda
