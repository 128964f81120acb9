//===- Annotations.cpp - the entry points of streamlife/annotations.h -----===//
//
// The only symbols the library exports on purpose (default visibility; the
// rest is hidden). Each call captures its call site here, outside CUPTI, and
// queues a block event (allocators/AnnotatedAllocators.h): callers include
// PyTorch's trace tracker under the allocator's lock, so nothing here calls
// CUDA, takes the GIL, or enters the engine. The queue is replayed at the next
// intercepted CUDA call (InterceptScope replays it) and at exit.
//
// __streamlife_python_attach is the hook of the sitecustomize module that
// `streamlife run` puts on PYTHONPATH (callsites/PythonStacks.h).
//
//===----------------------------------------------------------------------===//
#include "intercept/InterceptContext.h"

#include "callsites/PythonFrameWalker.h"
#include "callsites/PythonStacks.h"
#include "config/Options.h"
#include "report/LogFile.h"
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

/// opName's first time per (allocator, slot), or an allocator beyond the
/// table. Out of line: inline, its strings made every block event's frame
/// save every register and lay out the strings' slots (about 20
/// instructions an event).
__attribute__((noinline, cold)) NameId learnOpName(const InterceptContext &I, int Allocator,
                                                   NameSlot Slot) {
  static const char *const Suffix[SlotCount] = {"block allocated", "release requested",
                                                "block released"};
  NameId Id = I.name(I.allocatorName(Allocator) + ": " + Suffix[Slot]);
  if (Allocator > 0 && Allocator <= MaxNamedAllocators)
    AllocatorNames[Allocator][Slot].store(Id, std::memory_order_relaxed);
  return Id;
}

NameId opName(const InterceptContext &I, int Allocator, NameSlot Slot) {
  if (Allocator > 0 && Allocator <= MaxNamedAllocators)
    if (NameId Id = AllocatorNames[Allocator][Slot].load(std::memory_order_relaxed))
      return Id;
  return learnOpName(I, Allocator, Slot);
}

void pushBlockEvent(BlockEvent::Kind What, int Allocator, const void *Ptr, std::uint64_t Size,
                    void *Stream, NameSlot Slot) {
  ValidatorRuntime *R = runtime();
  if (!R || !Ptr)
    return;
  // Validator code from here: a signal handler that ends the process on this
  // thread meanwhile (abort, _exit) must not replay the queue whose lock the
  // push may hold (InterceptProcessEnd.cpp).
  ValidatorCode Running;
  InterceptContext I(*R);
  ProfileTimer Timer(ProfileCallback::BlockEvents);
  if (!I.allocatorKnown(Allocator))
    return;
  BlockEvent Event;
  Event.What = What;
  Event.Allocator = Allocator;
  Event.Thread = I.thread();
  Event.Ptr = reinterpret_cast<Addr>(Ptr);
  Event.Size = Size;
  Event.Stream = reinterpret_cast<Handle>(Stream);
  // A release is reported where its owner let go of the block (the request),
  // when it was requested: then its own call site would never be read, and
  // capturing it (stacks, interning) was a third of PyTorch's captures.
  // The allocator is known from here on (a registration is never undone):
  // the queue does not ask the registry again.
  if (What == BlockEvent::Kind::Released && I.queueKnownAllocatorReleaseNamedByRequest(Event))
    return;
  Event.Site = I.op(opName(I, Allocator, Slot));
  I.queueKnownAllocatorBlockEvent(Event);
}

} // namespace

} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;

STREAMLIFE_EXPORT int __streamlife_register_allocator(const char *Name, int Policy) {
  ValidatorRuntime *R = runtime();
  if (!R)
    return 0;
  return InterceptContext(*R).registerAllocator(Name && *Name ? Name : "unnamed allocator", Policy);
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
  ValidatorCode Running; // as pushBlockEvent's
  InterceptContext I(*R);
  ProfileTimer Timer(ProfileCallback::BlockEvents);
  static std::atomic<NameId> Name{0};
  NameId Id = Name.load(std::memory_order_relaxed);
  if (!Id) {
    Id = I.name("streamlife_buffer_accessed");
    Name.store(Id, std::memory_order_relaxed);
  }
  BlockEvent Event;
  Event.What = BlockEvent::Kind::Accessed;
  Event.Thread = I.thread();
  Event.Ptr = reinterpret_cast<Addr>(Ptr);
  Event.Size = Size;
  Event.Stream = reinterpret_cast<Handle>(Stream);
  Event.Site = I.op(Id);
  I.queueBlockEvent(Event);
}

/// 1 when sitecustomize should feed CuPy's memory pool (cupy_feed option).
STREAMLIFE_EXPORT int __streamlife_cupy_feed_enabled() {
  ValidatorRuntime *R = runtime();
  return R && InterceptContext(*R).options().cupy_feed ? 1 : 0;
}

/// 1: the frame walker serves every thread (no per-thread hook needed); 0: the
/// profile function was installed on this thread (call again on new threads);
/// -1: no Python call sites.
STREAMLIFE_EXPORT int __streamlife_python_attach() {
  ValidatorRuntime *R = runtime();
  if (!R)
    return -1;
  const Options &Opts = InterceptContext(*R).options();
  if (!Opts.python_stacks)
    return -1;
  std::string WalkerWhy;
  PythonStackSource Source = attachPythonStacks(Opts.python_frame_walker, WalkerWhy);
  static std::atomic<bool> Said{false};
  if (Opts.verbosity > 0 && Source != PythonStackSource::None && !Said.exchange(true)) {
    if (Source == PythonStackSource::FrameWalker)
      std::fprintf(validatorLog(), "streamlife: note: python call sites: frame walker (%s)\n",
                   pythonFrameWalkerVersion().c_str());
    else
      std::fprintf(validatorLog(), "streamlife: note: python call sites: profile function%s%s\n",
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
