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

#include "intercept/DriverCallContext.h"

#include <cupti.h>

#include <cstdio>

namespace streamlife {
namespace rt {

class ValidatorRuntime;

/// Fills the table from CuptiCalls.inc. AtEntryPoints: the driver's entry
/// points are intercepted in this process, so the rows that allow it
/// (STREAMLIFE_ENTRY_POINT_CALL) are carried there and not by CUPTI.
void setUpDriverCalls(ValidatorRuntime &R, bool AtEntryPoints);

/// A row CUPTI must enable and dispatch (false for unknown cbids).
bool carriedByCupti(CUpti_CallbackId Cbid);
/// A row the driver's entry points carry.
bool carriedAtEntryPoint(CUpti_CallbackId Cbid);

/// One call of a row, from the mechanism that carries it: counted at its
/// Enter, and handed to its family at the sites its row uses, inside an
/// InterceptScope on context Ctx (null: the thread's current one).
void interceptDriverCall(ValidatorRuntime &R, CUpti_CallbackId Cbid, CallContext::Site At,
                         const void *Params, CUresult Result, const char *SymbolName, CUcontext Ctx);
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
  static thread_local bool Inside;
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
