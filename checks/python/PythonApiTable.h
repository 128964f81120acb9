//===--- PythonApiTable.h - streamlife --------------------------*- C++ -*-===//
//
// Classifies PyTorch Python calls into the stream operations the analysis
// reasons about: the Python counterpart of ApiModel (MPI-Checker's
// MPIFunctionClassifier). One row per API: a name pattern, the operation,
// and where its operands are (a position and/or a keyword, or the receiver
// of a method call). The lowering never tests an API name itself.
//
// Functions are matched by their fully qualified name after import aliases
// are resolved (`import torch.distributed as dist` makes `dist.all_reduce`
// `torch.distributed.all_reduce`); methods by their name and the kind of
// their receiver, as far as the lowering can tell it (Python has no types:
// a receiver created by `torch.cuda.Stream()` is a stream, one created by a
// tensor factory is a tensor, ...).
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONAPITABLE_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONAPITABLE_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace streamlife::python {

/// What a Python expression holds, as far as the lowering can tell.
enum class ValueKind : uint8_t {
  Unknown, ///< Could be a tensor: uses of it are uses.
  Tensor,
  /// A tensor in host memory (a CPU tensor, pinned or not): not a block of
  /// the device's caching allocator, so neither its uses nor its release
  /// are stream-ordered lifetimes.
  HostTensor,
  Stream,
  Event,
  Work,  ///< The handle of an async collective (`async_op=True`).
  /// The device module (torch.cuda, `get_accelerator()`): its stream and
  /// event calls are torch.cuda's.
  DeviceModule,
  /// A callable that makes a stream context (`torch.cuda.stream` kept in
  /// an attribute: `with self._stream_context(s):`).
  StreamContextFn,
  Other, ///< Known not to be any of the above (ints, strings, None, ...).
};

/// The operation a call performs.
enum class PyOp : uint8_t {
  CreateStream,  ///< torch.cuda.Stream(): a new (non-blocking) stream.
  CurrentStream, ///< torch.cuda.current_stream() / default_stream().
  StreamContext, ///< torch.cuda.stream(s): the current stream in a `with`.
  SetStream,     ///< torch.cuda.set_stream(s): current stream from here on.
  CreateEvent,   ///< torch.cuda.Event().
  RecordEvent,   ///< s.record_event(e=None) / e.record(s=None).
  WaitEvent,     ///< s.wait_event(e) / e.wait(s=None).
  WaitStream,    ///< s.wait_stream(o).
  Synchronize,   ///< s.synchronize() / e.synchronize(): the host waits.
  SyncDevice,    ///< torch.cuda.synchronize().
  WaitWork,      ///< work.wait(): the current stream waits for a collective.
  RecordStream,  ///< t.record_stream(s).
  Factory,       ///< torch.empty(..., device=...): a new tensor if on CUDA.
  FactoryLike,   ///< torch.empty_like(t): a new tensor on t's device.
  TensorOp,      ///< Reads its tensor operands, returns a new tensor.
  InPlace,       ///< t.add_(u): reads/writes, returns t itself.
  View,          ///< t.view(...): the result shares t's block, no work.
  ToDevice,      ///< t.to(dev) / t.cuda(): reads t, a new CUDA tensor.
  HostRead,      ///< t.item() / t.cpu(): reads t, the host waits.
  PinMemory,     ///< t.pin_memory(): a host tensor from a host tensor.
  GraphCapture,  ///< torch.cuda.graph(g): a `with` body captured, not run.
  Metadata,      ///< t.size(), t.data_ptr(): no work, not a tensor.
  Collective,    ///< dist.all_reduce(t, async_op=...).
  Barrier,       ///< dist.barrier(): the host waits for the current stream.
  NoOp,          ///< Known and irrelevant (torch.cuda.is_available()).
};

/// Where one operand is: a positional index (counted without the receiver)
/// and/or a keyword. Absent when both are unset.
struct PyOperand {
  int Position = -1;
  llvm::StringRef Keyword;
  bool present() const { return Position >= 0 || !Keyword.empty(); }
};

/// One row of the table.
struct PyApiRow {
  llvm::StringRef Pattern; ///< "torch.cuda.Stream", or ".wait_event" for a method
  ValueKind Receiver = ValueKind::Unknown; ///< methods: the receiver kind matched
  PyOp Op;
  PyOperand Stream; ///< The stream operand (when not the receiver).
  PyOperand Event;  ///< The event operand (when not the receiver).
  /// Collective: the keyword that makes it asynchronous ("async_op"); an
  /// empty keyword with Position 0 means always asynchronous.
  PyOperand Async;
};

/// Looks up a function by its qualified name (after import resolution).
const PyApiRow *classifyFunction(llvm::StringRef QualifiedName);

/// Looks up a method by name, given what the receiver is. An Unknown
/// receiver matches the rows whose method name only one kind of receiver
/// has (`wait_event` is a stream's, `record_stream` a tensor's).
const PyApiRow *classifyMethod(llvm::StringRef Method, ValueKind Receiver);

/// True for module prefixes whose unknown functions compute on tensors
/// (`torch.cat`, `torch.nn.functional.relu`): Use of the tensor operands and
/// a new tensor on the current stream. Unknown `torch.cuda.*` and
/// `torch.distributed.*` functions are not (they are neither uses nor
/// orderings unless listed).
bool isTensorLibraryFunction(llvm::StringRef QualifiedName);

/// True for functions of Python's standard-library modules that run none of
/// the program's code and reach no device (`time.perf_counter`,
/// `os.path.join`, `logging.info`): handed no tensor they run no work on any
/// stream, and given none they return none. Not `gc` (a collection drops
/// tensors), `copy`, `pickle`, `itertools`, `functools` (they run the
/// program's code or make tensors) or `typing` (`cast` gives its argument).
bool isHostOnlyLibraryFunction(llvm::StringRef QualifiedName);

/// What a CUDA device answers to a query of the device module that every
/// accelerator of a wrapper answers alike on it (DeepSpeed's
/// `get_accelerator().resolves_data_dependency()`: False on CUDA, whose
/// streams order nothing by themselves), by its qualified name; nothing for
/// any other call. A branch on such a query is decided: the path on which
/// CUDA would skip a wait is no path.
std::optional<bool> cudaDeviceAnswer(llvm::StringRef QualifiedName);

/// True for the factories that allocate and write nothing (`torch.empty`,
/// `t.new_empty`): no work of theirs is enqueued, so the block's earlier
/// tenants are all a stream using it must be ordered after.
bool allocatesOnly(const PyApiRow &Row);

/// The number of rows, for the bench and tests.
unsigned apiTableSize();

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONAPITABLE_H
