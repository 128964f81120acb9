//===- DriverCallContext.h - one intercepted driver call, for its family -*- C++ -*-===//
//
// What an interceptor family (Intercept*.cpp) gets for one driver call of the
// call table (CuptiCalls.inc), whichever mechanism carried it: a CUPTI
// driver-API callback (CuptiSubscription.cpp) or the driver's entry point
// itself (DriverEntryPoints.cpp). It holds the call's InterceptContext (the
// only way into the engine) and what both mechanisms can say about the call:
// the cbid, the site (before the driver acts, or after it returned), the
// result, the parameter struct CUPTI defines for it (<Name>_params of
// generated_cuda_meta.h, which the entry points build from their arguments),
// the kernel's name where the mechanism knows it. Nothing
// of CUPTI's callback data reaches a family.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_DRIVERCALLCONTEXT_H
#define STREAMLIFE_RT_INTERCEPT_DRIVERCALLCONTEXT_H

#include "intercept/InterceptContext.h"

#include <cupti.h>

namespace streamlife {
namespace rt {

struct CallContext {
  enum class Site : unsigned char {
    Enter, ///< before the driver acts
    Exit,  ///< after it returned Result
  };

  const InterceptContext &Intercept;
  CUpti_CallbackId Cbid;
  Site At;
  const void *Params;     ///< the call's <Name>_params
  CUresult Result;        ///< at Exit only
  /// A launch's kernel as CUPTI names it; null where the mechanism cannot
  /// say (the driver is then asked once per kernel, InterceptContext::kernel).
  const char *SymbolName;

  bool entering() const { return At == Site::Enter; }
  bool exitedOk() const { return At == Site::Exit && Result == CUDA_SUCCESS; }
  template <typename P> const P &params() const { return *static_cast<const P *>(Params); }
  /// The API's own name ("cuMemcpyAsync", the call table's) as an op with
  /// the caller's stack.
  OpId apiOp() const;
};

// Interceptor families; each ignores cbids it does not own. The table
// (CuptiCalls.inc) names them by the part after "intercept".
using CallDecoder = void (*)(const CallContext &);
void interceptLaunches(const CallContext &C);
void interceptStreams(const CallContext &C);
void interceptEventsAndSync(const CallContext &C);
void interceptMemory(const CallContext &C);
void interceptCopiesAndSets(const CallContext &C);
void interceptStreamMemOps(const CallContext &C);

/// What decodes one row of a family: the family's own function for the row's
/// parameter layout where it has one (rowDecoder, CuptiCalls.h), else the
/// family. Either does the same for the row: the family's switch calls the
/// same function for those cbids.
CallDecoder launchesDecoder(CUpti_CallbackId Cbid);
CallDecoder eventsAndSyncDecoder(CUpti_CallbackId Cbid);

} // namespace rt
} // namespace streamlife

#endif
