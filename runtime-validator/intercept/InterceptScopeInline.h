//===- InterceptScopeInline.h - an intercepted call's scope, inline -*- C++ -*-===//
//
// The common entry and exit of an InterceptScope (InterceptContext.h), inline
// where the runtime's state is known (Runtime.h): the driver calls of the call
// table (DriverCallTable.h), three per launch-bound step, and the CUPTI path's
// out-of-line constructor. The common case is a known thread whose published
// word is known, no self-profile, a process that used CUDA before, no block
// events queued and no findings to print: the scope then only takes the
// filter's marks (RedundantSyncFilter.h), and anything else goes through the
// out-of-line enterFully / leaveFully, which do everything. Out of line, the
// common case cost a call and a frame of five saved registers each way.
//
// Only the runtime's core includes this header (it includes Runtime.h).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_INTERCEPTSCOPEINLINE_H
#define STREAMLIFE_RT_INTERCEPT_INTERCEPTSCOPEINLINE_H

#include "intercept/InterceptContext.h"
#include "intercept/RedundantSyncFilter.h"
#include "intercept/Runtime.h"

namespace streamlife {
namespace rt {

inline bool InterceptScope::enterQuickly(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx,
                                         bool PerThreadApi) {
  const std::atomic<std::uint64_t> *Word = detail::PublishedHostWord;
  if (__builtin_expect(detail::ThisThread == ~ThreadId(0) || !Word ||
                           (R.Profile.enabled() && Slot != NoProfileSlot) ||
                           !R.UsedCuda.load(std::memory_order_relaxed) || R.Annotated.hasPending(),
                       0))
    return false;
  Context.emplace(R, Ctx, PerThreadApi);
  Filter = &redundant_sync::thisThread();
  FilterMark = Filter->cudaCallEntered(Word->load(std::memory_order_acquire));
  return true;
}

inline InterceptScope::InterceptScope(DriverCall, ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx,
                                      bool PerThreadApi) {
  if (!enterQuickly(R, Slot, Ctx, PerThreadApi))
    enterFully(R, Slot, Ctx, PerThreadApi);
}

inline bool InterceptScope::leaveQuickly() {
  const std::atomic<std::uint64_t> *Word = detail::PublishedHostWord;
  if (__builtin_expect(!Word || Context->R.Report.hasPending() || Timer.running(), 0))
    return false;
  Filter->cudaCallLeft(FilterMark, Word->load(std::memory_order_acquire));
  return true;
}

inline void InterceptScope::leaveDriverCall() {
  // Left here, the scope is empty for its destructor, which then leaves
  // nothing more to do than the timer's and the validator depth's own.
  if (Context && leaveQuickly())
    Context.reset();
}

} // namespace rt
} // namespace streamlife

#endif
