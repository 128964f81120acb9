//===- RuntimeTimeline.h - the run's timeline, fed by the interception -*- C++ -*-===//
//
// `streamlife run --timeline FILE` (STREAMLIFE_OPTIONS=timeline=FILE): the
// recorder (timeline/TimelineRecorder.h) and what ties it to this runtime.
// The interception context calls the recorder beside each engine verb; this
// adapter gives the recorder its names (the op table's kernel and API names,
// the call site a report would print, the stream resolver's stream names),
// the annotated allocators' block lifetimes, the reporter's findings, the
// CUPTI correlation ids of the call being intercepted, and CUPTI's activity
// records for GPU times (CuptiActivity.h). Without the option nothing of it
// exists, and the interception context only tests a null pointer.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_RUNTIMETIMELINE_H
#define STREAMLIFE_RT_INTERCEPT_RUNTIMETIMELINE_H

#include "allocators/BlockEvents.h"
#include "report/Reporter.h"
#include "timeline/TimelineRecorder.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace streamlife {
namespace rt {

class ValidatorRuntime;

class RuntimeTimeline final : public TimelineNames, public BlockObserver, public FindingObserver {
public:
  /// The timeline the options ask for ('%p' becomes the process id), with
  /// GPU times when CUPTI can give them (its activity records are enabled
  /// here, before any CUDA call); nothing is written yet.
  static std::unique_ptr<RuntimeTimeline> prepare(ValidatorRuntime &R);

  bool gpuTime() const { return Settings.GpuTime; }
  /// At the process's first CUDA call (once, whichever thread makes it):
  /// creates the file and starts recording (ValidatorRuntime::Recording), or
  /// says in one line why it cannot and the run goes on without it.
  void start();

  std::string streamName(StreamId S) override;
  OpLabel opLabel(OpId Op) override;

  void blockAllocated(ThreadId T, Range Bytes, StreamId Stream, OpId Site) override;
  void blockReleaseRequested(ThreadId T, Addr Base, StreamId Stream, OpId Site) override;
  void blockReleased(ThreadId T, Addr Base, OpId Site) override;
  void blockAccessed(ThreadId T, StreamId Stream, Range Bytes, OpId Site) override;

  void observed(const Finding &F, const std::string &Headline) override;

  /// At exit: takes the GPU times CUPTI still holds, writes the trace into
  /// place and says where it is (or why it could not); nothing when the
  /// process made no CUDA call.
  void finish();

private:
  explicit RuntimeTimeline(ValidatorRuntime &R) : R(R) {}

  ValidatorRuntime &R;
  TimelineSettings Settings;
  std::string NoGpuTimeReason; ///< said at start when GPU times were asked for but cannot come
  std::once_flag Started;
  std::unique_ptr<TimelineRecorder> Owned;
  /// The recorder once started (the observers are called from any thread).
  std::atomic<TimelineRecorder *> Recorder{nullptr};
};

/// The CUPTI correlation ids of the call the calling thread is inside (zeros
/// outside CUPTI callbacks). The CUPTI mechanism sets them around its
/// dispatch; the runtime call around a driver call sets its own.
Correlation currentCorrelation();
void setDriverCorrelation(std::uint32_t Id);
void setRuntimeCorrelation(std::uint32_t Id);
/// An interposed library call (cuBLAS, cuDNN) launches its kernels before it
/// is recorded, when it returns with the accesses its arguments describe:
/// the first kernel's correlation ids are kept for library call Call
/// (LibraryCallScope::current()), so that the call is drawn at that kernel's
/// GPU time instead of beside an unnamed kernel.
void noteLibraryKernel(std::uint64_t Call);
/// The correlation ids of work being recorded: those of the CUPTI call it is
/// inside, else, within library call Call (0: none), its first kernel's.
Correlation workCorrelation(std::uint64_t Call);

/// "consume" for "consume(float const*, float*, int)", "vectorized_elementwise_kernel<…>"
/// for a long template; what the timeline writes on a slice.
std::string shortKernelName(const std::string &Name);
/// What an op does, from its API or kernel name: "copy", "memset",
/// "collective", "library call" or "kernel".
const char *workCategory(const std::string &Name);

} // namespace rt
} // namespace streamlife

#endif
