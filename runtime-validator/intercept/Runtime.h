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
  /// Streams currently capturing into a graph; while 0, no launch asks the
  /// driver whether its stream captures (the common case costs nothing).
  std::atomic<int> ActiveCaptures{0};
  /// Set by the first intercepted call: only processes that used CUDA print a
  /// summary (LD_PRELOAD also reaches shells and helper processes).
  std::atomic<bool> UsedCuda{false};
};

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
