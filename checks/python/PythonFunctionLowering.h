//===--- PythonFunctionLowering.h - streamlife ------------------*- C++ -*-===//
//
// Private to the Python lowering (PythonLowering.cpp, PythonExpressions.cpp,
// PythonStatements.cpp): the module-wide lowering context, the value an
// expression lowers to, and FunctionLowering, which lowers one function.
// PythonLowering.h is the interface; nothing else includes this header.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONFUNCTIONLOWERING_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONFUNCTIONLOWERING_H

#include "PythonLowering.h"
#include "PythonValueClasses.h"
#include "RecordStreamReach.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace streamlife::python::lowering {

using ir::NameId;
using ir::NoId;
using ir::OpKind;
using ir::SiteId;
using ir::StreamRef;

/// Everything shared by the lowering of all functions of a module set.
struct LoweringContext {
  PyModuleSet &Set;
  LoweredPython &Out;
  std::map<const PyFunctionDef *, ir::FunctionId> Ids;
  std::map<const PyFile *, ir::FunctionId> ModuleBodies;
  /// Names not owned by one function: class attributes ("Pipeline.ag"),
  /// module globals ("g1:results"), the process group's streams.
  std::map<std::string, NameId> SharedNames;

  /// A function lowered for values a call decided (see specialization).
  struct Specialization {
    const PyFunctionDef *Def;
    ValueClass Class;
  };
  /// The ids up to here are the functions themselves and the module body;
  /// specializations come after, in the order they were asked for.
  ir::FunctionId FirstSpecialization = 0;
  std::vector<Specialization> Specializations;
  std::map<std::pair<const PyFunctionDef *, std::string>, ir::FunctionId>
      SpecializationIds;
  /// Per function, the parameters its stream-ordering `if`s test (cached:
  /// every call of it asks).
  std::map<const PyFunctionDef *, llvm::StringSet<>> TestedParameters;

  /// Per lowered function (a specialization by its own id), its first
  /// `record_stream` call outside a loop: what a loop that calls the
  /// function repeats (core/RecordStreamReach.h).
  std::map<ir::FunctionId, core::RecordStreamCall<SiteId>> StreamRecords;
  /// The lowered functions that call record_stream inside a loop of theirs.
  std::set<ir::FunctionId> LoopRecorders;
  /// The calls written inside a loop, with the function each calls. Those
  /// of the checked file's functions are reported once the callees are
  /// lowered, when one of them calls record_stream
  /// (reportRecordStreamThroughCalls); any is where a chain of calls down
  /// to record_stream stops, as the loop around it is that call's own.
  struct CallInLoop {
    SiteId Call = NoId;
    const PyFile *File = nullptr;
    PyNode Loop;
    ir::FunctionId Callee = NoId;
    bool Reported = false; ///< a call of the checked file, lowered generically
  };
  std::vector<CallInLoop> CallsInLoops;

  /// The function \p Def lowered for \p Class. The id is handed out now;
  /// the IR function is made (and lowered) once the lowering that asked is
  /// done, as Module::Functions must not grow under a lowering that holds
  /// a reference into it. At most MaxSpecializations per function, then
  /// \p Generic.
  ir::FunctionId specialization(const PyFunctionDef *Def, ValueClass Class,
                                ir::FunctionId Generic) {
    static constexpr size_t MaxSpecializations = 8;
    auto Key = std::make_pair(Def, spelling(Class));
    if (auto Found = SpecializationIds.find(Key);
        Found != SpecializationIds.end())
      return Found->second;
    size_t OfDef = std::count_if(
        Specializations.begin(), Specializations.end(),
        [&](const Specialization &S) { return S.Def == Def; });
    if (OfDef >= MaxSpecializations)
      return Generic;
    ir::FunctionId Id = FirstSpecialization + Specializations.size();
    Specializations.push_back({Def, std::move(Class)});
    SpecializationIds.emplace(std::move(Key), Id);
    return Id;
  }

