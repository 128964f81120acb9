//===- CuptiCalls.h - the table of intercepted driver calls -----*- C++ -*-===//
//
// CuptiCalls.inc as data: one row per intercepted cbid, for the subscription
// (enable and dispatch) and for tests that hold the table to its promises
// (every row unique; the per-thread column agrees with the _ptsz/_ptds name;
// every copy or set row decodes). No CUPTI calls; unit-tested on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_CUPTICALLS_H
#define STREAMLIFE_RT_INTERCEPT_CUPTICALLS_H

#include <cupti.h>

#include <vector>

namespace streamlife {
namespace rt {

/// The interceptor family of a row (intercept<Family>, DriverCallContext.h).
enum class CuptiFamily { Launches, Streams, EventsAndSync, Memory, CopiesAndSets, StreamMemOps };

/// The mechanism a row names (CuptiCalls.inc, "Which mechanism carries a row").
enum class CallCarrier : unsigned char {
  Cupti,                    ///< always CUPTI's callbacks
  EntryPointWhereSupported, ///< the driver's entry points, where they can be intercepted
};

struct CuptiCall {
  enum Site : unsigned { AtEnter = 1, AtExit = 2 };
  CUpti_CallbackId Cbid;
  const char *Name; ///< the driver function, "cuMemcpyAsync_ptsz"
  CuptiFamily Family;
  bool PerThread; ///< a NULL stream is the calling thread's per-thread default stream
  unsigned Sites; ///< the callbacks its family uses (Site bits)
  CallCarrier Carrier;
};

/// Every row of CuptiCalls.inc, in table order.
const std::vector<CuptiCall> &cuptiCalls();

/// The rows whose family decodes them with a function of their own, one per
/// parameter layout (the hot calls: a launch, a record and a wait per
/// launch-bound step, where the family's switch cost a dozen compares and a
/// frame each); Family: every other row, through the family's switch.
enum class RowDecoder : unsigned char { Family, LaunchKernel, EventRecord, StreamWaitEvent };
RowDecoder rowDecoder(CUpti_CallbackId Cbid);

} // namespace rt
} // namespace streamlife

#endif
