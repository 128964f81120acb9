// Mock of c10/cuda/CUDAStream.h (see ../../README.md).
#pragma once
#include <c10/core/Stream.h>
#include <cuda_runtime_api.h>

namespace c10::cuda {
class CUDAStream {
public:
  enum Unchecked { UNCHECKED };
  explicit CUDAStream(Stream stream);
  explicit CUDAStream(Unchecked, Stream stream) : stream_(stream) {}
  bool operator==(const CUDAStream &other) const noexcept;
  bool operator!=(const CUDAStream &other) const noexcept;
  // Implicit conversions, as in torch: to the CUDA handle and to c10::Stream.
  operator cudaStream_t() const { return stream(); }
  operator Stream() const { return unwrap(); }
  DeviceType device_type() const { return DeviceType::CUDA; }
  DeviceIndex device_index() const;
  Device device() const;
  StreamId id() const;
  bool query() const;
  void synchronize() const;
  int priority() const;
  cudaStream_t stream() const;
  Stream unwrap() const { return stream_; }

private:
  Stream stream_;
};

CUDAStream getStreamFromPool(const bool isHighPriority = false, DeviceIndex device = -1);
CUDAStream getStreamFromPool(const int priority, DeviceIndex device = -1);
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
void setCurrentCUDAStream(CUDAStream stream);
} // namespace c10::cuda
