//===- CacheEvictor.h - the program's own traffic between two CUDA calls -*- C++ -*-===//
//
// On the H200 host the validator's work at a CUDA call (the block-event
// replay, the launch's interception) runs after the program's own work since
// the previous call: the Python interpreter, ATen's dispatch, tens of MB of
// working set, which evict the validator's data. An instruction count with
// warm caches does not see what that costs; a benchmark that touches a
// buffer of its own before each CUDA call (--evict KB) does, under
// callgrind's cache simulation or the clock (bench/runtime/README.md,
// rtcache). No engine header: cpu_launch_path links no engine.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_BENCH_RUNTIME_CPU_CACHEEVICTOR_H
#define STREAMLIFE_BENCH_RUNTIME_CPU_CACHEEVICTOR_H

#include <cstddef>
#include <vector>

namespace streamlife {
namespace bench {

/// touch() reads and writes one byte per 64-byte line of its own
/// buffer of KiB kilobytes; with KiB 0 it does nothing. It changes no state
/// the validator sees, only which of the validator's lines are cached.
class CacheEvictor {
public:
  explicit CacheEvictor(std::size_t KiB) : Buffer(KiB * 1024) {}
  __attribute__((noinline)) void touch() {
    // volatile: each line is loaded and stored, none elided.
    volatile unsigned char *Line = Buffer.data();
    for (std::size_t I = 0; I < Buffer.size(); I += LineBytes)
      Line[I] = static_cast<unsigned char>(Line[I] + 1);
  }
  bool enabled() const { return !Buffer.empty(); }

private:
  static constexpr std::size_t LineBytes = 64;
  std::vector<unsigned char> Buffer;
};

} // namespace bench
} // namespace streamlife

#endif