  NameId shared(const std::string &Key, llvm::StringRef Spelling) {
    auto [It, Inserted] = SharedNames.try_emplace(Key, NoId);
    if (Inserted)
      It->second = Out.Module.addName({Spelling.str(), NoId, NoId});
    return It->second;
  }

  SiteId site(const PyFile &File, PyNode Node, llvm::StringRef Spelling = "") {
    ir::Site S;
    S.File = File.Source->path();
    S.Line = Node.line();
    S.Column = Node.column();
    llvm::StringRef Text = Spelling.empty() ? Node.text() : Spelling;
    S.Spelling = Text.take_until([](char C) { return C == '\n'; }).str();
    S.Order = (uint64_t(File.Index) << 32) | Node.startByte();
    return Out.Module.addSite(std::move(S));
  }
};

/// A Python expression after lowering: what it holds and which IR name
/// holds it (an existing name, a temporary, or none).
struct Value {
  ValueKind Kind = ValueKind::Unknown;
  NameId Name = NoId;
  bool IsTemp = false;
  StreamRef Stream; ///< Kind == Stream
  /// The value of a call we cannot see, made at this site: bound to a name
  /// known to hold a tensor, it is a tensor of unknown origin.
  SiteId UnknownCall = NoId;
};

inline Value other() { return {ValueKind::Other, NoId, false, {}}; }
inline Value hostTensor() { return {ValueKind::HostTensor, NoId, false, {}}; }

inline bool isNoneLiteral(PyNode N) { return N.is("none"); }

/// `((x))` -> `x`.
inline PyNode withoutParentheses(PyNode N) {
  while (N.is("parenthesized_expression") && !N.namedChildren().empty())
    N = N.namedChildren().front();
  return N;
}

/// The `name=value` keyword arguments and positional arguments of a call.
struct CallArguments {
  std::vector<PyNode> Positional;
  std::vector<std::pair<llvm::StringRef, PyNode>> Keywords;

  explicit CallArguments(PyNode Call) {
    PyNode List = Call.field("arguments");
    if (!List.is("argument_list"))
      return;
    for (PyNode Arg : List.namedChildren()) {
      if (Arg.is("keyword_argument"))
        Keywords.push_back({Arg.field("name").text(), Arg.field("value")});
      else if (!Arg.is("list_splat") && !Arg.is("dictionary_splat"))
        Positional.push_back(Arg);
    }
  }
  PyNode find(const PyOperand &Operand) const {
    if (!Operand.Keyword.empty())
      for (const auto &[Name, Value] : Keywords)
        if (Name == Operand.Keyword)
          return Value;
    if (Operand.Position >= 0 &&
        static_cast<size_t>(Operand.Position) < Positional.size())
      return Positional[Operand.Position];
    return {};
  }
  PyNode keyword(llvm::StringRef Name) const {
    return find(PyOperand{-1, Name});
  }
};

/// A `for`/`while` being lowered: where `continue` and `break` go (a
/// comprehension's element, a loop too, has neither).
struct LoopTargets {
  unsigned Continue;
  unsigned Break;
  PyNode Node;
};

class FunctionLowering {
public:
  /// \p Specialization: the values a call decided for some parameters
  /// (LoweringContext::specialization); the body is lowered for them.
  FunctionLowering(LoweringContext &Ctx, const PyFile &File,
                   const PyFunctionDef *Def, ir::FunctionId Id,
                   ValueClass Specialization = {})
      : Ctx(Ctx), M(Ctx.Out.Module), File(File), Def(Def), Id(Id),
        F(M.Functions[Id]), ReportRecordStream(File.Index == 0),
        Fixed(std::move(Specialization)) {
    if (Def && !Def->ClassName.empty())
      Class = Ctx.Set.findClass(File, Def->ClassName);
  }

