//===- Annotations.cpp - the entry points of streamlife/annotations.h -----===//
//
// The only symbols the library exports on purpose (default visibility; the
// rest is hidden). Each call captures its call site here, outside CUPTI, and
// queues a block event (allocators/AnnotatedAllocators.h): callers include
// PyTorch's trace tracker under the allocator's lock, so nothing here calls
// CUDA, takes the GIL, or enters the engine. The queue is replayed at the next
// intercepted CUDA call (drainAnnotations, from the CUPTI callback) and at exit.
//
// __streamlife_python_attach is the hook of the sitecustomize module that
// `streamlife run` puts on PYTHONPATH (report/PythonStacks.h).
//
//===----------------------------------------------------------------------===//
#include "intercept/Runtime.h"

#include "report/PythonFrameWalker.h"
#include "report/PythonStacks.h"
#include "streamlife/annotations.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <string>

#define STREAMLIFE_EXPORT extern "C" __attribute__((visibility("default")))

namespace streamlife {
namespace rt {

namespace {

/// Op names per registered allocator: "<name>: block allocated", ...
constexpr int MaxNamedAllocators = 64;
enum NameSlot { AllocatedName, RequestedName, ReleasedName, SlotCount };
std::array<std::array<std::atomic<NameId>, SlotCount>, MaxNamedAllocators + 1> AllocatorNames;

NameId opName(ValidatorRuntime &R, int Allocator, NameSlot Slot) {
  if (Allocator > 0 && Allocator <= MaxNamedAllocators)
    if (NameId Id = AllocatorNames[Allocator][Slot].load(std::memory_order_relaxed))
      return Id;
  static const char *const Suffix[SlotCount] = {"block allocated", "release requested",
                                                "block released"};
  NameId Id = R.Ops.internName(R.Annotated.allocatorName(Allocator) + ": " + Suffix[Slot]);
  if (Allocator > 0 && Allocator <= MaxNamedAllocators)
    AllocatorNames[Allocator][Slot].store(Id, std::memory_order_relaxed);
  return Id;
}

void pushBlockEvent(BlockEvent::Kind What, int Allocator, const void *Ptr, std::uint64_t Size,
                    void *Stream, NameSlot Slot) {
  ValidatorRuntime *R = runtime();
  if (!R || !Ptr || !R->Annotated.known(Allocator))
    return;
  BlockEvent Event;
  Event.What = What;
  Event.Allocator = Allocator;
  Event.Thread = currentThread();
  Event.Ptr = reinterpret_cast<Addr>(Ptr);
  Event.Size = Size;
  Event.Stream = reinterpret_cast<Handle>(Stream);
  Event.Site = captureOp(*R, opName(*R, Allocator, Slot));
  R->Annotated.push(Event);
}

} // namespace

void drainAnnotations(ValidatorRuntime &R, ThreadId, CUcontext Ctx) {
  if (!R.Annotated.hasPending())
    return;
  R.Annotated.drain([&R, Ctx](ThreadId Owner, Handle H) {
    return R.Streams.resolve(Owner, reinterpret_cast<CUstream>(H), false, Ctx);
  });
}

std::vector<std::string> blockSummaryLines(ValidatorRuntime &R) {
  std::vector<std::string> Lines;
  std::size_t Shown = 0;
  for (const BlockAccount &A : R.Annotated.accounts()) {
    if (Shown++ >= static_cast<std::size_t>(R.Opts.summary_sites))
      break;
    BlockSiteSummary S;
    S.Allocator = R.Annotated.allocatorName(A.Allocator);
    std::vector<std::string> Frames = reportFrames(R.Ops.op(A.Site), 1);
    S.Site = Frames.empty() ? std::string() : Frames.front();
    S.Allocations = A.Allocations;
    S.DistinctBlocks = A.DistinctBlocks;
    S.PeakLiveBlocks = A.PeakLiveBlocks;
    S.PeakHeldBackBytes = A.PeakHeldBackBytes;
    Lines.push_back(blockSummaryLine(S));
  }
  return Lines;
}

} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;

STREAMLIFE_EXPORT int __streamlife_register_allocator(const char *Name, int Policy) {
  ValidatorRuntime *R = runtime();
  if (!R)
    return 0;
  return R->Annotated.registerAllocator(Name && *Name ? Name : "unnamed allocator", Policy);
}

STREAMLIFE_EXPORT void __streamlife_block_allocated(int Allocator, const void *Ptr, size_t Size,
                                                    void *Stream) {
  if (Size)
    pushBlockEvent(BlockEvent::Kind::Allocated, Allocator, Ptr, Size, Stream, AllocatedName);
}

STREAMLIFE_EXPORT void __streamlife_block_release_requested(int Allocator, const void *Ptr,
                                                            void *Stream) {
  pushBlockEvent(BlockEvent::Kind::ReleaseRequested, Allocator, Ptr, 0, Stream, RequestedName);
}

STREAMLIFE_EXPORT void __streamlife_block_released(int Allocator, const void *Ptr, void *Stream) {
  pushBlockEvent(BlockEvent::Kind::Released, Allocator, Ptr, 0, Stream, ReleasedName);
}

STREAMLIFE_EXPORT void __streamlife_buffer_accessed(const void *Ptr, size_t Size, void *Stream,
                                                    int /*is_write: not distinguished yet*/) {
  ValidatorRuntime *R = runtime();
  if (!R || !Ptr || !Size)
    return;
  static std::atomic<NameId> Name{0};
  NameId Id = Name.load(std::memory_order_relaxed);
  if (!Id) {
    Id = R->Ops.internName("streamlife_buffer_accessed");
    Name.store(Id, std::memory_order_relaxed);
  }
  BlockEvent Event;
  Event.What = BlockEvent::Kind::Accessed;
  Event.Thread = currentThread();
  Event.Ptr = reinterpret_cast<Addr>(Ptr);
  Event.Size = Size;
  Event.Stream = reinterpret_cast<Handle>(Stream);
  Event.Site = captureOp(*R, Id);
  R->Annotated.push(Event);
}

/// 1 when sitecustomize should feed CuPy's memory pool (cupy_feed option).
STREAMLIFE_EXPORT int __streamlife_cupy_feed_enabled() {
  ValidatorRuntime *R = runtime();
  return R && R->Opts.cupy_feed ? 1 : 0;
}

/// 1: the frame walker serves every thread (no per-thread hook needed); 0: the
/// profile function was installed on this thread (call again on new threads);
/// -1: no Python call sites.
STREAMLIFE_EXPORT int __streamlife_python_attach() {
  ValidatorRuntime *R = runtime();
  if (!R || !R->Opts.python_stacks)
    return -1;
  std::string WalkerWhy;
  PythonStackSource Source = attachPythonStacks(R->Opts.python_frame_walker, WalkerWhy);
  static std::atomic<bool> Said{false};
  if (R->Opts.verbosity > 0 && Source != PythonStackSource::None && !Said.exchange(true)) {
    if (Source == PythonStackSource::FrameWalker)
      std::fprintf(stderr, "streamlife: note: python call sites: frame walker (%s)\n",
                   pythonFrameWalkerVersion().c_str());
    else
      std::fprintf(stderr, "streamlife: note: python call sites: profile function%s%s\n",
                   WalkerWhy.empty() ? "" : "; frame walker refused: ", WalkerWhy.c_str());
  }
  switch (Source) {
  case PythonStackSource::FrameWalker:
    return 1;
  case PythonStackSource::ProfileFunction:
    return 0;
  case PythonStackSource::None:
    break;
  }
  return -1;
}
