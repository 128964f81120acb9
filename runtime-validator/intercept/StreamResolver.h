//===- StreamResolver.h - CUDA stream handles to engine streams -*- C++ -*-===//
//
// The one place that canonicalizes stream handles. A CUstream in an API call
// may be a real stream or a special handle whose meaning depends on the call
// and the device:
//   0 (NULL)                the legacy default stream of the current context's
//                           device, or that thread's per-thread default stream
//                           when the call is a _ptsz/_ptds variant (code built
//                           with --default-stream per-thread)
//   CU_STREAM_LEGACY (0x1)  the legacy default stream of the current device
//   CU_STREAM_PER_THREAD    the calling thread's per-thread default stream
// Special streams get canonical handles (legacy: 0x1; per-thread: 0x2 | thread
// id << 8, never 8-aligned so never a real handle). Streams created before the
// validator loaded, or through paths it did not see, are learnt on first use.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_STREAMRESOLVER_H
#define STREAMLIFE_RT_INTERCEPT_STREAMRESOLVER_H

#include "engine/Engine.h"
#include "intercept/CudaLibraries.h"

#include <atomic>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace streamlife {
namespace rt {

class StreamResolver {
public:
  StreamResolver(Engine &E, const DriverApi &Driver) : E(E), Driver(Driver) {}

  /// The engine stream of handle H used in a call on the current context.
  /// PerThreadApi: the call was a _ptsz/_ptds variant.
  StreamId resolve(ThreadId T, CUstream H, bool PerThreadApi, CUcontext Ctx);
  /// cuStreamCreate* returned H with these flags and priority.
  StreamId created(ThreadId T, CUstream H, unsigned Flags, int Priority, CUcontext Ctx);
  /// cuStreamDestroy*: forget H (a later stream may reuse the pointer).
  void destroyed(ThreadId T, CUstream H);
  /// The device of the calling thread's current context (Ctx caches it).
  int currentDevice(CUcontext Ctx);
  /// "stream #2 (0x5581...)", "stream #0 (legacy default stream, device 0)".
  std::string name(StreamId S) const;

private:
  StreamId learn(ThreadId T, CUstream H, CUcontext Ctx, bool HaveFlags, unsigned Flags, int Priority);

  StreamId resolveSlow(ThreadId T, CUstream H, bool PerThreadApi, CUcontext Ctx);
  /// resolve()'s miss, out of line so that a hit saves no registers; Slot is
  /// the calling thread's cache entry to fill.
  __attribute__((noinline)) StreamId resolveAndRemember(ThreadId T, CUstream H, bool PerThreadApi,
                                                        CUcontext Ctx, std::uint64_t Gen, void *Slot);

  Engine &E;
  const DriverApi &Driver;
  /// Changes whenever a handle may change meaning (creation, destruction), so
  /// that per-thread caches of recent answers are dropped. Values are unique
  /// across resolvers, so that a resolver built where an old one lived never
  /// matches the old one's cache entries.
  std::atomic<std::uint64_t> Generation{nextGeneration()};
  static std::uint64_t nextGeneration();
  void invalidateCaches() { Generation.store(nextGeneration(), std::memory_order_release); }
  mutable std::shared_mutex Lock; ///< guards Known; never held across a driver call
  std::unordered_map<std::uint64_t, StreamId> Known; ///< key: handle ^ device << 56
};

} // namespace rt
} // namespace streamlife

#endif
