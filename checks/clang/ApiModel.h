//===--- ApiModel.h - streamlife --------------------------------*- C++ -*-===//
//
// Classifies calls to the CUDA runtime and driver APIs (and user-declared
// wrappers) into the abstract stream operations the lifetime analysis reasons
// about. It plays the role of the Static Analyzer's MPIFunctionClassifier: the
// dataflow never looks at a function name, only at an ApiOperation.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_APIMODEL_H
#define STREAMLIFE_CHECKS_CLANG_APIMODEL_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

/// What a call does to buffers, streams and events, in stream-order terms.
enum class OpKind {
  Allocate,        ///< Buffer (through its address) allocated on Stream.
  Use,             ///< Buffers read or written by work enqueued on Stream.
  RecordEvent,     ///< Event captures the work enqueued so far on Stream.
  StreamWaitEvent, ///< Later work on Stream waits for Event.
  SyncStream,      ///< The host waits for all work on Stream.
  SyncEvent,       ///< The host waits for Event.
  SyncDevice,      ///< The host waits for all work on the device.
  Release,         ///< Buffer returned to the allocator, ordered on Stream.
  ReleaseSync,     ///< Buffer released after an implicit device sync.
  RecordStream,    ///< The allocator is told Stream also uses Buffer.
  CreateStream,    ///< Stream (through its address) created; Flags says how.
  PushCurrentStream, ///< Stream becomes the current stream (guard ctor).
  SetReleaseStream,  ///< Buffer (owned) is released on Stream from now on.
  SetCurrentStream,  ///< Stream replaces the current stream (unscoped:
                     ///< setCurrentCUDAStream; a guard's exit restores).
  StreamWaitStreams, ///< Later work on Stream waits for all work so far on
                     ///< Stream2 (a fork/join helper: cudf's join_streams).
  ForkStreams,       ///< The streams the call returns wait for all work so
                     ///< far on Stream2 (a fork/join helper's fork: cudf's
                     ///< fork_streams).
  RebindStream,      ///< Returns its Buffer (moved in), released on Stream
                     ///< from now on (cudf::rebind_stream).
  PushCurrentDevice, ///< A device guard: the current stream becomes the
                     ///< current stream of device Stream (a device
                     ///< expression), until the guard's scope ends.
  SetCurrentDevice,  ///< A guard's set_device(d): replaces the innermost
                     ///< current stream by device d's.
};

/// Where an operand of an API comes from: an argument by position, the
/// implicit object of a member call (or the object a constructor builds),
/// the call's return value, or the current stream. Rows written with a plain
/// int name an argument (-1: none).
struct Operand {
  enum RoleTy : uint8_t { None, Arg, This, Return, CurrentStream };
  RoleTy Role = None;
  int Index = -1;
  Operand() = default;
  Operand(int ArgIndex) // NOLINT: rows keep their int form
      : Role(ArgIndex >= 0 ? Arg : None), Index(ArgIndex) {}
  static Operand thisObject() { return make(This); }
  static Operand returnValue() { return make(Return); }
  static Operand currentStream() { return make(CurrentStream); }
  bool present() const { return Role != None; }

private:
  static Operand make(RoleTy R) {
    Operand O;
    O.Role = R;
    return O;
  }
};

/// What a class is to the analysis (one row per class, by qualified name):
/// adding a stream, event, owned-buffer or guard type is adding a row.
enum class ClassKind {
  Stream,      ///< Holds a stream handle (c10::cuda::CUDAStream); converts
               ///< to cudaStream_t through operator/.stream().
  Event,       ///< Holds an event (at::cuda::CUDAEvent).
  OwnedBuffer, ///< Owns a buffer released by its destructor (at::Tensor,
               ///< rmm::device_buffer): Kill of the last owner releases.
  StreamGuard, ///< Its constructor pushes a current stream, its destructor
               ///< pops it (c10::cuda::CUDAStreamGuard).
};