  void lowerFunction();
  void lowerModuleBody();

private:
  // --- The pre-pass: what locals hold.
  void scanLocals(PyNode Body);
  void noteAssignment(PyNode Target, PyNode Value);
  void noteTarget(PyNode Target);
  ValueKind staticKind(PyNode Expr);
  /// Locals and parameters used the way only tensors are (`x.view(...)`,
  /// `x.copy_(y)`, `torch.cat([x, y])`): tensors, unless something says
  /// otherwise.
  void noteTensorEvidence(PyNode Call);
  void noteAssertedTensor(PyNode Assert);
  /// `isinstance(x, torch.Tensor)`: x; with \p OrOtherTypes also
  /// `isinstance(x, (torch.Tensor, Other))`.
  std::optional<std::string> tensorInstanceTest(PyNode Test,
                                                bool OrOtherTypes);
  /// Kinds a branch's test says (`if isinstance(x, torch.Tensor):`), for
  /// that branch only: they come before LocalKinds.
  std::map<std::string, ValueKind> NarrowedKinds;
  llvm::StringSet<> TensorEvidence;

  /// qualifiedCallee, with the locals and attributes known to hold the
  /// device module read as torch.cuda.
  std::string qualified(PyNode Callee) {
    return qualifiedCallee(File, Callee, [this](PyNode N) {
      return (N.is("identifier") || N.is("attribute")) &&
             kindOfName(N) == ValueKind::DeviceModule;
    });
  }

  // --- Names.
  NameId local(const std::string &Spelling);
  /// A temporary made by the operation at \p MadeAt (a call's value before
  /// it is bound): it dies at the end of the statement, and a release its
  /// death causes is reported at \p MadeAt, never at no site.
  NameId temp(llvm::StringRef Spelling, SiteId MadeAt);
  std::optional<NameId> nameOf(PyNode Expr);
  ValueKind kindOfName(PyNode Expr);
  PyClassDef *classOf(PyNode Receiver);
  std::string attributeKey(PyNode Attribute, PyClassDef *&Owner);
  /// Inside a `with torch.cuda.stream(s)` (or after set_stream): the
  /// current stream is not the caller's.
  bool insideStreamContext() const {
    return !(current() == StreamRef::named(EntryCurrent));
  }
  bool isSelf(PyNode N) const {
    return Class && N.is("identifier") && Def && !Def->Params.empty() &&
           N.text() == Def->Params.front();
  }

  // --- Control flow.
  unsigned newBlock() {
    F.Blocks.emplace_back();
    return F.Blocks.size() - 1;
  }
  void edge(unsigned From, unsigned To) { F.Blocks[From].Succs.push_back(To); }
  void jumpTo(unsigned Target) {
    edge(Cur, Target);
    Cur = newBlock(); // unreachable until something jumps here
  }
  ir::Inst &emit(OpKind Kind, SiteId Site) {
    ir::Inst I;
    I.Kind = Kind;
    I.Site = Site;
    F.Blocks[Cur].Insts.push_back(std::move(I));
    return F.Blocks[Cur].Insts.back();
  }
  SiteId site(PyNode N, llvm::StringRef Spelling = "");

