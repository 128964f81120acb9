// Mock of c10/cuda/CUDAEvent.h (see ../../README.md): CUDAEvent and the pool
// that lends them out through a unique_ptr with a deleter.
#pragma once
#include <c10/cuda/CUDAStream.h>
#include <functional>
#include <memory>

namespace c10::cuda {
struct CUDAEvent {
  CUDAEvent() noexcept = default;
  CUDAEvent(unsigned int flags) noexcept;
  CUDAEvent(const CUDAEvent &) = delete;
  CUDAEvent &operator=(const CUDAEvent &) = delete;
  CUDAEvent(CUDAEvent &&other) noexcept;
  CUDAEvent &operator=(CUDAEvent &&other) noexcept;
  ~CUDAEvent();

  bool isCreated() const;
  bool query() const;
  // Records on the current stream, or on the stream given.
  void record();
  void recordOnce(const CUDAStream &stream);
  void record(const CUDAStream &stream);
  // Makes future work on the stream wait for this event.
  void block(const CUDAStream &stream);
  float elapsed_time(const CUDAEvent &other) const;
  void synchronize() const;
};

class CUDAEventPool {
public:
  using Event = std::unique_ptr<c10::cuda::CUDAEvent, std::function<void(c10::cuda::CUDAEvent *)>>;
  CUDAEventPool(size_t init_num_events = 0);
  Event get(const DeviceIndex device);
};
} // namespace c10::cuda