/// How the operands of one API are found in its argument list. One row of
/// the data-driven API table; -1 means "no such operand".
struct ApiSignature {
  OpKind Kind;
  Operand Buffer;    ///< Buffer operand (for Allocate: the address of it, or
                     ///< This/Return for an owned object it constructs).
  Operand Buffer2;   ///< Second buffer operand (copies: the source).
  Operand Stream;    ///< Stream operand (for CreateStream: its address).
  Operand Event;     ///< Event operand.
  Operand Flags;     ///< Stream creation flags (CreateStream only).
  Operand ArgsArray; ///< A `void *args[]` kernel parameter array.
  Operand Stream2;   ///< StreamWaitStreams: the streams waited for.
  /// PyTorch style: a stream argument left out (or a parameterless
  /// overload, `CUDAEvent::record()`) means the current stream, not the
  /// legacy default stream.
  bool MissingStreamIsCurrent = false;
  /// The buffer operand is a parameter struct (`cudaMemcpy3DParms *`,
  /// `CUDA_MEMCPY2D *`, a `cudaPitchedPtr` by value): the buffers are the
  /// fields it holds at the call (see ApiOperation::BuffersInStruct).
  bool BufferInStruct = false;
  /// A row from the checks' options: the entry as written (for errors),
  /// empty for the built-in rows. Its argument positions are checked
  /// against each callee's parameters (see ApiModel::takeOptionProblems).
  std::string UserEntry;
};

/// An entry of an API option (ReleaseFunctions, ...) that cannot be used.
struct OptionProblem {
  llvm::StringRef Option; ///< "ReleaseFunctions", ...
  std::string Entry;      ///< As written.
  std::string Reason;
};

/// What a PyTorch tensor operation (an ATen function or a method of
/// at::Tensor that the API table has no row for) does, on the current stream.
enum class TensorOpKind {
  Use,     ///< Reads/writes its tensor operands (in-place ops, copy_).
  Produce, ///< Also allocates the tensor it returns (empty, clone, to, mul).
  View,    ///< Returns a view that shares its operand's storage.
  Sync,    ///< Also makes the host wait for the current stream (item()).
};

/// What a member call does to a standard sequence container whose entries
/// hold owned buffers (the N-deep keepalive queue and its kin).
enum class ContainerOp {
  None,
  Store,      ///< push_back, emplace_back, push, insert, ...: adds entries.
  TakeOldest, ///< pop_front(), a queue's pop(), erase(begin()).
  TakeNewest, ///< pop_back(), a stack's pop().
  Clear,      ///< clear(): drops every entry.
};

/// Where a stream-returning call's stream comes from, when it is not simply
/// the variable it initialises.
enum class StreamSource {
  Current,       ///< c10::cuda::getCurrentCUDAStream()
  LegacyDefault, ///< c10::cuda::getDefaultCUDAStream(): the null stream
};

/// Where a tensor-producing call puts its tensor (ApiModelTensorPlacement.cpp).
struct TensorPlacement {
  /// CPU or pinned host memory: not a stream-ordered device block.
  bool Host = false;
  /// The device its options name (`.device(dst)`); null: the current one.
  const Expr *Device = nullptr;
};

/// One abstract operation with its operand expressions taken from a call.
/// Missing operands are null; a missing stream of an API that has a stream
/// parameter is the legacy default stream (the CUDA default argument).
struct ApiOperation {
  OpKind Kind;
  const Expr *Call = nullptr;
  llvm::SmallVector<const Expr *, 2> Buffers;
  /// The buffer is the call's result (Return role) or the object a
  /// constructor builds: the front end names it by the call.
  bool BufferIsResult = false;
  const Expr *Stream = nullptr;
  bool StreamDefaulted = false; ///< The stream argument was left out.
  bool StreamIsCurrent = false; ///< The operation runs on the current stream.
  const Expr *Event = nullptr;
  const Expr *Flags = nullptr;
  const Expr *Stream2 = nullptr; ///< StreamWaitStreams: the waited streams.
  /// Buffers are parameter structs: the front end reads the buffers out of
  /// the fields each holds at the call.
  bool BuffersInStruct = false;
};

