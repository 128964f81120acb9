//===- StreamResolver.cpp - canonical stream handles -----------------------===//
#include "intercept/StreamResolver.h"

#include <cinttypes>
#include <cstdio>
#include <mutex>

namespace streamlife {
namespace rt {

namespace {

constexpr std::uint64_t LegacyHandle = 0x1;
constexpr std::uint64_t PerThreadTag = 0x2;

std::uint64_t key(std::uint64_t Handle, int Device) {
  return Handle ^ (static_cast<std::uint64_t>(Device) << 56);
}

// The device of the context the calling thread last used; one entry per thread
// is enough because a thread rarely switches contexts.
thread_local CUcontext CachedCtx = nullptr;
thread_local int CachedDevice = 0;

} // namespace

std::uint64_t StreamResolver::nextGeneration() {
  static std::atomic<std::uint64_t> Next{1};
  return Next.fetch_add(1, std::memory_order_relaxed);
}

int StreamResolver::currentDevice(CUcontext Ctx) {
  if (Ctx && Ctx == CachedCtx)
    return CachedDevice;
  CUdevice Dev = 0;
  if (Driver.CtxGetDevice && Driver.CtxGetDevice(&Dev) == CUDA_SUCCESS) {
    CachedCtx = Ctx;
    CachedDevice = static_cast<int>(Dev);
  }
  return static_cast<int>(Dev);
}

StreamId StreamResolver::resolveAndRemember(ThreadId T, CUstream H, bool PerThreadApi, CUcontext Ctx,
                                            unsigned Index) {
  detail::RecentStream &Slot = detail::RecentStreams[Index];
  // The generation before the answer: a creation or destruction meanwhile
  // leaves the entry stale, never wrong.
  std::uint64_t Gen = Generation.load(std::memory_order_acquire);
  // A special handle's entry answers the same context, variant and thread (a
  // real handle's hit is resolve()'s).
  if (Slot.Handle == H && Slot.Generation == Gen && Slot.Context == Ctx && Slot.PerThread == PerThreadApi &&
      Slot.Thread == T)
    return Slot.Id;
  Misses.fetch_add(1, std::memory_order_relaxed);
  StreamId Id = resolveSlow(T, H, PerThreadApi, Ctx);
  Slot = detail::RecentStream{H, Ctx, PerThreadApi, T, Gen, Id};
  return Id;
}

StreamId StreamResolver::resolveSlow(ThreadId T, CUstream H, bool PerThreadApi, CUcontext Ctx) {
  std::uint64_t Raw = reinterpret_cast<std::uint64_t>(H);
  StreamDesc Desc;
  if (Raw == 0)
    Desc.Flavor = PerThreadApi ? StreamFlavor::PerThreadDefault : StreamFlavor::LegacyDefault;
  else if (Raw == reinterpret_cast<std::uint64_t>(CU_STREAM_LEGACY))
    Desc.Flavor = StreamFlavor::LegacyDefault;
  else if (Raw == reinterpret_cast<std::uint64_t>(CU_STREAM_PER_THREAD))
    Desc.Flavor = StreamFlavor::PerThreadDefault;
  else {
    {
      std::shared_lock<std::shared_mutex> Guard(Lock);
      // Real handles are unique across devices; look them up without the device.
      auto It = Known.find(key(Raw, 0));
      if (It != Known.end())
        return It->second;
    }
    return learn(T, H, Ctx, false, 0, 0);
  }
  Desc.Device = currentDevice(Ctx);
  Desc.StreamHandle = Desc.Flavor == StreamFlavor::LegacyDefault
                          ? LegacyHandle
                          : (PerThreadTag | (static_cast<std::uint64_t>(T) << 8));
  std::uint64_t K = key(Desc.StreamHandle, Desc.Device);
  {
    std::shared_lock<std::shared_mutex> Guard(Lock);
    auto It = Known.find(K);
    if (It != Known.end())
      return It->second;
  }
  StreamId Id = newEngineStream(T, Desc);
  std::unique_lock<std::shared_mutex> Guard(Lock);
  Known.emplace(K, Id);
  return Id;
}

StreamId StreamResolver::newEngineStream(ThreadId T, const StreamDesc &Desc) {
  if (BeforeNewStreamHook)
    BeforeNewStreamHook(BeforeNewStreamArg);
  return E.stream(T, Desc);
}

StreamId StreamResolver::learn(ThreadId T, CUstream H, CUcontext Ctx, bool HaveFlags,
                               unsigned Flags, int Priority) {
  // Driver calls first, with no lock held.
  if (!HaveFlags && Driver.StreamGetFlags && Driver.StreamGetFlags(H, &Flags) != CUDA_SUCCESS)
    Flags = CU_STREAM_DEFAULT;
  if (!HaveFlags && Driver.StreamGetPriority && Driver.StreamGetPriority(H, &Priority) != CUDA_SUCCESS)
    Priority = 0;
  StreamDesc Desc;
  Desc.StreamHandle = reinterpret_cast<std::uint64_t>(H);
  Desc.Flavor = (Flags & CU_STREAM_NON_BLOCKING) ? StreamFlavor::NonBlocking : StreamFlavor::Blocking;
  Desc.Priority = Priority;
  CUdevice Dev = 0;
  if (Driver.StreamGetDevice && Driver.StreamGetDevice(H, &Dev) == CUDA_SUCCESS)
    Desc.Device = static_cast<int>(Dev);
  else
    Desc.Device = currentDevice(Ctx);
  StreamId Id = newEngineStream(T, Desc);
  std::unique_lock<std::shared_mutex> Guard(Lock);
  Known[key(Desc.StreamHandle, 0)] = Id;
  return Id;
}

StreamId StreamResolver::created(ThreadId T, CUstream H, unsigned Flags, int Priority, CUcontext Ctx) {
  invalidateCaches();
  {
    std::unique_lock<std::shared_mutex> Guard(Lock);
    Known.erase(key(reinterpret_cast<std::uint64_t>(H), 0));
  }
  return learn(T, H, Ctx, true, Flags, Priority);
}

void StreamResolver::destroyed(ThreadId T, CUstream H) {
  std::uint64_t Raw = reinterpret_cast<std::uint64_t>(H);
  if (Raw <= reinterpret_cast<std::uint64_t>(CU_STREAM_PER_THREAD))
    return;
  StreamId Id = NoStream;
  {
    std::unique_lock<std::shared_mutex> Guard(Lock);
    auto It = Known.find(key(Raw, 0));
    if (It == Known.end())
      return;
    Id = It->second;
    Known.erase(It);
  }
  invalidateCaches();
  E.streamDestroyed(T, Id);
}

std::string StreamResolver::name(StreamId S) const {
  if (S == NoStream)
    return "no stream";
  StreamInfo Info = E.streamInfo(S);
  char Buf[128];
  switch (Info.Desc.Flavor) {
  case StreamFlavor::LegacyDefault:
    std::snprintf(Buf, sizeof(Buf), "stream #%u (legacy default stream, device %d)", S, Info.Desc.Device);
    break;
  case StreamFlavor::PerThreadDefault:
    std::snprintf(Buf, sizeof(Buf), "stream #%u (per-thread default stream of thread %" PRIu64 ", device %d)",
                  S, Info.Desc.StreamHandle >> 8, Info.Desc.Device);
    break;
  default:
    std::snprintf(Buf, sizeof(Buf), "stream #%u (0x%" PRIx64 "%s)", S, Info.Desc.StreamHandle,
                  Info.Desc.Flavor == StreamFlavor::NonBlocking ? ", non-blocking" : "");
  }
  return Buf;
}

} // namespace rt
} // namespace streamlife
