//===- CuptiCallContext.h - one CUPTI driver callback, for its family -*- C++ -*-===//
//
// The CUPTI mechanism's adapter: what an interceptor family (Intercept*.cpp)
// gets for one driver-API callback. It holds the call's InterceptContext
// (the only way into the engine) and adds what is CUPTI's: the cbid, the
// callback site (enter or exit), the result and the parameter struct. Which
// family a cbid goes to, and for copies and sets how it is decoded, is one
// table (CuptiCalls.inc).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_CUPTICALLCONTEXT_H
#define STREAMLIFE_RT_INTERCEPT_CUPTICALLCONTEXT_H

#include "intercept/InterceptContext.h"

#include <cupti.h>

namespace streamlife {
namespace rt {

struct CallContext {
  const InterceptContext &Intercept;
  CUpti_CallbackId Cbid;
  const CUpti_CallbackData &Data;

  bool entering() const { return Data.callbackSite == CUPTI_API_ENTER; }
  bool exitedOk() const {
    return Data.callbackSite == CUPTI_API_EXIT &&
           *static_cast<const CUresult *>(Data.functionReturnValue) == CUDA_SUCCESS;
  }
  template <typename P> const P &params() const { return *static_cast<const P *>(Data.functionParams); }
  /// The API's own name ("cuMemcpyAsync") as an op with the caller's stack.
  OpId apiOp() const;
};

// Interceptor families; each ignores cbids it does not own. The table
// (CuptiCalls.inc) names them by the part after "intercept".
void interceptLaunches(const CallContext &C);
void interceptStreams(const CallContext &C);
void interceptEventsAndSync(const CallContext &C);
void interceptMemory(const CallContext &C);
void interceptCopiesAndSets(const CallContext &C);
void interceptStreamMemOps(const CallContext &C);

} // namespace rt
} // namespace streamlife

#endif
