//===- Runtime.h - process-wide state of the preloaded validator -*- C++ -*-===//
//
// One ValidatorRuntime per process, created by the library's constructor and
// never destroyed (CUDA calls back during exit, after static destructors).
// Interceptor families (Intercept*.cpp) receive a CallContext per CUPTI
// callback and translate the call into engine events; they never decide
// anything about ordering themselves.
//
// Locking rules, because the driver calls back into us and a lock held across
// a driver call deadlocked in the measurements (runtime-notes section 8):
//   * a thread-local guard drops callbacks raised by our own driver calls;
//   * no validator lock (engine, resolver, tables, reporter) is ever held while
//     calling the driver, and the engine's FindingSink only queues.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_RUNTIME_H
#define STREAMLIFE_RT_INTERCEPT_RUNTIME_H

#include "allocators/AnnotatedAllocators.h"
#include "allocators/StreamOrderedPool.h"
#include "engine/Engine.h"
#include "intercept/CudaLibraries.h"
#include "intercept/KernelArguments.h"
#include "intercept/LaunchStats.h"
#include "intercept/StreamResolver.h"
#include "report/CallSites.h"
#include "report/Options.h"
#include "report/Reporter.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace streamlife {
namespace rt {

class ValidatorRuntime : public StreamNamer {
public:
  ValidatorRuntime(const Options &Opts, const DriverApi &Driver);

  std::string streamName(StreamId S) override { return Streams.name(S); }

  Options Opts;
  DriverApi Driver;
  OpTable Ops;
  Reporter Report;
  Engine Eng;
  StreamResolver Streams;
  KernelInfoCache Kernels;
  LaunchStats Launches;
  StreamOrderedPool Pool;
  /// Allocators that describe their own blocks (include/streamlife/annotations.h).
  AnnotatedAllocators Annotated;
  /// PyTorch's caching allocator feed (TorchFeed.cpp): TorchFeedState values.
  std::atomic<int> TorchFeed{0};
  /// Op -> allocation-site key for the block accounting (sites are few).
  std::uint64_t siteKey(OpId Op);
  /// Streams currently capturing into a graph; while 0, no launch asks the
  /// driver whether its stream captures (the common case costs nothing).
  std::atomic<int> ActiveCaptures{0};
  /// Set by the first intercepted call: only processes that used CUDA print a
  /// summary (LD_PRELOAD also reaches shells and helper processes).
  std::atomic<bool> UsedCuda{false};
  /// Host synchronization events queued (InterceptThreads.cpp), for
  /// intercept_stats.
  std::atomic<std::uint64_t> HostSyncEvents{0};

private:
  std::mutex SiteKeyLock;
  std::unordered_map<OpId, std::uint64_t> SiteKeys;
};

/// Interns "what did this" with the calling thread's call site: its Python
/// stack when it runs traced Python code (report/PythonStacks.h), else its
/// native stack, sampled per (name, thread) as the stacks_per_op option says.
/// No CUDA call, no lock but the op table's: safe under an allocator's lock.
OpId captureOp(ValidatorRuntime &R, NameId Name);

/// Replays the annotation events queued since the last call (Annotations.cpp).
void drainAnnotations(ValidatorRuntime &R, ThreadId T, CUcontext Ctx);
/// The summary's block-accounting lines (Annotations.cpp).
std::vector<std::string> blockSummaryLines(ValidatorRuntime &R);
/// ValidatorRuntime::TorchFeed.
enum TorchFeedState : int {
  TorchFeedWaiting = 0, ///< no PyTorch (yet), or its allocator is not initialized
  TorchFeedAttached,    ///< the trace tracker feeds the annotation queue
  TorchFeedNotNeeded,   ///< PyTorch uses cudaMallocAsync: the CUDA API shows everything
  TorchFeedFailed,      ///< said so once; raw CUDA is still validated
};
/// Attaches PyTorch's caching-allocator feed once the allocator exists
/// (TorchFeed.cpp); cheap when already decided.
void maybeAttachTorchFeed(ValidatorRuntime &R);

/// The process's runtime, or null while passive (no driver, no CUPTI, another
/// CUPTI subscriber, or a forked child).
ValidatorRuntime *runtime();

/// A small dense id for the calling OS thread.
ThreadId currentThread();

/// What an interceptor gets for one CUPTI driver-API callback.
struct CallContext {
  ValidatorRuntime &R;
  ThreadId T;
  CUpti_CallbackId Cbid;
  const CUpti_CallbackData &Data;
  bool PerThreadApi; ///< a _ptsz/_ptds variant: NULL means the per-thread stream

  bool entering() const { return Data.callbackSite == CUPTI_API_ENTER; }
  bool exitedOk() const {
    return Data.callbackSite == CUPTI_API_EXIT &&
           *static_cast<const CUresult *>(Data.functionReturnValue) == CUDA_SUCCESS;
  }
  CUresult result() const { return *static_cast<const CUresult *>(Data.functionReturnValue); }
  template <typename P> const P &params() const { return *static_cast<const P *>(Data.functionParams); }

  StreamId stream(CUstream H) const { return R.Streams.resolve(T, H, PerThreadApi, Data.context); }
  int device() const { return R.Streams.currentDevice(Data.context); }
  /// Interns "what did this" with the caller's native stack.
  OpId op(NameId Name) const;
  /// The API's own name ("cuMemcpyAsync") as an op.
  OpId apiOp() const;
  /// True (and notes it once) when H is capturing into a graph right now.
  bool capturing(CUstream H) const;
};

// Interceptor families; each returns nothing and ignores cbids it does not own.
void interceptStreams(const CallContext &C);
void interceptEventsAndSync(const CallContext &C);
void interceptMemory(const CallContext &C);
void interceptLaunches(const CallContext &C);
void interceptCopiesAndSets(const CallContext &C);
void notAnalysedStreamMemOps(const CallContext &C);

} // namespace rt
} // namespace streamlife

#endif
