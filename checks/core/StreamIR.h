//===--- StreamIR.h - streamlife --------------------------------*- C++ -*-===//
//
// The stream-operation IR: the one vocabulary every front end (clang for
// C++/CUDA, tree-sitter for Python) lowers a function into, and the only
// thing the analysis core (lattice, transfer, fixpoint, diagnose) reads.
//
// Nothing here knows about clang or tree-sitter: operands are small integer
// ids that the front end interns, and a source site is a file/line/column
// plus a short spelling. A front end keeps its own side table from SiteId
// back to its AST (clang: SiteId -> const Stmt *) for reporting.
//
// Names are distinct from objects. A name is a place that holds a value (a
// variable, `obj.field`, `this->field`, `arr[2]`, `*out` for an out
// parameter, a Python attribute path). An object is what an allocation
// creates; the core makes objects, front ends never do. Copying a name
// (`keep = cur`, `b = a` in Python, a tensor copy) makes two names of one
// object (Bind); a move transfers it (Move); a name going away (scope exit,
// `del t`, reassignment) is a Kill, which releases an *owned* object when its
// last name goes.
//
// Streams and events are named by the names that hold their handles. Stream
// handle copies may be resolved by the front end (the clang front end does
// for local copies) or expressed as Bind with ValueKind::Stream.
//
// Changes to this header should stay additive (new OpKinds, new fields with
// defaults): the clang, ATen and Python lowerings all write it.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_STREAMIR_H
#define STREAMLIFE_CHECKS_CORE_STREAMIR_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace streamlife {
namespace ir {

/// A name interned by the front end in its Module (see Module::Names).
using NameId = uint32_t;
/// A source site interned by the front end in its Module (Module::Sites).
using SiteId = uint32_t;
/// A function of the Module (index into Module::Functions).
using FunctionId = uint32_t;
/// An abstract object (a buffer lifetime). Made by the core only: one per
/// allocation site (the most recent allocation there and a summary of older
/// ones that are still named), one per name first seen holding an unknown
/// object (a parameter, a member). Front ends never create ObjectIds.
using ObjectId = uint64_t;

/// "No such name / site / function".
inline constexpr uint32_t NoId = ~0u;

/// Where an operation is in the source. Front-end independent: enough to
/// print a location and a snippet, and to order sites ("the last use").
struct Site {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  /// A short spelling of the operation (`cudaFreeAsync(buf, ag)`), for
  /// debugging dumps and front ends that have no snippet of their own.
  std::string Spelling;
  /// A total order of sites in one translation unit / module, supplied by the
  /// front end (clang: the order of SourceManager::isBeforeInTranslationUnit).
  /// Used for "last use" and for sorting notes, never for control flow.
  uint64_t Order = 0;
};

/// What a name is, for diagnostics and for summaries.
struct NameInfo {
  /// As the user wrote it (`buf`, `this->stream`, `self.ag`, `*out`).
  /// Empty for an unnamed temporary (the value of a call before it is
  /// bound): an object it allocates takes the first name it is bound to.
  std::string Spelling;
  /// The function whose locals/parameters this name belongs to; NoId for a
  /// name shared by all functions (a global, a member of `this`, `self.x`).
  FunctionId Owner = NoId;
  /// For `*p` of an out parameter: the name `p` (the caller passes `&x`, and
  /// `*p` then is the caller's `x`). NoId otherwise.
  NameId PointeeOf = NoId;
  /// A stream name: the current stream of a device the code names
  /// (`getCurrentCUDAStream(d)`, what a tensor made on device d is
  /// allocated on), not a stream it made or picked from a pool.
  bool DeviceCurrent = false;
  /// For a device's current stream named after a tensor's device
  /// (`getCurrentCUDAStream(t.get_device())`): the buffer name t, which the
  /// front end knows holds the same tensor wherever the stream is named.
  /// For t's own objects allocated on a device's current stream, this
  /// stream is the one they were allocated on (t is on that device), even
  /// where the code cannot tell which device t is on. NoId otherwise.
  NameId DeviceOf = NoId;
  /// A buffer name that stands for one entry of a container, which one not
  /// known: the container's entries (`v[*]`) or a name bound to an entry
  /// (`auto &dst = v[i]`). Its objects are entries side by side, not
  /// alternatives of paths (see Transfer::use).
  bool OneEntry = false;
  /// A stream name: a stream the function made (`torch.cuda.Stream()`)
  /// and hands to no one (never returned, stored, passed to a call, left
  /// current or captured). After the function returns no one can name it,
  /// so no allocation can be handed a block released to its pool (see
  /// Transfer::judgeAtReturn).
  bool PrivateStream = false;
};

/// Which stream an operation runs on.
struct StreamRef {
  enum KindTy : uint8_t {
    /// The stream whose handle the name holds.
    Named,
    /// The legacy default stream: 0, nullptr, cudaStreamLegacy,
    /// CU_STREAM_LEGACY, a defaulted stream argument.
    LegacyDefault,
    /// cudaStreamPerThread / CU_STREAM_PER_THREAD: a stream of its own.
    PerThread,
    /// The current stream at this point: the innermost pushed one (guards,
    /// `with torch.cuda.stream(s)`), else the caller's current stream at
    /// function entry (an opaque, blocking stream).
    Current,
    /// Cannot be told (a call result, `streams[i]`). Operations that need a
    /// stream are skipped rather than guessed.
    Unknown,
  };
  KindTy Kind = Unknown;
  NameId Name = NoId; ///< For Named only.

