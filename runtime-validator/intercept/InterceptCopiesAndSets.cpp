//===- InterceptCopiesAndSets.cpp - memcpy and memset, every variant -------===//
//
// A copy or set is one enqueue touching its exact byte ranges, decoded from its
// row of CuptiCalls.inc (CopyDecoder.h). Synchronous copies with a host side
// return only when the copy is done, so they are host syncs of their stream as
// well; device-to-device copies and sets are asynchronous to the host (CUDA
// docs, "API synchronization behavior") and are not.
//
//===----------------------------------------------------------------------===//
#include "intercept/CopyDecoder.h"
#include "intercept/DriverCallContext.h"

namespace streamlife {
namespace rt {

void interceptCopiesAndSets(const CallContext &C) {
  const InterceptContext &I = C.Intercept;
  static thread_local DecodedCopy Copy;
  {
    ProfileTimer Decoding(I.profile(), ProfilePhase::Decode);
    if (!decodeCopy(C.Cbid, C.Params, Copy))
      return;
  }
  if (Copy.Unanalysed) {
    if (C.entering())
      I.notAnalysed(*Copy.Unanalysed);
    return;
  }
  if (C.entering()) {
    // Synchronous variants run on the (legacy or per-thread) default stream.
    if (!I.capturing(Copy.Stream))
      I.launched(I.stream(Copy.Stream), Copy.Ranges, C.apiOp());
    return;
  }
  // Exit: a synchronous copy with a host side has completed.
  if (!C.exitedOk() || Copy.Sync == CopySync::Async)
    return;
  if (Copy.Sync == CopySync::SyncIfHostMemory) {
    bool AllDevice = true;
    for (const Range &R : Copy.Ranges)
      AllDevice = AllDevice && I.isTracked(R.Begin);
    if (AllDevice)
      return;
  }
  I.hostSyncsStream(I.stream(Copy.Stream));
}

} // namespace rt
} // namespace streamlife