  // --- Copies of the body, one per value class (PythonValueClasses.h).
  /// Lowers the body once per class of its split parameters, or once.
  void lowerBodyPerValueClass(PyNode Body);
  /// The branch an `if`/`elif` condition takes: decided by the copy's value
  /// class, or by a device query CUDA answers one way (cudaDeviceAnswer).
  std::optional<bool> decided(PyNode Condition) {
    return decideCondition(Condition, Assumed, [this](PyNode Leaf) {
      return deviceAnswer(Leaf);
    });
  }
  std::optional<bool> deviceAnswer(PyNode Leaf);
  /// The copies share sites and temporaries: the n-th request for the same
  /// key in a copy gets what the n-th request got in the copies before, so
  /// that a finding the copies share is one finding.
  struct CopyMemo {
    std::map<std::tuple<unsigned, unsigned, std::string>, std::vector<SiteId>>
        Sites;
    std::map<std::pair<std::string, SiteId>, std::vector<NameId>> Temps;
    std::map<std::tuple<unsigned, unsigned, std::string>, unsigned> SiteUses;
    std::map<std::pair<std::string, SiteId>, unsigned> TempUses;
  };
  const ValueClass *Assumed = nullptr;
  std::unique_ptr<CopyMemo> Copies;
  /// Locals assigned once from a stream inequality (`on_side =
  /// current_stream() != self.dtoh`), split into a copy where they are true
  /// and one where they are false and the two streams are one.
  std::vector<std::string> streamFlags();
  std::vector<std::string> StreamFlagNames;
  /// After `flag = a != b`, in the copy where the flag is false: `b` is
  /// `a` from here on (the streams are one).
  void makeStreamsOne(PyNode Assignment);
  /// A dict, list, tuple or set display passed to a function of the
  /// module: a temporary holding its tensors (as a container's entries
  /// hold them), so that what the callee takes out of it
  /// (parameterEntries) is the caller's tensors. Empty when \p Arg is no
  /// display.
  std::optional<Value> displayArgument(PyNode Arg);
  /// `p.values()`, `p.get(k)`, `p[k]` or `p` iterated, with p a parameter
  /// never rebound that may hold tensors: p's name, whose objects are what
  /// the caller passed (one tensor, or the tensors of a display). An
  /// element of a tensor is a view of its block, so the same objects
  /// either way.
  std::optional<NameId> parameterEntries(PyNode Expr);
  /// Locals bound to a parameter's objects (parameterEntries, `y = x`).
  std::set<std::string> EntryAliases;
  /// The function a call of \p Callee runs: the one lowered for what the
  /// call makes known of the parameters the callee tests (a literal, a
  /// default left alone, a flag of this copy), else \p Generic.
  ir::FunctionId specializedCallee(const PyFunctionDef &Callee,
                                   ir::FunctionId Generic, PyNode Call,
                                   size_t FirstPositional);

  void lowerBlock(PyNode Block);
  void lowerStatements(const std::vector<PyNode> &Stmts);
  void lowerStatement(PyNode Stmt);
  void lowerIf(PyNode Stmt);
  /// `a != b` / `a is not b` of two streams, or a local assigned once from
  /// it: the two streams (one stream where the test is false).
  std::optional<std::pair<StreamRef, StreamRef>>
  streamInequality(PyNode Condition);
  void assumeNone(PyNode Name, PyNode At);
  void lowerFor(PyNode Stmt);
  /// `for i in range(n): L[i].synchronize()` or `for s in L: s.synchronize()`
  /// (at the body's top level, no `break`): the list L whose every element
  /// the loop synchronizes, as written.
  std::optional<std::string> listSynchronizedByLoop(PyNode Stmt);
  void lowerWhile(PyNode Stmt);
  /// The body, loop-back edge and `else` block shared by `for` and `while`;
  /// Cur is the body's first block.
  void lowerLoopRest(PyNode Stmt, unsigned Header, unsigned Test, unsigned After);
  void lowerTry(PyNode Stmt);
  void lowerWith(PyNode Stmt);
  /// The stream a `with` item makes current, if it is a stream context.
  std::optional<StreamRef> streamContextOf(PyNode Item);
  void lowerMatch(PyNode Stmt);
  void lowerReturn(PyNode Stmt);
  /// Marks the locals that hold a stream this function made and hands to
  /// no one (NameInfo::PrivateStream), once the body is lowered
  /// (PythonPrivateStreams.cpp).
  void markPrivateStreams(PyNode Body);
  PyNode packedReturn(PyNode Expr);
  void lowerDelete(PyNode Stmt);
  void lowerAssignment(PyNode Stmt);
  void lowerAugmentedAssignment(PyNode Stmt);
  bool lowerPacking(PyNode Left, PyNode Right, PyNode Stmt);
  bool lowerUnpacking(PyNode Left, PyNode Right, PyNode Stmt);
  std::string elementSpelling(PyNode Whole, size_t Index);
  void killElements(PyNode Whole, PyNode At);
  void assign(PyNode Target, const Value &V, PyNode At);
  void killName(NameId Name, ValueKind Kind, SiteId Site);
  void endStatement();
  bool isHostSync(PyNode Stmt);
  bool isReleaseStatement(PyNode Stmt);

