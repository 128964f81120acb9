//===- Interposition.h - calls intercepted by defining them first -*- C++ -*-===//
//
// The second interception mechanism, beside CUPTI: libraries whose calls CUPTI
// cannot decode (NCCL, cuBLAS, cuBLASLt, cuDNN: their kernels' parameters say
// nothing reliable about the user's buffers) are intercepted by defining their
// functions in the preloaded validator. libtorch_cuda.so lists them as
// DT_NEEDED, so its calls bind through the dynamic linker's global scope,
// where the preloaded library comes first; each definition forwards to the
// real one and records what the call's arguments say it touches.
//
// While a thread is inside an interposed library call, the kernels it launches
// are the library's own: their launches are enqueues on their stream, but their
// parameters are not read as accesses (the call's decoded arguments are).
// Library calls nest (cuBLAS calls cuBLASLt through its exported functions):
// only the outermost one records.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_INTERPOSITION_H
#define STREAMLIFE_RT_INTERCEPT_INTERPOSITION_H

#include "intercept/InterceptContext.h"

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace streamlife {
namespace rt {

/// The real definition of Name, the one after ours. A library loaded with
/// RTLD_LOCAL (Python loads torch's extension so, and the libraries it needs
/// with it) is not in the global scope, so dlsym(RTLD_NEXT) finds nothing
/// (measured: every NCCL collective failed with ncclInvalidUsage); its
/// callers still bind to us first, so the library is then asked directly,
/// already loaded, by one of its sonames. Null when none is loaded.
void *nextDefinition(const char *Name, std::initializer_list<const char *> Sonames);

template <typename Fn> Fn nextFunction(const char *Name, std::initializer_list<const char *> Sonames) {
  return reinterpret_cast<Fn>(nextDefinition(Name, Sonames));
}

/// Marks the calling thread as inside an interposed library call.
class LibraryCallScope {
public:
  LibraryCallScope() {
    if (Depth++ == 0)
      ++Calls;
  }
  ~LibraryCallScope() { --Depth; }
  LibraryCallScope(const LibraryCallScope &) = delete;
  LibraryCallScope &operator=(const LibraryCallScope &) = delete;

  /// True for a call that no other interposed call encloses.
  bool outermost() const { return Depth == 1; }
  /// True while the calling thread is inside any interposed library call.
  static bool active() { return Depth > 0; }
  /// The calling thread's outermost library call in progress, numbered per
  /// thread from 1 (0 outside any): what ties the library's own kernels to
  /// the call recorded after them.
  static std::uint64_t current() { return Depth > 0 ? Calls : 0; }

private:
  // Constant-initialized and defined here: every launch asks active(), and a
  // thread_local defined in another file is reached through a wrapper call.
  static inline thread_local int Depth = 0;
  static inline thread_local std::uint64_t Calls = 0;
};

/// One interposed function: its name as an op name, an intercept_stats
/// counter and a self-profile row, each looked up once.
class InterposedApi {
public:
  explicit constexpr InterposedApi(const char *Name) : Label(Name) {}
  const char *label() const { return Label; }
  NameId name(const InterceptContext &I);
  ProfileSlot slot();

private:
  const char *Label;
  std::atomic<NameId> Name{0};
  std::atomic<int> Slot{-1};
};

/// Records one successful library call: on stream S, touching Ranges, named
/// after Api with the caller's stack (an enqueue like a kernel launch).
void recordLibraryCall(InterposedApi &Api, CUstream S, const std::vector<Range> &Ranges);

} // namespace rt
} // namespace streamlife

#endif
