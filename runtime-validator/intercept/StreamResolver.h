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

namespace detail {
// The few streams a thread is launching on right now, without any lock:
// direct-mapped by handle, so a hit reads one entry (a launch-bound step
// resolves two streams three times). Two handles that share a slot evict
// each other, which costs a lookup, never a wrong answer: every field the
// answer depends on is compared. Defined here, constant-initialized, so that the hit is
// inline in every caller: one %fs-relative load, no call.
struct RecentStream {
  CUstream Handle = nullptr;
  CUcontext Context = nullptr;
  bool PerThread = false;
  ThreadId Thread = 0; ///< the per-thread stream depends on it (special handles only)
  std::uint64_t Generation = 0;
  StreamId Id = NoStream;
};
constexpr unsigned RecentStreamSlotBits = 3;
inline thread_local RecentStream RecentStreams[1u << RecentStreamSlotBits];
} // namespace detail

class StreamResolver {
public:
  StreamResolver(Engine &E, const DriverApi &Driver) : E(E), Driver(Driver) {}

  /// The engine stream of handle H used in a call on the current context.
  /// PerThreadApi: the call was a _ptsz/_ptds variant.
  /// Inline: the calling thread's recent answer (detail::RecentStreams) is
  /// nearly always there, three times per launch-bound step.
  /// A real handle names one stream whatever the context, the variant and
  /// the thread of the call (resolveSlow looks it up by the handle alone), so
  /// its entry also answers calls of another context, variant or thread: a
  /// stream-ordered allocation's CUPTI callback (which carries the context)
  /// and a launch at the driver's entry point (which asks for none with a
  /// real handle) on the same stream share it, where they evicted each
  /// other, a lookup under the resolver's lock each; and its hit compares
  /// the handle and the generation only, inline (with the other three
  /// fields GCC gave the hit a frame: +5 instructions per call, three calls
  /// per launch-bound step); a special handle's hit is out of line.
  StreamId resolve(ThreadId T, CUstream H, bool PerThreadApi, CUcontext Ctx) {
    auto Raw = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(H));
    const unsigned Slot = static_cast<unsigned>((Raw * 0x9E3779B97F4A7C15ull) >> (64 - detail::RecentStreamSlotBits));
    const detail::RecentStream &C = detail::RecentStreams[Slot];
    // The generation names the resolver too (values are unique across
    // resolvers, and an empty entry's 0 is none of them). Only a special
    // handle's answer depends on the call's context, variant and thread: its
    // entry is compared out of line (resolveAndRemember), where those three
    // compares do not make every real handle's hit save registers.
    if (__builtin_expect(C.Handle == H && C.Generation == Generation.load(std::memory_order_acquire) &&
                             !isSpecial(Raw),
                         1))
      return C.Id;
    return resolveAndRemember(T, H, PerThreadApi, Ctx, Slot);
  }
  /// NULL, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD: a stream that depends on
  /// the call's context, variant and thread.
  static bool isSpecial(std::uint64_t Raw) { return Raw <= 0x2; }
  /// resolve()'s misses of the calling threads' caches (a statistic for tests).
  std::uint64_t misses() const { return Misses.load(std::memory_order_relaxed); }
  /// cuStreamCreate* returned H with these flags and priority.
  StreamId created(ThreadId T, CUstream H, unsigned Flags, int Priority, CUcontext Ctx);
  /// cuStreamDestroy*: forget H (a later stream may reuse the pointer).
  void destroyed(ThreadId T, CUstream H);
  /// The device of the calling thread's current context (Ctx caches it).
  int currentDevice(CUcontext Ctx);
  /// "stream #2 (0x5581...)", "stream #0 (legacy default stream, device 0)".
  std::string name(StreamId S) const;
  /// Called before a stream new to the engine is created: a new stream
  /// starts from the threads' common knowledge, so the runtime replays the
  /// queued events first, as a call's entry would have (a launch, record or
  /// wait may leave them queued: AnnotatedAllocators.h). Set once, before
  /// the first call.
  void beforeNewStream(void (*Hook)(void *), void *Arg) {
    BeforeNewStreamHook = Hook;
    BeforeNewStreamArg = Arg;
  }

private:
  /// E.stream(T, Desc), after the hook.
  StreamId newEngineStream(ThreadId T, const StreamDesc &Desc);
  StreamId learn(ThreadId T, CUstream H, CUcontext Ctx, bool HaveFlags, unsigned Flags, int Priority);

  StreamId resolveSlow(ThreadId T, CUstream H, bool PerThreadApi, CUcontext Ctx);
  /// resolve()'s miss, out of line so that a hit saves no registers, and a
  /// special handle's hit; Slot is the index of the calling thread's cache
  /// entry to fill (its address, computed for the miss, cost every hit four
  /// instructions). Six arguments, all in registers: a seventh on the stack
  /// gave every hit a frame.
  __attribute__((noinline)) StreamId resolveAndRemember(ThreadId T, CUstream H, bool PerThreadApi,
                                                        CUcontext Ctx, unsigned Slot);

  Engine &E;
  const DriverApi &Driver;
  void (*BeforeNewStreamHook)(void *) = nullptr;
  void *BeforeNewStreamArg = nullptr;
  /// Changes whenever a handle may change meaning (creation, destruction), so
  /// that per-thread caches of recent answers are dropped. Values are unique
  /// across resolvers, so that a resolver built where an old one lived never
  /// matches the old one's cache entries.
  std::atomic<std::uint64_t> Generation{nextGeneration()};
  static std::uint64_t nextGeneration();
  void invalidateCaches() { Generation.store(nextGeneration(), std::memory_order_release); }
  std::atomic<std::uint64_t> Misses{0};
  mutable std::shared_mutex Lock; ///< guards Known; never held across a driver call
  std::unordered_map<std::uint64_t, StreamId> Known; ///< key: handle ^ device << 56
};

} // namespace rt
} // namespace streamlife

#endif