/// Maps calls to abstract operations. Built once per check from the built-in
/// tables plus the user's extra rows (check options).
class ApiModel {
public:
  ApiModel();

  /// Adds user rows such as "myFree:0:1" (name:buffer-arg:stream-arg) for
  /// Kind; entries are separated by ';'. Returns the entries it rejected
  /// (malformed, a negative buffer position, a stream position below -1,
  /// a position past MaxArgumentIndex); those add no row.
  std::vector<OptionProblem> addUserFunctions(OpKind Kind, llvm::StringRef Spec);
  /// The option a user row of \p Kind comes from.
  static llvm::StringRef optionName(OpKind Kind);
  /// C++ implementations need support only 256 parameters (Annex B).
  static constexpr int MaxArgumentIndex = 255;

  /// User rows whose argument position is past the parameters of a function
  /// they matched (`cudaFreeAsync:0:9`: cudaFreeAsync has 2), found while
  /// classifying calls; each entry once. Such a call gets the built-in row
  /// the entry replaced, if any, else is not modelled: no guessing a
  /// legacy-stream release or a missing buffer from a typo.
  std::vector<OptionProblem> takeOptionProblems() const;

  /// Returns the operation a call performs, or nothing for calls the model
  /// does not know. Kernel launches (`k<<<g, b, smem, s>>>(args)`) are uses.
  std::optional<ApiOperation> classify(const CallExpr *Call) const;
  /// The same for a constructor call (`rmm::device_buffer b(n, s)`,
  /// `CUDAStreamGuard g(s)`): rows keyed by the constructor's qualified name
  /// (`ns::T::T`); This is the constructed object.
  std::optional<ApiOperation> classify(const CXXConstructExpr *Construct) const;

  /// Adds a class row (see ClassKind).
  void addClass(llvm::StringRef QualifiedName, ClassKind Kind);
  /// The row of \p T's class (through references, pointers are not classes),
  /// or nothing.
  std::optional<ClassKind> classOf(QualType T) const;
  /// cudaStream_t / CUstream, or a class with a Stream row.
  bool isStreamType(QualType T) const;
  /// cudaEvent_t / CUevent, or a class with an Event row.
  bool isEventType(QualType T) const;

  /// A call that yields a known stream (see StreamSource), or nothing.
  std::optional<StreamSource> streamSource(const CallExpr *Call) const;
  /// `getCurrentCUDAStream(d)`: the device argument of a current-stream
  /// source given one (the current stream of device d), else null.
  const Expr *streamSourceDevice(const CallExpr *Call) const;
  /// Where a tensor-producing call (TensorOpKind::Produce) puts its tensor.
  TensorPlacement tensorPlacement(const CallExpr *Call, ASTContext &Ctx) const;
  /// `t.data_ptr<T>()`, `b.data()`: an accessor of an owned buffer's device
  /// pointer, which names the buffer when passed to a launch or a copy.
  bool isBufferAccessor(const CXXMemberCallExpr *Call) const;
  /// The owned buffer of `t.storage().data_ptr()` (an accessor of the
  /// storage of one), or null.
  const Expr *storageDataOwner(const CXXMemberCallExpr *Call) const;
  /// A method named like a buffer accessor (`data_ptr`, `data`, ...).
  bool isAccessorName(const CXXMethodDecl *Method) const;
  /// A PyTorch tensor operation without a row (see TensorOpKind), or nothing.
  std::optional<TensorOpKind> tensorOp(const CallExpr *Call) const;
  /// A factory shaped after its tensor operand (`at::empty_like(src, dev)`,
  /// `zeros_like`, `rand_like`, ...): it reads only the operand's sizes,
  /// type and device, no device work on its storage.
  bool readsOperandMetadataOnly(const CallExpr *Call) const;
  /// `m.insert(...)`, `m.try_emplace(...)`: an owned object stored into a
  /// standard associative container (or a sequence container the analysis
  /// does not follow), where the analysis stops following it.
  bool isContainerInsert(const CallExpr *Call) const;
  /// What \p Call does to a standard sequence container (deque, vector,
  /// list, queue, stack) whose entries hold owned buffers (ApiModelContainers.cpp).
  ContainerOp containerOp(const CXXMemberCallExpr *Call) const;
  /// For an access to one entry of such a container (`q.front()`,
  /// `q.back()`, `q[i]`, `q.at(i)`, `*q.begin()`, `s.top()`): the container
  /// expression; else null.
  const Expr *entryContainer(const Expr *E) const;
  /// A standard sequence container whose entries hold an owned buffer:
  /// directly, through optional/shared_ptr/unique_ptr, or as a field of a
  /// struct, pair or tuple.
  bool holdsOwnedEntries(QualType Container) const;
  /// An owned buffer, directly or through optional/shared_ptr/unique_ptr.
  bool holdsOwnedBuffer(QualType T) const;
  /// An event, directly or through optional/shared_ptr/unique_ptr.
  bool holdsEvent(QualType T) const;
  /// A standard container of streams (fork_streams' vector).
  bool holdsStreams(QualType T) const;
  /// Member calls that end an owned object's ownership of its buffer:
  /// `t.reset()` (released), `v.release()` (moved out into the result).
  enum class OwnerEnd { None, Reset, MoveOut };
  OwnerEnd ownerEnd(const CXXMemberCallExpr *Call) const;
  /// `t.defined()`: whether an owned object holds a buffer at all.
  bool isDefinedQuery(const CXXMemberCallExpr *Call) const;