  static StreamRef named(NameId N) { return {Named, N}; }
  static StreamRef legacy() { return {LegacyDefault, NoId}; }
  static StreamRef perThread() { return {PerThread, NoId}; }
  static StreamRef current() { return {Current, NoId}; }
  static StreamRef unknown() { return {Unknown, NoId}; }
  bool known() const { return Kind != Unknown; }
  friend bool operator==(const StreamRef &A, const StreamRef &B) {
    return A.Kind == B.Kind && A.Name == B.Name;
  }
};

/// Who releases an allocated object.
enum class Ownership : uint8_t {
  /// An explicit release call frees it (cudaMallocAsync / cudaFreeAsync);
  /// names going away do nothing.
  Raw,
  /// Released on its release stream when its last name goes (Kill, Move
  /// out of the last name, reassignment): at::Tensor, rmm::device_buffer,
  /// a Python tensor. Copies share the object (refcount semantics); a
  /// unique owner is the same thing with moves instead of copies.
  Owned,
};

/// What kind of value a Bind/Move/Kill moves between names.
enum class ValueKind : uint8_t {
  Buffer, ///< The name's object (copies share one object).
  Event,  ///< An event handle: the copy denotes the same recorded point.
  Stream, ///< A stream handle: the copy denotes the same stream.
};

/// The stream operations. Operand roles per kind are listed with each; an
/// operand the front end could not resolve is left out (buffers), NoId
/// (events) or StreamRef::Unknown (streams).
enum class OpKind : uint8_t {
  /// Names[0] now holds a fresh object allocated on Stream, released by
  /// Own. Stream-ordered: the allocation is work on Stream that other
  /// streams must be ordered after before they use it.
  Allocate,
  /// Work on Stream reads or writes the objects of Names (a kernel launch,
  /// an async copy, an ATen op on the current stream).
  Use,
  /// Event now captures all work enqueued so far on Stream.
  RecordEvent,
  /// Later work on Stream waits for Event.
  WaitEvent,
  /// Later work on Stream waits for all work enqueued so far on Stream2
  /// (`s.wait_stream(o)`): a record on a hidden event plus a wait.
  WaitStream,
  /// The host waits for all work on Stream.
  SyncStream,
  /// The host waits for Event.
  SyncEvent,
  /// The host waits for all work on the device (cudaDeviceSynchronize,
  /// torch.cuda.synchronize(), a synchronous free's implicit sync).
  SyncDevice,
  /// The objects of Names are returned to the allocator, ordered on Stream
  /// (cudaFreeAsync). An unknown stream releases without an ordering check.
  Release,
  /// The objects of Names are released after an implicit device sync
  /// (cudaFree, cuMemFree).
  ReleaseSync,
  /// The allocator is told that Stream also uses the objects of Names
  /// (record_stream): their release is deferred past Stream's work.
  RecordStream,
  /// The stream named by Stream was created; NonBlocking says how (unknown
  /// flags: nullopt, taken as blocking).
  CreateStream,
  /// The owned objects of Names are from now on released on Stream
  /// (rmm's set_stream).
  SetReleaseStream,
  /// Names[0] (destination) now holds what Names[1] (source) holds, of
  /// kind Value. Names[1] == NoId (or absent): the destination holds an
  /// unknown value (a call result, an opaque expression). The destination's
  /// old value is killed first (an owned object may be released).
  Bind,
  /// Like Bind, but Names[1] no longer holds the value (std::move, a
  /// Python rebinding that transfers the only reference).
  Move,
  /// Names[0] stops holding its value (scope exit, `del t`, `t = None`,
  /// `reset()`): an owned object whose last name this was is released on
  /// its release stream, at this site.
  Kill,
  /// The objects of Names escape to where they are not tracked (stored in
  /// a container, passed to an opaque function): no more findings on them.
  Escape,
  /// Stream becomes the current stream (guard constructor, entering
  /// `with torch.cuda.stream(s)`, setCurrentCUDAStream).
  PushCurrentStream,
  /// The innermost pushed current stream is restored (guard destructor,
  /// leaving the `with` block).
  PopCurrentStream,
  /// Names[0] is a container's entries (a deque or list of tensors, a
  /// queue of (tensor, event) pairs): it now also holds the objects of
  /// Names[1..] (an append). Unlike Bind, the entries it held stay: nothing
  /// is released.
  Store,
  /// Names[0] (destination) takes entries out of the container Names[1]
  /// (`q.popleft()`, `lst.pop(0)`, `lst.pop()`): the oldest (Oldest) or the
  /// newest ones. The container stops holding what it gives; the
  /// destination's old value is killed first. With Names[0] a temporary
  /// killed right after, the pop releases the entry.
  TakeEntry,
  /// Names stop holding their values, and nothing is released: the front
  /// end knows that on this path they hold none (the branch where
  /// `!t.defined()`, `t is None`), though the join of the paths says they
  /// may. Objects held elsewhere stay checked.
  Forget,
  /// A call to Callee, a function of this Module, applied through its
  /// summary: Args maps the callee's parameters (by position) to the
  /// caller's names and streams; Names[0] (if any) receives the callee's
  /// return value. Runs with the caller's current stream as the callee's
  /// entry current stream.
  Call,
  /// Work the front end cannot see may run on Stream here (a call to a
  /// function it does not know, a kernel launcher): besides what the front
  /// end says of its operands, it may allocate and release temporaries
  /// there, so a caching pool of Stream may have been handed blocks whose
  /// last work is this point's (see Inst::EnqueuesNothing). Unknown
  /// stream: any stream's.
  UnseenWork,
};

/// An actual argument of a Call, by the callee's parameter position.
struct CallArg {
  /// The caller's name passed by value (a buffer pointer, an event, a
  /// stream handle, a tensor). NoId when not a name.
  NameId Value = NoId;
  /// The caller's name whose address is passed (`&x`): the callee's `*p`
  /// is the caller's `x`. NoId otherwise.
  NameId AddressOf = NoId;
  /// The stream the argument denotes, when it is one (resolved by the
  /// front end: `0` is the legacy stream, a stream name is Named).
  StreamRef Stream;
};

/// One operation.
struct Inst {
  OpKind Kind;
  SiteId Site = NoId;
  /// Buffer operands (object names), or {destination, source} for
  /// Bind/Move, {name} for Kill, {result} for Call.
  llvm::SmallVector<NameId, 2> Names;
  StreamRef Stream;
  StreamRef Stream2;           ///< WaitStream: the stream waited for.
  NameId Event = NoId;         ///< RecordEvent, WaitEvent, SyncEvent.
  std::optional<bool> NonBlocking; ///< CreateStream.
  Ownership Own = Ownership::Raw;  ///< Allocate.
  /// Allocate: false for the value of a call the front end cannot see. It
  /// may be a new block or one that exists elsewhere, so it is owned and
  /// released on Stream like an allocation (the stream it was most likely
  /// made on), but it is not known work on Stream: no use-before-alloc, and
  /// no "allocated here" note.
  bool Fresh = true;
  /// Allocate: the block comes from a caching allocator (PyTorch's default
  /// one): a released block goes back to the pool of its release stream and
  /// is handed out again only by a later allocation there, so a release
  /// that leaves another stream's use unordered is judged at the next
  /// allocation that could be handed the block (see Transfer.h), not at the
  /// release. False: judged at the release (stream-ordered pools, whose
  /// free may hand the bytes out from the free's point on).
  bool Caching = false;
  /// Allocate, with Caching: the allocation enqueues no work of its own
  /// (torch.empty, not torch.zeros). Its block was last released to
  /// Stream's pool no later than the last release or unseen work there, so
  /// a stream that waited for Stream after that point is ordered after
  /// every earlier tenant's work: for it the allocation is complete.
  bool EnqueuesNothing = false;
  ValueKind Value = ValueKind::Buffer; ///< Bind, Move, Kill.
  bool Oldest = true;              ///< TakeEntry: FIFO (else LIFO) end.
  /// Use on the current stream: an operation that runs on the current
  /// stream of its operands' device (an ATen tensor operation: ATen runs it
  /// on that device and requires all its device operands to be on one). An
  /// operand allocated on a device's current stream is used there, unless
  /// a stream guard chose the current stream (see Transfer::use).
  bool OnOperandDevice = false;
  /// Bind of an event just made (`torch.cuda.Event()`): recorded nowhere
  /// yet, so a wait on it orders nothing until a record does (CUDA: a wait
  /// on an event never recorded completes at once). Other event binds whose
  /// source is no name leave the event unknown, and a wait on an unknown
  /// event is taken to order everything.
  bool NewEvent = false;
  FunctionId Callee = NoId;        ///< Call.
  llvm::SmallVector<CallArg, 4> Args; ///< Call.
};

/// A basic block: straight-line operations, then control goes to one of
/// the successors (all of them possible; conditions are not modelled).
struct Block {
  std::vector<Inst> Insts;
  std::vector<unsigned> Succs;
};

/// One function in IR form.
struct Function {
  std::string Name;     ///< For notes and dumps (`launchOn`, `Pipe.step`).
  SiteId Site = NoId;   ///< Where it is defined (for "analysis gave up").
  std::vector<Block> Blocks;
  unsigned Entry = 0;
  unsigned Exit = 0;    ///< The single exit block (returns go there).
  /// The callee-side names of the parameters, by position (NoId where a
  /// parameter is not a name the function uses).
  std::vector<NameId> Params;
  /// The name that `return e` binds (Bind(Return, e)); NoId if none.
  NameId Return = NoId;
  /// The parameter that holds the caller's current stream, for a front end
  /// that passes it as one (Python: the last); NoId where the caller's
  /// current stream is StreamRef::Current at entry (clang).
  NameId CurrentStreamParam = NoId;
  /// Stream parameters that every call of the function the front end saw
  /// (at least one) passes its own current stream for: in the function
  /// they are the entry current stream (see markCurrentStreamParameters).
  std::vector<NameId> CurrentStreamParams;
  /// False when the front end could not lower the body (then calls to it
  /// do nothing, as calls to unknown functions).
  bool Lowered = true;
};

/// Everything lowered from one translation unit / module.
struct Module {
  std::vector<NameInfo> Names;
  std::vector<Site> Sites;
  std::vector<Function> Functions;

  NameId addName(NameInfo Info) {
    Names.push_back(std::move(Info));
    return static_cast<NameId>(Names.size() - 1);
  }
  SiteId addSite(Site S) {
    Sites.push_back(std::move(S));
    return static_cast<SiteId>(Sites.size() - 1);
  }
  const NameInfo &name(NameId N) const { return Names.at(N); }
  const Site &site(SiteId S) const { return Sites.at(S); }
};

/// One-line text of an operation, for dumps and unit-test failures.
std::string describe(const Module &M, const Inst &I);
/// Text of a whole function (blocks, successors, operations).
std::string dump(const Module &M, const Function &F);
/// The kind's name (`allocate`, `wait-event`, ...).
llvm::StringRef kindName(OpKind Kind);

} // namespace ir
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_STREAMIR_H
