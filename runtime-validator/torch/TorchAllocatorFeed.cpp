//===- TorchAllocatorFeed.cpp - PyTorch's caching allocator as a client ----===//
//
// NOT compiled with the project. The runtime validator writes this file out
// and compiles it with the system C++ compiler against the PyTorch installed
// in the program it validates, the first time it sees that PyTorch build, and
// caches the result (intercept/TorchFeed.cpp says where and how). The
// allocator's trace-tracker types (a std::function over TraceEntry) are C++
// ABI that changes between PyTorch versions, so no prebuilt binary could
// match every installation.
//
// It is the first client of the public interface <streamlife/annotations.h>:
// it registers the native caching allocator (a freed block goes to the next
// allocation on its allocation stream at once) and forwards its trace events:
//   ALLOC          -> block allocated (address, requested size, allocation stream)
//   FREE_REQUESTED -> release requested (the owner let go: `del`, rebinding)
//   FREE_COMPLETED -> block released (back in the pool; with record_stream
//                     only after the allocator's own event queries succeeded)
// Segment events are not needed: segments are cudaMalloc/cuMemMap calls that
// the validator intercepts itself, and blocks are tracked as address ranges,
// so splitting and merging need no model.
//
// The tracker runs under the allocator's per-device lock: it only calls the
// annotation functions, which queue (no CUDA, no GIL).
//
//===----------------------------------------------------------------------===//
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstdio>
#include <exception>
#include <string>

#include "streamlife/annotations.h"

namespace {

int Allocator = 0;

void onTraceEntry(const c10::CachingDeviceAllocator::TraceEntry &Entry) {
  using Action = c10::CachingDeviceAllocator::TraceEntry::Action;
  const void *Ptr = reinterpret_cast<const void *>(Entry.addr_);
  switch (Entry.action_) {
  case Action::ALLOC:
    streamlife_block_allocated(Allocator, Ptr, Entry.size_, Entry.stream_);
    break;
  case Action::FREE_REQUESTED:
    streamlife_block_release_requested(Allocator, Ptr, Entry.stream_);
    break;
  case Action::FREE_COMPLETED:
    streamlife_block_released(Allocator, Ptr, Entry.stream_);
    break;
  default:
    break;
  }
}

int fail(char *Why, std::size_t WhySize, const std::string &Text) {
  std::snprintf(Why, WhySize, "%s", Text.c_str());
  return -1;
}

} // namespace

/// 1: attached. 0: the allocator is not initialized yet (a tracker attached
/// now would be dropped by its lazy init): try again later. 2: PyTorch uses
/// another backend whose memory the validator sees through the CUDA API
/// (cudaMallocAsync). -1: failed, Why says why.
extern "C" __attribute__((visibility("default"))) int
streamlife_torch_attach(char *Why, std::size_t WhySize) {
  try {
    auto *Cuda = c10::cuda::CUDACachingAllocator::get();
    if (!Cuda)
      return fail(Why, WhySize, "no CUDA allocator is registered");
    if (!Cuda->initialized())
      return 0;
    std::string Backend = Cuda->name(); // "native" for the caching allocator
    if (Backend.find("Async") != std::string::npos) {
      std::snprintf(Why, WhySize, "%s", Backend.c_str());
      return 2;
    }
    // SAME_STREAM: the native allocator's free blocks are kept per stream and
    // only a later allocation on the block's stream can get one, so a release
    // is judged at that stream's next allocation (engine/DeferredFrees.cpp).
    Allocator = streamlife_register_allocator("PyTorch caching allocator",
                                              STREAMLIFE_REUSE_SAME_STREAM);
    if (!Allocator)
      return fail(Why, WhySize, "the validator refused the allocator registration");
    Cuda->attachAllocatorTraceTracker(onTraceEntry);
    return 1;
  } catch (const std::exception &E) {
    return fail(Why, WhySize, E.what());
  }
}
