//===--- CallerStreams.h - streamlife ---------------------------*- C++ -*-===//
//
// The streams a function's callers pass it. A helper handed a stream
// parameter (`def reduce(out, stream)`) reads on its own like code that may
// be given any stream; when every call of it the front end saw passes the
// caller's current stream, the parameter is the helper's entry current
// stream, and work it puts there is ordered with the helper's allocations on
// the current stream. (Found on held-out code: Triton-distributed's ring
// reductions are handed `torch.cuda.current_stream()` by their one caller.)
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_CALLERSTREAMS_H
#define STREAMLIFE_CHECKS_CORE_CALLERSTREAMS_H

#include "StreamIR.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace streamlife {
namespace core {

/// Fills ir::Function::CurrentStreamParams of every function of \p M. A
/// front end that lowers one source function more than once (a Python
/// specialization) names, through \p Origin, the function whose calls count
/// for each lowering: the calls of all lowerings of one source function are
/// read together, and all of them get the result. \p AllCallsSeen says of
/// a source function whether \p M holds every call of it: one that code the
/// front end did not lower may call (another translation unit, a function
/// pointer) gets no current-stream parameters, whatever the calls seen pass.
/// A caller's own marked parameter passed on unchanged counts as its current
/// stream where the callee starts on the caller's entry current stream
/// (`outer(s)` calling `inner(s)`), so the marks are read to a fixpoint.
void markCurrentStreamParameters(
    ir::Module &M, llvm::function_ref<ir::FunctionId(ir::FunctionId)> Origin,
    llvm::function_ref<bool(ir::FunctionId)> AllCallsSeen);

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_CALLERSTREAMS_H
