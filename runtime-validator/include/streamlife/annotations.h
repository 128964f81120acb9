/*===- streamlife/annotations.h - tell the validator about an allocator -*- C -*-===
 *
 * The public interface of the streamlife runtime validator, for allocators
 * that sub-allocate device memory themselves (caching allocators, pools,
 * arenas) and so hide their frees and reuse from the CUDA API. In the spirit of
 * <sanitizer/tsan_interface.h> and Valgrind's client requests: include it, call
 * the functions, and ship the program as usual. Without the validator loaded
 * (no `streamlife run`, no LD_PRELOAD of libstreamlife_rt.so) every call is a
 * test of a null weak symbol and costs nothing else.
 *
 * Vocabulary: a block is allocated for use on one stream, its allocation
 * stream. The host asks to release it (release requested: `del`, a
 * deallocate call); the allocator puts it back into its pool (released) at
 * once, or later when it knows other streams are done with it (PyTorch's
 * record_stream). From then on the allocator may hand the bytes to the next
 * allocation, and the policy says how that reuse is ordered:
 *
 *   STREAMLIFE_REUSE_SAME_STREAM     the next allocation on the allocation
 *       stream gets the block with no ordering at all (PyTorch's and CuPy's
 *       caching allocators, RMM's pool resources): every use of the block on
 *       another stream must be ordered before that stream's next allocation
 *       (best: before the release), or the next owner's work races with it.
 *       The validator reports such a release at that allocation, whichever
 *       block it gets and whichever thread makes it (an allocation by another
 *       thread that is not ordered before the release counts, even if it
 *       came first).
 *   STREAMLIFE_REUSE_STREAM_ORDERED  reuse is ordered after the release in
 *       stream order, like cudaFreeAsync: the release is an operation on the
 *       given stream, and the block may go to an allocation on any stream of
 *       the device from that point on; a use not ordered before the release
 *       is reported at the release.
 *
 * Streams are cudaStream_t / CUstream values passed as void* (0 is the legacy
 * default stream of the current device). Each call records its call site (the
 * native stack and, in Python programs, the Python stack) for the reports.
 * Calls may come from any thread and under the caller's own locks: they never
 * call CUDA or take the Python GIL; the validator processes them in order at
 * the next CUDA call it intercepts.
 *
 *===----------------------------------------------------------------------===*/
#ifndef STREAMLIFE_ANNOTATIONS_H
#define STREAMLIFE_ANNOTATIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum streamlife_reuse_policy {
  STREAMLIFE_REUSE_SAME_STREAM = 1,
  STREAMLIFE_REUSE_STREAM_ORDERED = 2
};

/* The entry points the validator exports. Weak, so that a program (or
 * library) built with this header links and runs without the validator. */
int __streamlife_register_allocator(const char *name, int policy) __attribute__((weak));
void __streamlife_block_allocated(int allocator, const void *ptr, size_t size,
                                  void *stream) __attribute__((weak));
void __streamlife_block_release_requested(int allocator, const void *ptr,
                                          void *stream) __attribute__((weak));
void __streamlife_block_released(int allocator, const void *ptr, void *stream)
    __attribute__((weak));
void __streamlife_buffer_accessed(const void *ptr, size_t size, void *stream,
                                  int is_write) __attribute__((weak));

/* Registers an allocator; returns its id (> 0), or 0 when the validator is
 * not loaded or the policy is unknown. Pass the id to the calls below; calls
 * with id 0 do nothing. */
static inline int streamlife_register_allocator(const char *name, int policy) {
  return __streamlife_register_allocator ? __streamlife_register_allocator(name, policy) : 0;
}

/* [ptr, ptr + size) is handed out for use on `stream`, its allocation stream. */
static inline void streamlife_block_allocated(int allocator, const void *ptr, size_t size,
                                              void *stream) {
  if (__streamlife_block_allocated && allocator)
    __streamlife_block_allocated(allocator, ptr, size, stream);
}

/* The owner gave the block at `ptr` back (the site reports show as the
 * release); the allocator may still hold it back from reuse. `stream` is the
 * block's allocation stream. Optional: without it, streamlife_block_released
 * is the release site. */
static inline void streamlife_block_release_requested(int allocator, const void *ptr,
                                                      void *stream) {
  if (__streamlife_block_release_requested && allocator)
    __streamlife_block_release_requested(allocator, ptr, stream);
}

/* The block at `ptr` is back in the pool: from now on it may be reused. For a
 * STREAMLIFE_REUSE_STREAM_ORDERED allocator, `stream` is the stream the
 * release is enqueued on; otherwise the allocation stream. */
static inline void streamlife_block_released(int allocator, const void *ptr, void *stream) {
  if (__streamlife_block_released && allocator)
    __streamlife_block_released(allocator, ptr, stream);
}

/* Work enqueued on `stream` just now reads (is_write 0) or writes [ptr, ptr +
 * size): for accesses the validator cannot see as kernel arguments or copies
 * (pointers hidden in structures, device-side allocators, other APIs). */
static inline void streamlife_buffer_accessed(const void *ptr, size_t size, void *stream,
                                              int is_write) {
  if (__streamlife_buffer_accessed)
    __streamlife_buffer_accessed(ptr, size, stream, is_write);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STREAMLIFE_ANNOTATIONS_H */
