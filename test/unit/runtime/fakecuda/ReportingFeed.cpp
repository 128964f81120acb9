//===- ReportingFeed.cpp - a feed that reports a block, planted by a test ---===//
//
// Stands for a working libstreamlife_torch-<KEY>.so in the feed cache: its
// attach registers an allocator and reports one block's lifetime from a
// function of its own, as the real feed's trace tracker reports every block
// of PyTorch's caching allocator from inside the allocator. On a thread with
// no Python code (autograd's) the block's call site is a native stack whose
// innermost frames are the feed's: test/cli/run-torch-feed-site.test checks
// that the report skips them as the validator's own, although ld.so knows the
// feed by the descriptor it was loaded through (/proc/self/fd/N).
//
//===----------------------------------------------------------------------===//
#include "streamlife/annotations.h"

#include <cstddef>
#include <cstdint>

namespace {
int Allocator = 0;

// Out of line and not a tail call: its frame is on the stack the block's
// events capture, as onTraceEntry's is under PyTorch's allocations.
__attribute__((noinline)) void reportOneBlock() {
  auto *Block = reinterpret_cast<const void *>(std::uintptr_t{0x7f0000100000});
  streamlife_block_allocated(Allocator, Block, 4096, nullptr);
  streamlife_block_release_requested(Allocator, Block, nullptr);
  streamlife_block_released(Allocator, Block, nullptr);
  asm volatile("" ::: "memory");
}
} // namespace

extern "C" __attribute__((visibility("default"))) int streamlife_torch_attach(char *Why, std::size_t Size) {
  if (Size)
    Why[0] = '\0';
  Allocator = streamlife_register_allocator("planted reporting feed", STREAMLIFE_REUSE_SAME_STREAM);
  if (!Allocator)
    return -1;
  reportOneBlock();
  return 1;
}