  // --- Containers (PythonContainers.cpp): lists and deques of tensors.
  struct ContainerInfo {
    NameId Entries = NoId;        ///< `q[*]`: what the entries hold
    NameId Event = NoId;          ///< `q[*].event`: the latest entry event
    std::set<size_t> EventSlots;  ///< tuple positions appended as events
    /// What those events are: events, or work handles (`[dist.isend(...)]`).
    ValueKind EventKind = ValueKind::Event;
    size_t Arity = 1;             ///< elements per appended tuple
  };
  void noteContainer(PyNode Target, PyNode Value);
  void noteContainerAppend(PyNode Call);
  void noteContainerElement(ContainerInfo &C, PyNode Element);
  /// `for r in reqs` over a container: the loop variable's kind.
  void noteContainerLoop(PyNode Target, PyNode Iterable);
  /// Stores what \p Element holds into \p C (an append, a list display).
  void storeElement(ContainerInfo &C, PyNode Element, SiteId At);
  bool lowerContainerDisplay(PyNode Left, PyNode Right, PyNode Stmt);
  /// Binds the variable of `for x in q` (q a container) to q's entries.
  bool assignFromContainer(PyNode Target, PyNode Iterable, PyNode At);
  ContainerInfo *containerOf(PyNode Receiver);
  std::optional<Value> lowerContainerCall(PyNode Call, PyNode Receiver,
                                          llvm::StringRef Method);
  bool lowerPopUnpacking(PyNode Left, PyNode Right, PyNode Stmt);

  // --- Expressions.
  Value lowerExpr(PyNode Expr, NameId Hint = NoId);
  /// `a >= 0`, `~m`, `m1 & m2`, or a local assigned once from one: a
  /// boolean tensor, which as an index selects (a copy, a host wait).
  bool isBooleanMask(PyNode Index, unsigned Depth = 0);
  Value lowerCall(PyNode Call, NameId Hint);
  Value lowerMethodCall(PyNode Call, PyNode Receiver, llvm::StringRef Method,
                        NameId Hint);
  Value lowerHostTensorMethod(PyNode Call, PyNode Receiver,
                              llvm::StringRef Method, const Value &Recv,
                              NameId Hint);
  Value lowerApi(const PyApiRow &Row, PyNode Call, PyNode Receiver,
                 const Value &Recv, NameId Hint);
  Value lowerLocalCall(const PyFunctionDef &Callee, PyNode Call,
                       std::optional<Value> Self, NameId Hint);
  /// `t = Timer(s)` whose `__init__` does `self.stream = stream`: from here
  /// on the attribute names the caller's stream `s`, so that what the
  /// class's methods do on `self.stream` is done on `s`.
  void bindConstructorStreams(const PyClassDef &Class,
                              const PyFunctionDef &Init, PyNode Call);
  Value lowerTensorOp(PyNode Call, const std::vector<Value> &Operands,
                      bool Allocates, NameId Hint = NoId);
  Value lowerUnknownCall(PyNode Call, const std::vector<Value> &Operands);
  /// Whether the library function \p Qualified, given \p Operands, runs
  /// no work on any stream (a standard-library module's function handed
  /// no tensor).
  bool runsNoDeviceWork(llvm::StringRef Qualified,
                        const std::vector<Value> &Operands);
  /// `logger.info(...)` where the module made `logger` with such a function
  /// (`logger = logging.getLogger(__name__)`) and this function does not
  /// bind the name: the call as that module's own (runsNoDeviceWork). None
  /// for any other receiver.
  std::optional<Value> lowerModuleObjectCall(PyNode Call, llvm::StringRef Receiver);
  /// `[f(x) for x in xs if c]`: the clauses, then the element once (the
  /// element of one iteration stands for all of them).
  Value lowerComprehension(PyNode Expr);
  void collectContained(PyNode Expr, llvm::SmallVectorImpl<NameId> &Names);
  /// `t.data_ptr()`: the tensor whose device address \p Expr is.
  std::optional<NameId> addressOf(PyNode Expr);
  std::vector<Value> lowerArguments(PyNode Call);
  /// EnqueuesNothing: the factory writes nothing (ir::Inst::EnqueuesNothing).
  Value allocate(PyNode At, NameId Hint, bool EnqueuesNothing = false);
  void use(const std::vector<Value> &Operands, StreamRef Stream, SiteId Site);
  StreamRef resolveStream(PyNode Expr);
  StreamRef current() const { return CurrentStack.back(); }
  NameId eventOperand(PyNode Expr);
  static bool mayHoldBuffer(ValueKind K) {
    return K == ValueKind::Tensor || K == ValueKind::Unknown;
  }

