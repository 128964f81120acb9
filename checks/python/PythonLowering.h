//===--- PythonLowering.h - streamlife --------------------------*- C++ -*-===//
//
// Lowers Python functions (tree-sitter CST) into the stream-operation IR of
// checks/core: one ir::Function per function, method and module body of the
// checked file and of the local modules it imports, with calls between them
// as ir::Call so that the core applies them through summaries.
//
// How Python maps onto the IR:
// - Control flow: if/elif/else, for/while (+else), break/continue,
//   try/except/else/finally, with, match, return; `raise` ends a path.
// - The current stream is resolved lexically: `with torch.cuda.stream(s):`
//   makes `s` current inside the block, `torch.cuda.set_stream(s)` from there
//   on. Outside them it is the caller's current stream, a pseudo-parameter of
//   every function (the last entry of ir::Function::Params) that calls pass
//   their own current stream to. `torch.cuda.default_stream()` and
//   `current_stream()` outside any `with` denote that same stream: PyTorch
//   code runs on the default stream unless it selects another.
// - PyTorch streams are non-blocking (the stream pool creates them so), so no
//   implicit ordering with the default stream is ever assumed.
// - Tensors are owned objects: a tensor-producing call allocates one on the
//   current stream; names are references (`b = a` binds, `del a`, `a = None`,
//   rebinding and leaving the function kill), and the core releases the block
//   on its allocation stream when the last reference goes. Views (`t.view()`,
//   `t[i]`, `t.detach()`) are further names of their base's object.
// - Attributes of `self` are names shared by every method of the class
//   (`Pipeline.ag`); `p.ag` denotes the same name when `p` is known to be a
//   `Pipeline` (constructed from it, annotated with it, or the only class of
//   the module set with such a method or attribute). Attributes outlive the
//   function; storing into a container we do not track, or passing to a
//   function that keeps it, makes a tensor escape (no finding on it
//   afterwards). Other functions we cannot see use their tensor arguments
//   on the current stream inside a stream context, and their value, bound
//   to a name used as a tensor, is a tensor of unknown origin.
// - Host tensors (CPU, pinned) are not device blocks; a CUDA graph capture
//   body runs nothing; the device module however reached is torch.cuda.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONLOWERING_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONLOWERING_H

#include "PythonModuleSet.h"
#include "Findings.h"
#include "RecordStreamReach.h"
#include "StreamIR.h"

#include <map>
#include <string>
#include <vector>

namespace streamlife::python {

/// The spelling of a function's entry current stream until the function
/// names it (`compute = torch.cuda.current_stream()` spells it `compute`).
using core::UnnamedCurrentStream;

/// What streamlife-record-stream-in-loop reports: a `record_stream` call
/// written inside a loop of the checked file, or a call inside such a loop
/// to a function of the module set that calls `record_stream` (itself or
/// through its own calls), as a helper that moves one tensor and records it
/// does when a loop calls it once a tensor.
struct RecordStreamInLoop {
  ir::SiteId Call = ir::NoId; ///< The record_stream call, or the call in the loop.
  std::string Buffer; ///< The receiver as written.
  ir::SiteId Loop = ir::NoId;
  /// Through calls: from the function the loop calls down to the one that
  /// calls record_stream, each function's name and where it calls the next
  /// (the last: its record_stream call). Empty for a direct call.
  std::vector<core::RecordStreamReach<ir::SiteId>::Hop> Through;
};

struct LoweredPython {
  ir::Module Module;
  /// The functions of the checked file (its module body included), whose
  /// findings are reported; the others are there for their summaries.
  std::vector<ir::FunctionId> Checked;
  std::vector<RecordStreamInLoop> RecordStreamInLoops;
};

/// Lowers every function of \p Set. \p Set must outlive nothing: the result
/// holds no tree-sitter node.
LoweredPython lowerPython(PyModuleSet &Set);

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONLOWERING_H
