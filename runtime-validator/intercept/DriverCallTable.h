//===- DriverCallTable.h - the call table at run time, for both mechanisms -*- C++ -*-===//
//
// The rows of CuptiCalls.inc as the process uses them, whichever mechanism
// carries a row: the family that decodes it, what its NULL stream means, the
// sites it uses, its self-profile slot and op name, and its call count
// (intercept_stats, api_stats). Which mechanism carries each row is decided
// here, once, before the first call: a row is either enabled in CUPTI or
// carried by the driver's entry points (DriverEntryPoints.h), never both and
// never neither, and the counts and names do not depend on which.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_DRIVERCALLTABLE_H
#define STREAMLIFE_RT_INTERCEPT_DRIVERCALLTABLE_H

#include "intercept/CuptiCalls.h"
#include "intercept/DriverCallContext.h"
#include "intercept/InterceptContext.h"
#include "intercept/InterceptScopeInline.h"

#include <cupti.h>
#include <cupti_driver_cbid.h>

#include <atomic>
#include <cstdint>
#include <cstdio>

namespace streamlife {
namespace rt {


/// Fills the table from CuptiCalls.inc. AtEntryPoints: the driver's entry
/// points are intercepted in this process, so the rows that allow it
/// (STREAMLIFE_ENTRY_POINT_CALL) are carried there and not by CUPTI.
void setUpDriverCalls(ValidatorRuntime &R, bool AtEntryPoints);

struct DriverRow {
  CallDecoder Decode = nullptr; ///< the family, or its function for the row; null: not a row
  const char *Name = nullptr;
  bool PerThread = false;
  bool AtEntryPoint = false; ///< carried by the driver's entry points, not CUPTI
  unsigned Sites = 0;        ///< CuptiCall::Site bits
  ProfileSlot Slot = NoProfileSlot;
  /// A launch, a record or a wait: its engine work may wait behind the
  /// queued events (InterceptScope::runCommonCase).
  bool Deferrable = false;
};

namespace detail {
/// By cbid; written by setUpDriverCalls before the runtime is published,
/// read-only after. In the header so that the checks of every call inline.
extern DriverRow Rows[CUPTI_DRIVER_TRACE_CBID_SIZE];
extern std::atomic<std::uint64_t> Calls[CUPTI_DRIVER_TRACE_CBID_SIZE];
/// Whether the calls are counted: only for the options that print the counts
/// (intercept_stats, api_stats). A count is a locked add on a line every
/// launching thread writes: three per launch-bound step for nothing otherwise.
/// Written with Rows, read-only after.
extern bool CountingCalls;
} // namespace detail

/// A row CUPTI must enable and dispatch (false for unknown cbids).
inline bool carriedByCupti(CUpti_CallbackId Cbid) {
  return Cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && detail::Rows[Cbid].Decode && !detail::Rows[Cbid].AtEntryPoint;
}
/// A row the driver's entry points carry.
inline bool carriedAtEntryPoint(CUpti_CallbackId Cbid) {
  return Cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && detail::Rows[Cbid].AtEntryPoint;
}

/// A site of a call that is not the common case (InterceptScopeInline.h): its
/// family in an InterceptScope, which does everything. Out of line.
__attribute__((noinline)) void interceptDriverCallInScope(ValidatorRuntime &R, CUpti_CallbackId Cbid,
                                                          CallContext::Site At, const void *Params,
                                                          CUresult Result, const char *SymbolName,
                                                          CUcontext Ctx);

/// One call of a row (Cbid must be one), from the mechanism that carries it:
/// counted at its Enter, and handed to its family at the sites its row uses,
/// inside an InterceptScope on context Ctx (null: the thread's current one).
/// Inline: it is the whole of both mechanisms' hot path but the family.
inline void interceptDriverCall(ValidatorRuntime &R, CUpti_CallbackId Cbid, CallContext::Site At,
                                const void *Params, CUresult Result, const char *SymbolName, CUcontext Ctx) {
  bool Entering = At == CallContext::Site::Enter;
  if (Entering && detail::CountingCalls)
    detail::Calls[Cbid].fetch_add(1, std::memory_order_relaxed);
  // The other site costs nothing: both mechanisms report both.
  const DriverRow &Row = detail::Rows[Cbid];
  if (!(Row.Sites & (Entering ? CuptiCall::AtEnter : CuptiCall::AtExit)))
    return;
  if (!InterceptScope::runCommonCase(R, Row.Slot, Ctx, Row.PerThread, Row.Deferrable,
                                     [&](const InterceptContext &I) {
                                       Row.Decode(CallContext{I, Cbid, At, Params, Result, SymbolName});
                                     }))
    interceptDriverCallInScope(R, Cbid, At, Params, Result, SymbolName, Ctx);
}

/// interceptDriverCall in the two halves the entry points need: the count
/// (at Enter), and whether a site is used at all, asked before anything is
/// set up for it (a launch uses only Enter, a record or a wait only Exit).
inline void countDriverCall(CUpti_CallbackId Cbid) {
  if (detail::CountingCalls)
    detail::Calls[Cbid].fetch_add(1, std::memory_order_relaxed);
}
inline bool driverCallUsesSite(CUpti_CallbackId Cbid, CallContext::Site At) {
  return detail::Rows[Cbid].Sites & (At == CallContext::Site::Enter ? CuptiCall::AtEnter : CuptiCall::AtExit);
}
/// A site that the row uses (driverCallUsesSite), of a call counted already.
__attribute__((always_inline)) inline void interceptDriverCallSite(ValidatorRuntime &R, CUpti_CallbackId Cbid, CallContext::Site At,
                                    const void *Params, CUresult Result, CUcontext Ctx) {
  const DriverRow &Row = detail::Rows[Cbid];
  if (!InterceptScope::runCommonCase(R, Row.Slot, Ctx, Row.PerThread, Row.Deferrable,
                                     [&](const InterceptContext &I) {
                                       Row.Decode(CallContext{I, Cbid, At, Params, Result, nullptr});
                                     }))
    interceptDriverCallInScope(R, Cbid, At, Params, Result, nullptr, Ctx);
}
/// A call the table does not handle, seen by CUPTI with api_stats (counted only).
void countUnhandledDriverCall(CUpti_CallbackId Cbid);

/// Marks the calling thread as handling an intercepted driver call: the
/// driver calls the validator makes meanwhile (parameter layouts, stream
/// flags, kernel names) are its own and are not intercepted again, by
/// either mechanism.
class DriverCallGuard {
public:
  DriverCallGuard() { Inside = true; }
  ~DriverCallGuard() { Inside = false; }
  DriverCallGuard(const DriverCallGuard &) = delete;
  DriverCallGuard &operator=(const DriverCallGuard &) = delete;
  static bool inside() { return Inside; }

private:
  static inline thread_local bool Inside = false; // constant: no TLS wrapper on access
};

/// "streamlife: intercept-stats: driver cuLaunchKernel (cbid 307): N" per
/// handled row that was called.
void printInterceptStats(std::FILE *Out);
/// The driver calls' counts as (cbid, count), every cbid seen (api_stats).
template <typename Fn> void forEachDriverCallCount(Fn &&F);

namespace detail {
std::uint64_t driverCallCount(unsigned Cbid);
unsigned driverCallCbids();
} // namespace detail

template <typename Fn> void forEachDriverCallCount(Fn &&F) {
  for (unsigned I = 0, N = detail::driverCallCbids(); I < N; ++I)
    if (std::uint64_t Count = detail::driverCallCount(I))
      F(I, Count);
}

} // namespace rt
} // namespace streamlife

#endif