  LoweringContext &Ctx;
  ir::Module &M;
  const PyFile &File;
  const PyFunctionDef *Def;
  ir::FunctionId Id;
  ir::Function &F;
  PyClassDef *Class = nullptr;
  bool ReportRecordStream;
  /// The parameters the call that this lowering specializes decided.
  ValueClass Fixed;

  unsigned Cur = 0;
  std::map<std::string, NameId> Locals;
  std::map<std::string, ValueKind> LocalKinds;
  std::map<std::string, PyClassDef *> LocalClasses;
  std::map<std::string, StreamRef> StreamAliases;
  /// Locals assigned a stream context (`ctx = torch.cuda.stream(s)`, on some
  /// path at least): the call that made it, for `with ctx:`.
  std::map<std::string, PyNode> StreamContexts;
  /// Locals assigned exactly once, from a view of a parameter
  /// (`weight = params.view(...)`): name -> the parameter.
  std::map<std::string, std::string> ParamViews;
  /// Locals assigned a subscript of a name (`rows = w[i]`): the subscript.
  std::map<std::string, PyNode> SubscriptViews;
  /// Lists (as written) and the locals bound to their elements
  /// (`s = streams[i]`, `for s in streams:`): where a loop synchronizes
  /// every element of the list, the host waited for each of those streams.
  /// A list of streams is never taken for one stream: `[current, side]`
  /// alternated holds two.
  std::map<std::string, std::map<std::string, PyNode>> ListElements;
  /// Locals that are lists or deques (made from `[]`, `list()`, `deque()`).
  std::map<std::string, ContainerInfo> Containers;
  std::map<std::string, unsigned> AssignmentCount;
  /// Locals assigned a comparison or a mask expression: the value (a
  /// boolean mask's, a stream inequality's).
  std::map<std::string, PyNode> MaskValues;
  /// Locals assigned a tuple display: how many elements (the largest seen).
  std::map<std::string, size_t> TupleArity;
  llvm::StringSet<> Globals;
  /// Names the function binds (assignment, loop and `with ... as` targets),
  /// from the scan before lowering: a local of that name hides the module's.
  llvm::StringSet<> BoundNames;
  /// The stream constructor calls lowered (`torch.cuda.Stream()`), by
  /// PyNode::id(): the assignments that make a private stream.
  std::set<uint64_t> StreamConstructors;
  llvm::StringSet<> ParamNames;
  NameId EntryCurrent = NoId;
  std::vector<StreamRef> CurrentStack;
  std::vector<LoopTargets> Loops;
  /// The temporaries of the statement being lowered, with where each was
  /// made (the site of its kill at the end of the statement).
  std::vector<std::pair<NameId, SiteId>> StatementTemps;
  unsigned TempCount = 0;
  bool IsModuleBody = false;
};

/// Adds to Ctx.Out.RecordStreamInLoops the calls of Ctx.CallsInLoops whose
/// callee reaches a record_stream call (PythonRecordStreamCalls.cpp). Run
/// once every function is lowered.
void reportRecordStreamThroughCalls(LoweringContext &Ctx);

} // namespace streamlife::python::lowering

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONFUNCTIONLOWERING_H
