// Mock of c10/core/Event.h (see ../../README.md): the device-generic event.
#pragma once
#include <c10/core/Stream.h>

namespace c10 {
enum class EventFlag { PYTORCH_DEFAULT, BACKEND_DEFAULT };

struct Event final {
  Event(const DeviceType device_type, const EventFlag flag = EventFlag::PYTORCH_DEFAULT);
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  ~Event();

  void record(const Stream &stream);
  void recordOnce(const Stream &stream);
  void block(const Stream &stream) const;
  bool query() const;
  void synchronize() const;
};
} // namespace c10