  /// True if \p Name (after stripping _v2/_ptsz/_ptds) is a modelled API.
  bool isModelled(llvm::StringRef Name) const;

  /// A stable description of the table, to tell apart differently
  /// configured models that share an analysis cache.
  const std::string &fingerprint() const { return Fingerprint; }

  /// The API name without the versioning suffixes the CUDA headers add
  /// through macros (cuMemFree -> cuMemFree_v2, cudaMemcpyAsync_ptsz, ...).
  static llvm::StringRef canonicalName(llvm::StringRef Name);

private:
  void add(llvm::StringRef Name, ApiSignature Sig);
  /// Library tables, one file each (ApiModelTorch.cpp, ApiModelRmm.cpp).
  void addTorchRows();
  void addRmmRows();
  std::optional<ApiOperation> bind(const ApiSignature &Sig, const Expr *Call,
                                   const FunctionDecl *Callee,
                                   llvm::ArrayRef<const Expr *> Args,
                                   const Expr *Object) const;
  /// False (and the problem recorded once) when \p Sig is a user row with
  /// an argument position past \p Callee's parameters.
  bool fitsCallee(const ApiSignature &Sig, const FunctionDecl *Callee) const;
  llvm::StringMap<ApiSignature> Table;
  /// Built-in rows a user row replaced: used again for a call the user row
  /// does not fit (after the error), so that a typo loses no finding.
  llvm::StringMap<ApiSignature> Replaced;
  mutable std::vector<OptionProblem> OptionProblems;
  mutable llvm::StringSet<> ReportedEntries;
  llvm::StringMap<ClassKind> Classes;
  llvm::StringMap<StreamSource> StreamSources;
  llvm::StringSet<> BufferAccessors;  ///< Method names, on owned buffers.
  llvm::StringSet<> TensorViews;      ///< Tensor methods/ops returning views.
  llvm::StringSet<> TensorMetadata;   ///< Tensor methods with no device work.
  llvm::StringSet<> TensorSyncs;      ///< Tensor methods that sync the host.
  std::string Fingerprint;
};

/// The identifier of a call's direct callee; empty for operators,
/// conversions and indirect calls.
llvm::StringRef calleeIdentifier(const CallExpr *Call);
/// \p E without the conversions, temporaries and one-argument constructions
/// around a value (`Device(d)`, an optional of it, a ScalarType converted to
/// TensorOptions).
const Expr *throughConversions(const Expr *E);

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_APIMODEL_H
