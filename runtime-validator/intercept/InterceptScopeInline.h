//===- InterceptScopeInline.h - an intercepted call's scope, inline -*- C++ -*-===//
//
// The common case of an InterceptScope (InterceptContext.h), inline where the
// runtime's state is known (Runtime.h): the driver calls of the call table
// (DriverCallTable.h), three per launch-bound step, and the CUPTI path's
// out-of-line constructor. The common case is a known thread whose published
// word is known (so a process that used CUDA before), no self-profile, no
// block events queued and no findings to print: the scope then only takes the
// filter's marks (RedundantSyncFilter.h), and anything else goes through the
// out-of-line enterFully / leaveFully, which do everything. Out of line, the
// common case cost a call and a frame of five saved registers each way.
//
// A driver call runs its common case with no InterceptScope object at all
// (runCommonCase): the scope's optional context, its timer and their flags
// cost a driver call about 30 instructions of stores and tests on the stack,
// for state that the common case never uses (no timer runs without a
// profile; the context lives exactly as long as the call).
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

inline bool InterceptScope::mayDefer(const ValidatorRuntime &R) {
  // Not while a timeline records: it draws the calls as they come and the
  // allocators' blocks as they are replayed, so a call must meet the blocks
  // queued before it replayed (its lanes follow that order).
  return R.Opts.defer_cuda_ops && !R.Recording.load(std::memory_order_relaxed) &&
         R.Annotated.unapplied() < static_cast<std::size_t>(R.Opts.replay_batch);
}

inline bool InterceptScope::isCommonCase(ValidatorRuntime &R, ProfileSlot Slot,
                                         const std::atomic<std::uint64_t> *Word) {
  // A published word says more than itself: only a scope that went through
  // enter() publishes it (askPublishedState, InterceptContext.cpp), for a
  // thread its context had numbered (ThisThreadState.Number) and in the same
  // step as it marks the process as one that used CUDA (R.UsedCuda, never
  // cleared); the word and the number are the thread's own, and the process
  // has one runtime while it intercepts (the word is its engine's already).
  // So neither is asked again here: three instructions each, three calls per
  // launch-bound step. Likewise a row's profile slot is given only while the
  // profile is enabled (setUpDriverCalls; it is never disabled), so the slot
  // alone says whether the call is timed.
  return __builtin_expect(Word && Slot == NoProfileSlot && !R.Annotated.hasPending(), 1);
}

inline bool InterceptScope::enterQuickly(ValidatorRuntime &R, ProfileSlot Slot, CUcontext Ctx,
                                         bool PerThreadApi) {
  const std::atomic<std::uint64_t> *Word = detail::ThisThreadState.PublishedHostWord;
  if (!isCommonCase(R, Slot, Word))
    return false;
  Context.emplace(R, Ctx, PerThreadApi);
  Filter = &redundant_sync::thisThread();
  FilterMark = Filter->cudaCallEntered(Word->load(std::memory_order_acquire));
  Unsettled = false;
  return true;
}

template <typename Fn>
__attribute__((always_inline)) inline bool InterceptScope::runCommonCase(ValidatorRuntime &R, ProfileSlot Slot,
                                                                         CUcontext Ctx, bool PerThreadApi,
                                                                         bool Deferrable, Fn &&Body) {
  // The published word never moves once given (Engine::hostStateWord), so
  // the one read here serves the exit too.
  const std::atomic<std::uint64_t> *Word = detail::ThisThreadState.PublishedHostWord;
  // A deferrable call with events queued is still the common case: its
  // engine work goes behind them (InterceptContext::deferring), unless the
  // queue is long enough to replay now (enterFully does).
  const bool Settled = !R.Annotated.hasPending();
  if (!__builtin_expect(Word && Slot == NoProfileSlot && (Settled || (Deferrable && mayDefer(R))), 1))
    return false;
  ValidatorCode Running; // first: the call's own locks are the validator's
  const InterceptContext Context(R, InterceptContext::NumberedThread{}, Ctx, PerThreadApi);
  redundant_sync::ThreadFilter &Filter = redundant_sync::thisThread();
  const redundant_sync::ThreadFilter::CallMark Mark =
      Filter.cudaCallEntered(Word->load(std::memory_order_acquire));
  Body(Context);
  if (__builtin_expect(Settled, 1))
    Filter.cudaCallLeft(Mark, Word->load(std::memory_order_acquire));
  else
    Filter.cudaCallLeftUnsettled(Mark, Word->load(std::memory_order_acquire));
  if (__builtin_expect(R.Report.hasPending(), 0))
    printFindings(R);
  return true;
}

} // namespace rt
} // namespace streamlife

#endif
