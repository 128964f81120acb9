//===- CopyDecoder.h - the bytes and stream of a copy or set call -*- C++ -*-===//
//
// Decodes the parameters of every copy and set row of CuptiCalls.inc: the
// ranges it touches (both sides of a copy; host pointers too, which the engine
// ignores unless tracked, as managed memory is), its stream, and what the host
// knows when it returns. 2D and 3D copies touch the span from their first to
// their last byte (CopyRanges.h). Pure: no CUPTI, no engine; unit-tested on
// the CPU with hand-made parameter structs.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_COPYDECODER_H
#define STREAMLIFE_RT_INTERCEPT_COPYDECODER_H

#include "engine/Engine.h"
#include "report/Reporter.h"

#include <cuda.h>
#include <cupti.h>

#include <optional>
#include <vector>

namespace streamlife {
namespace rt {

/// The Sync column of CuptiCalls.inc.
enum class CopySync {
  Async,            ///< the host learns nothing when the call returns
  Sync,             ///< the copy is complete when the call returns
  SyncIfHostMemory, ///< complete when either side is host memory (cuMemcpy)
};

struct DecodedCopy {
  std::vector<Range> Ranges;
  CUstream Stream = nullptr; ///< NULL: the default stream the row's Null column says
  /// For 2D/3D copies the memory types decide, so only cuMemcpy's unified
  /// addresses leave SyncIfHostMemory to the caller (host memory is untracked).
  CopySync Sync = CopySync::Async;
  /// Set for rows that are owned only to be noted.
  std::optional<NotAnalysed> Unanalysed;
};

/// Fills Out (cleared first) from the parameters of a copy or set call; false
/// for a cbid that is not a copy or set row.
bool decodeCopy(CUpti_CallbackId Cbid, const void *Params, DecodedCopy &Out);

} // namespace rt
} // namespace streamlife

#endif
