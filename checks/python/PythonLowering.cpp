//===--- PythonLowering.cpp - streamlife ----------------------------------===//
//
// See PythonLowering.h for the model. This file has three parts: the
// module-wide context (function ids, shared names, sites), the per-function
// pre-pass that guesses what each local holds, and FunctionLowering, which
// walks statements (control flow) and expressions (operations).
//
//===----------------------------------------------------------------------===//

#include "PythonLowering.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

namespace streamlife::python {
namespace {

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
};

Value other() { return {ValueKind::Other, NoId, false, {}}; }

bool isNoneLiteral(PyNode N) { return N.is("none"); }

/// `"cpu"`, `"meta"` or `torch.device("cpu")`: a device that is not a GPU.
bool isHostDevice(PyNode N) {
  llvm::StringRef T = N.text();
  if (N.is("call") && !N.field("arguments").namedChildren().empty())
    T = N.field("arguments").namedChildren().front().text();
  T = T.trim("'\"");
  return T.starts_with("cpu") || T == "meta";
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

/// A `for`/`while` being lowered: where `continue` and `break` go.
struct LoopTargets {
  unsigned Continue;
  unsigned Break;
  PyNode Node;
};

class FunctionLowering {
public:
  FunctionLowering(LoweringContext &Ctx, const PyFile &File,
                   const PyFunctionDef *Def, ir::FunctionId Id)
      : Ctx(Ctx), M(Ctx.Out.Module), File(File), Def(Def), Id(Id),
        F(M.Functions[Id]),
        ReportRecordStream(File.Index == 0) {
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

  // --- Names.
  NameId local(const std::string &Spelling);
  NameId temp(llvm::StringRef Spelling);
  std::optional<NameId> nameOf(PyNode Expr);
  ValueKind kindOfName(PyNode Expr);
  PyClassDef *classOf(PyNode Receiver);
  std::string attributeKey(PyNode Attribute, PyClassDef *&Owner);
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
  SiteId site(PyNode N, llvm::StringRef Spelling = "") {
    return Ctx.site(File, N, Spelling);
  }

  void lowerBlock(PyNode Block);
  void lowerStatements(const std::vector<PyNode> &Stmts);
  void lowerStatement(PyNode Stmt);
  void lowerIf(PyNode Stmt);
  void assumeNone(PyNode Name, PyNode At);
  void lowerFor(PyNode Stmt);
  void lowerWhile(PyNode Stmt);
  void lowerTry(PyNode Stmt);
  void lowerWith(PyNode Stmt);
  void lowerMatch(PyNode Stmt);
  void lowerReturn(PyNode Stmt);
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

  // --- Expressions.
  Value lowerExpr(PyNode Expr, NameId Hint = NoId);
  Value lowerCall(PyNode Call, NameId Hint);
  Value lowerMethodCall(PyNode Call, PyNode Receiver, llvm::StringRef Method,
                        NameId Hint);
  Value lowerApi(const PyApiRow &Row, PyNode Call, PyNode Receiver,
                 const Value &Recv, NameId Hint);
  Value lowerLocalCall(const PyFunctionDef &Callee, PyNode Call,
                       std::optional<Value> Self, NameId Hint);
  Value lowerTensorOp(PyNode Call, const std::vector<Value> &Operands,
                      bool Allocates, NameId Hint = NoId);
  Value lowerUnknownCall(PyNode Call, const std::vector<Value> &Operands);
  void collectContained(PyNode Expr, llvm::SmallVectorImpl<NameId> &Names);
  std::vector<Value> lowerArguments(PyNode Call);
  Value allocate(PyNode At, NameId Hint);
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

  unsigned Cur = 0;
  std::map<std::string, NameId> Locals;
  std::map<std::string, ValueKind> LocalKinds;
  std::map<std::string, PyClassDef *> LocalClasses;
  std::map<std::string, StreamRef> StreamAliases;
  /// Locals assigned a tuple display: how many elements (the largest seen).
  std::map<std::string, size_t> TupleArity;
  llvm::StringSet<> Globals;
  llvm::StringSet<> ParamNames;
  NameId EntryCurrent = NoId;
  std::vector<StreamRef> CurrentStack;
  std::vector<LoopTargets> Loops;
  std::vector<NameId> StatementTemps;
  unsigned TempCount = 0;
  bool IsModuleBody = false;
};

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

NameId FunctionLowering::local(const std::string &Spelling) {
  if (IsModuleBody || Globals.count(Spelling))
    return Ctx.shared("g" + std::to_string(File.Index) + ":" + Spelling,
                      Spelling);
  NameId &Slot = Locals.try_emplace(Spelling, NoId).first->second;
  if (Slot == NoId)
    Slot = M.addName({Spelling, Id, NoId});
  return Slot;
}

NameId FunctionLowering::temp(llvm::StringRef Spelling) {
  NameId N = M.addName({Spelling.take_front(60).str(), Id, NoId});
  StatementTemps.push_back(N);
  ++TempCount;
  return N;
}

PyClassDef *FunctionLowering::classOf(PyNode Receiver) {
  if (isSelf(Receiver))
    return Class;
  if (Receiver.is("identifier")) {
    auto Found = LocalClasses.find(Receiver.text().str());
    if (Found != LocalClasses.end())
      return Found->second;
  }
  return nullptr;
}

/// "Pipeline.ag" for `self.ag` / `p.ag` with p a Pipeline, "p.ag" otherwise.
std::string FunctionLowering::attributeKey(PyNode Attribute,
                                           PyClassDef *&Owner) {
  llvm::SmallVector<llvm::StringRef, 4> Path;
  PyNode N = Attribute;
  while (N.is("attribute")) {
    Path.push_back(N.field("attribute").text());
    N = N.field("object");
  }
  std::reverse(Path.begin(), Path.end());
  Owner = classOf(N);
  if (!Owner && N.is("identifier") && !Path.empty() &&
      !File.Imports.count(N.text()) && N.text() != "torch")
    Owner = Ctx.Set.uniqueClassWithAttribute(Path.front());
  std::string Key = Owner ? Owner->Name : N.text().str();
  for (llvm::StringRef Part : Path)
    Key += "." + Part.str();
  return Key;
}

std::optional<NameId> FunctionLowering::nameOf(PyNode Expr) {
  if (Expr.is("parenthesized_expression") && !Expr.namedChildren().empty())
    return nameOf(Expr.namedChildren().front());
  if (Expr.is("identifier")) {
    std::string Text = Expr.text().str();
    if (Text == "self" && !Def)
      return std::nullopt;
    if (File.Imports.count(Text) || File.TopLevelFunctions.count(Text) ||
        File.Classes.count(Text))
      return std::nullopt;
    if (Locals.count(Text) || ParamNames.count(Text) || IsModuleBody ||
        Globals.count(Text))
      return local(Text);
    // A module global read in a function.
    return Ctx.shared("g" + std::to_string(File.Index) + ":" + Text, Text);
  }
  if (Expr.is("attribute")) {
    PyNode Base = Expr;
    while (Base.is("attribute"))
      Base = Base.field("object");
    if (!Base.is("identifier") || File.Imports.count(Base.text()) ||
        Base.text() == "torch")
      return std::nullopt;
    PyClassDef *Owner = nullptr;
    std::string Key = attributeKey(Expr, Owner);
    if (Owner || !Locals.count(Base.text().str()))
      return Ctx.shared("a:" + Key, Expr.text());
    // An attribute of a local object: dies with the function like it.
    return local(Expr.text().str());
  }
  if (Expr.is("subscript")) {
    PyNode Index = Expr.field("subscript");
    if (Index.is("integer"))
      if (std::optional<NameId> Base = nameOf(Expr.field("value"))) {
        (void)Base;
        return local(Expr.text().str());
      }
  }
  return std::nullopt;
}

ValueKind FunctionLowering::kindOfName(PyNode Expr) {
  if (Expr.is("identifier")) {
    auto Found = LocalKinds.find(Expr.text().str());
    return Found == LocalKinds.end() ? ValueKind::Unknown : Found->second;
  }
  if (Expr.is("attribute")) {
    PyNode Object = Expr.field("object");
    PyClassDef *Owner = nullptr;
    if (Object.is("identifier") || Object.is("attribute")) {
      attributeKey(Expr, Owner);
      if (Owner && Object.is("identifier")) {
        auto Fact = Owner->Attributes.find(Expr.field("attribute").text());
        if (Fact != Owner->Attributes.end())
          return Fact->second.Kind;
      }
    }
    auto Found = LocalKinds.find(Expr.text().str());
    return Found == LocalKinds.end() ? ValueKind::Unknown : Found->second;
  }
  return ValueKind::Unknown;
}

//===----------------------------------------------------------------------===//
// The pre-pass
//===----------------------------------------------------------------------===//

ValueKind FunctionLowering::staticKind(PyNode Expr) {
  if (isNoneLiteral(Expr))
    return ValueKind::Unknown;
  if (Expr.is("integer") || Expr.is("float") || Expr.is("string") ||
      Expr.is("true") || Expr.is("false") || Expr.is("comparison_operator") ||
      Expr.is("dictionary") || Expr.is("list") || Expr.is("set") ||
      Expr.is("list_comprehension") || Expr.is("dictionary_comprehension") ||
      Expr.is("concatenated_string") || Expr.is("lambda"))
    return ValueKind::Other;
  if (Expr.is("identifier") || Expr.is("attribute"))
    return kindOfName(Expr);
  if (Expr.is("parenthesized_expression") && !Expr.namedChildren().empty())
    return staticKind(Expr.namedChildren().front());
  if (Expr.is("binary_operator")) {
    ValueKind L = staticKind(Expr.field("left"));
    ValueKind R = staticKind(Expr.field("right"));
    if (Expr.field("operator").text() == "@" || L == ValueKind::Tensor ||
        R == ValueKind::Tensor)
      return ValueKind::Tensor;
    return L == ValueKind::Other && R == ValueKind::Other ? ValueKind::Other
                                                           : ValueKind::Unknown;
  }
  if (Expr.is("subscript"))
    return staticKind(Expr.field("value")) == ValueKind::Tensor
               ? ValueKind::Tensor
               : ValueKind::Unknown;
  if (!Expr.is("call"))
    return ValueKind::Unknown;
  PyNode Callee = Expr.field("function");
  AttributeFact Fact = classifyCreation(File, Expr);
  if (Fact.Kind != ValueKind::Unknown)
    return Fact.Kind;
  std::string Qualified = qualifiedCallee(File, Callee);
  if (const PyApiRow *Row = classifyFunction(Qualified)) {
    if (Row->Op == PyOp::Collective)
      return ValueKind::Work;
    if (Row->Op == PyOp::NoOp || Row->Op == PyOp::SyncDevice)
      return ValueKind::Other;
  }
  if (Callee.is("identifier") &&
      (Callee.text() == "len" || Callee.text() == "range" ||
       Callee.text() == "int" || Callee.text() == "float" ||
       Callee.text() == "str" || Callee.text() == "list" ||
       Callee.text() == "dict" || Callee.text() == "set" ||
       Callee.text() == "tuple" || Callee.text() == "deque"))
    return ValueKind::Other;
  if (Callee.is("attribute")) {
    llvm::StringRef Method = Callee.field("attribute").text();
    if (const PyApiRow *Row =
            classifyMethod(Method, staticKind(Callee.field("object")))) {
      switch (Row->Op) {
      case PyOp::RecordEvent:
        return ValueKind::Event;
      case PyOp::Metadata:
      case PyOp::HostRead:
        return ValueKind::Other;
      case PyOp::View:
      case PyOp::ToDevice:
      case PyOp::TensorOp:
        return ValueKind::Tensor;
      default:
        break;
      }
    }
  }
  return ValueKind::Unknown;
}

void FunctionLowering::noteTarget(PyNode Target) {
  if (Target.is("identifier")) {
    Locals.try_emplace(Target.text().str(), NoId);
    return;
  }
  if (Target.is("pattern_list") || Target.is("tuple_pattern") ||
      Target.is("list_pattern") || Target.is("tuple") ||
      Target.is("expression_list") || Target.is("list") ||
      Target.is("parenthesized_expression"))
    for (PyNode Element : Target.namedChildren())
      noteTarget(Element);
}

void FunctionLowering::noteAssignment(PyNode Target, PyNode Value) {
  noteTarget(Target);
  if (!Target.is("identifier") || !Value)
    return;
  std::string Name = Target.text().str();
  if (Value.is("tuple") || Value.is("expression_list")) {
    auto Elements = Value.namedChildren();
    size_t &Arity = TupleArity[Name];
    Arity = std::max(Arity, Elements.size());
    for (size_t I = 0; I < Elements.size(); ++I) {
      std::string Element = Name + "[" + std::to_string(I) + "]";
      Locals.try_emplace(Element, NoId);
      ValueKind K = staticKind(Elements[I]);
      auto [It, Inserted] = LocalKinds.try_emplace(Element, K);
      if (!Inserted && It->second != K)
        It->second = ValueKind::Unknown;
    }
  }
  if (Value.is("call")) {
    PyNode Callee = Value.field("function");
    if (Callee.is("identifier"))
      if (PyClassDef *C = Ctx.Set.findClass(File, Callee.text()))
        LocalClasses[Name] = C;
  }
  if (isNoneLiteral(Value))
    return;
  ValueKind K = staticKind(Value);
  auto [It, Inserted] = LocalKinds.try_emplace(Name, K);
  if (!Inserted && It->second != K)
    It->second = ValueKind::Unknown;
}

void FunctionLowering::scanLocals(PyNode Body) {
  std::function<void(PyNode)> Scan = [&](PyNode N) {
    if (N.is("function_definition") || N.is("class_definition") ||
        N.is("lambda"))
      return;
    if (N.is("global_statement") || N.is("nonlocal_statement")) {
      for (PyNode Name : N.namedChildren())
        Globals.insert(Name.text());
      return;
    }
    if (N.is("assignment")) {
      PyNode Left = N.field("left"), Right = N.field("right");
      if ((Left.is("pattern_list") || Left.is("tuple_pattern")) &&
          (Right.is("expression_list") || Right.is("tuple")) &&
          Left.namedChildren().size() == Right.namedChildren().size()) {
        auto Ls = Left.namedChildren(), Rs = Right.namedChildren();
        for (size_t I = 0; I < Ls.size(); ++I)
          noteAssignment(Ls[I], Rs[I]);
      } else {
        noteAssignment(Left, Right);
      }
    } else if (N.is("for_statement")) {
      noteTarget(N.field("left"));
      // `for i in range(n)`: i is a number.
      PyNode Iterable = N.field("right");
      PyNode Left = N.field("left");
      if (Iterable.is("call") && Left.is("identifier") &&
          Iterable.field("function").text() == "range")
        LocalKinds[Left.text().str()] = ValueKind::Other;
    } else if (N.is("with_item")) {
      PyNode V = N.field("value");
      if (V.is("as_pattern"))
        for (PyNode Child : V.namedChildren())
          if (Child.is("as_pattern_target"))
            for (PyNode T : Child.namedChildren())
              noteTarget(T);
    } else if (N.is("named_expression")) {
      noteAssignment(N.field("name"), N.field("value"));
    } else if (N.is("call")) {
      // Receivers of stream-only methods are streams, of tensor-only
      // methods tensors; `with torch.cuda.stream(x)` makes x a stream.
      PyNode Callee = N.field("function");
      if (Callee.is("attribute")) {
        PyNode Object = Callee.field("object");
        llvm::StringRef Method = Callee.field("attribute").text();
        if (Object.is("identifier")) {
          // Only names no other kind of object has: `x.size()` could be
          // anybody's (a process group's), `x.wait_event(e)` is a stream's.
          const PyApiRow *Row = classifyMethod(Method, ValueKind::Unknown);
          if (Row && (Row->Op == PyOp::RecordEvent || Row->Op == PyOp::WaitEvent ||
                      Row->Op == PyOp::WaitStream || Row->Op == PyOp::RecordStream))
            LocalKinds.try_emplace(Object.text().str(), Row->Receiver);
        }
      }
      std::string Qualified = qualifiedCallee(File, Callee);
      if (const PyApiRow *Row = classifyFunction(Qualified))
        if (Row->Op == PyOp::StreamContext || Row->Op == PyOp::SetStream) {
          PyNode S = CallArguments(N).find(Row->Stream);
          if (S.is("identifier"))
            LocalKinds.try_emplace(S.text().str(), ValueKind::Stream);
        }
    }
    for (PyNode Child : N.namedChildren())
      Scan(Child);
  };
  Scan(Body);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

StreamRef FunctionLowering::resolveStream(PyNode Expr) {
  if (!Expr || isNoneLiteral(Expr))
    return StreamRef::unknown();
  if (Expr.is("parenthesized_expression") && !Expr.namedChildren().empty())
    return resolveStream(Expr.namedChildren().front());
  if (Expr.is("call")) {
    Value V = lowerExpr(Expr);
    return V.Kind == ValueKind::Stream ? V.Stream : StreamRef::unknown();
  }
  if (Expr.is("identifier")) {
    auto Alias = StreamAliases.find(Expr.text().str());
    if (Alias != StreamAliases.end())
      return Alias->second;
  }
  if (Expr.is("attribute")) {
    PyClassDef *Owner = nullptr;
    attributeKey(Expr, Owner);
    if (Owner && Expr.field("object").is("identifier")) {
      auto Fact = Owner->Attributes.find(Expr.field("attribute").text());
      if (Fact != Owner->Attributes.end() && Fact->second.IsCurrentStream) {
        // `self.compute = torch.cuda.current_stream()`: name the current
        // stream after the attribute in this function's sentences.
        if (M.Names[EntryCurrent].Spelling == UnnamedCurrentStream)
          M.Names[EntryCurrent].Spelling = Expr.text().str();
        return StreamRef::named(EntryCurrent);
      }
    }
    // `torch.cuda.current_stream` used as a value is not a stream.
    if (!qualifiedCallee(File, Expr).empty())
      return StreamRef::unknown();
  }
  if (std::optional<NameId> N = nameOf(Expr))
    return StreamRef::named(*N);
  return StreamRef::unknown();
}

NameId FunctionLowering::eventOperand(PyNode Expr) {
  if (!Expr || isNoneLiteral(Expr))
    return NoId;
  if (std::optional<NameId> N = nameOf(Expr))
    return *N;
  Value V = lowerExpr(Expr);
  return V.Kind == ValueKind::Event || V.Kind == ValueKind::Work ? V.Name
                                                                 : NoId;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

void FunctionLowering::use(const std::vector<Value> &Operands, StreamRef Stream,
                           SiteId Site) {
  ir::Inst I;
  I.Kind = OpKind::Use;
  I.Site = Site;
  I.Stream = Stream;
  for (const Value &V : Operands)
    if (V.Name != NoId && mayHoldBuffer(V.Kind) &&
        std::find(I.Names.begin(), I.Names.end(), V.Name) == I.Names.end())
      I.Names.push_back(V.Name);
  if (!I.Names.empty())
    F.Blocks[Cur].Insts.push_back(std::move(I));
}

Value FunctionLowering::allocate(PyNode At, NameId Hint) {
  NameId Result = temp(Hint != NoId ? M.name(Hint).Spelling : At.text());
  ir::Inst &I = emit(OpKind::Allocate, site(At));
  I.Names.push_back(Result);
  I.Stream = current();
  I.Own = ir::Ownership::Owned;
  return {ValueKind::Tensor, Result, true, {}};
}

std::vector<Value> FunctionLowering::lowerArguments(PyNode Call) {
  std::vector<Value> Values;
  PyNode List = Call.field("arguments");
  for (PyNode Arg : List.namedChildren()) {
    PyNode E = Arg.is("keyword_argument") ? Arg.field("value") : Arg;
    if (Arg.is("list_splat") || Arg.is("dictionary_splat"))
      E = Arg.namedChildren().empty() ? PyNode() : Arg.namedChildren().front();
    if (E)
      Values.push_back(lowerExpr(E));
  }
  return Values;
}

Value FunctionLowering::lowerTensorOp(PyNode Call,
                                      const std::vector<Value> &Operands,
                                      bool Allocates, NameId Hint) {
  SiteId Site = site(Call);
  use(Operands, current(), Site);
  bool Tracked = false;
  for (const Value &V : Operands)
    Tracked |= V.Name != NoId && mayHoldBuffer(V.Kind);
  if (!Allocates || !Tracked)
    return {ValueKind::Tensor, NoId, false, {}};
  return allocate(Call, Hint);
}

void FunctionLowering::collectContained(PyNode Expr,
                                        llvm::SmallVectorImpl<NameId> &Names) {
  if (Expr.is("tuple") || Expr.is("list") || Expr.is("set") ||
      Expr.is("dictionary") || Expr.is("pair") ||
      Expr.is("parenthesized_expression") || Expr.is("expression_list")) {
    for (PyNode Child : Expr.namedChildren())
      collectContained(Child, Names);
    return;
  }
  if (Expr.is("identifier") || Expr.is("attribute"))
    if (mayHoldBuffer(kindOfName(Expr)))
      if (std::optional<NameId> N = nameOf(Expr))
        Names.push_back(*N);
}

Value FunctionLowering::lowerUnknownCall(PyNode Call,
                                         const std::vector<Value> &Operands) {
  // Neither a use nor an ordering; a tensor handed to code we cannot see
  // (or stored into a container) may be kept by it, so no finding about its
  // release after this.
  ir::Inst I;
  I.Kind = OpKind::Escape;
  for (const Value &V : Operands)
    if (V.Name != NoId && mayHoldBuffer(V.Kind))
      I.Names.push_back(V.Name);
  if (Call)
    for (PyNode Arg : Call.field("arguments").namedChildren())
      collectContained(Arg.is("keyword_argument") ? Arg.field("value") : Arg,
                       I.Names);
  if (!I.Names.empty())
    F.Blocks[Cur].Insts.push_back(std::move(I));
  return {};
}

Value FunctionLowering::lowerLocalCall(const PyFunctionDef &Callee,
                                       PyNode Call, std::optional<Value> Self,
                                       NameId Hint) {
  auto Found = Ctx.Ids.find(&Callee);
  if (Found == Ctx.Ids.end())
    return lowerUnknownCall(Call, lowerArguments(Call));
  // Arguments by the callee's parameter position; the last position is the
  // caller's current stream.
  size_t NumParams = Callee.Params.size();
  std::vector<ir::CallArg> Args(NumParams + 1);
  auto bind = [&](size_t Position, const Value &V) {
    if (Position >= NumParams)
      return;
    Args[Position].Value = V.Name;
    if (V.Kind == ValueKind::Stream)
      Args[Position].Stream = V.Stream;
  };
  size_t Next = 0;
  if (Self) {
    bind(0, *Self);
    Next = 1;
  } else if (!Callee.ClassName.empty() && Callee.QualifiedName.size() > 9 &&
             llvm::StringRef(Callee.QualifiedName).ends_with(".__init__")) {
    Next = 1; // a constructor: `self` is the new object
  }
  CallArguments Arguments(Call);
  for (PyNode Arg : Arguments.Positional) {
    Value V = Arg.is("identifier") || Arg.is("attribute")
                  ? lowerExpr(Arg)
                  : lowerExpr(Arg);
    if (kindOfName(Arg) == ValueKind::Stream || V.Kind == ValueKind::Stream) {
      V.Kind = ValueKind::Stream;
      V.Stream = resolveStream(Arg);
    }
    bind(Next++, V);
  }
  for (const auto &[Keyword, Arg] : Arguments.Keywords) {
    Value V = lowerExpr(Arg);
    if (kindOfName(Arg) == ValueKind::Stream || V.Kind == ValueKind::Stream) {
      V.Kind = ValueKind::Stream;
      V.Stream = resolveStream(Arg);
    }
    for (size_t I = 0; I < NumParams; ++I)
      if (Callee.Params[I] == Keyword)
        bind(I, V);
  }
  Args[NumParams].Stream = current();
  NameId Result =
      temp(Hint != NoId ? M.name(Hint).Spelling : Call.text());
  ir::Inst &I = emit(OpKind::Call, site(Call));
  I.Callee = Found->second;
  I.Names.push_back(Result);
  I.Args.assign(Args.begin(), Args.end());
  return {ValueKind::Unknown, Result, true, {}};
}

Value FunctionLowering::lowerApi(const PyApiRow &Row, PyNode Call,
                                 PyNode Receiver, const Value &Recv,
                                 NameId Hint) {
  CallArguments Args(Call);
  auto streamArg = [&]() {
    PyNode S = Args.find(Row.Stream);
    return S && !isNoneLiteral(S) ? resolveStream(S) : current();
  };
  auto receiverName = [&]() {
    return Recv.Name != NoId ? Recv.Name : NoId;
  };
  auto receiverStream = [&]() {
    return Receiver ? resolveStream(Receiver) : StreamRef::unknown();
  };
  switch (Row.Op) {
  case PyOp::CreateStream: {
    NameId Target = Hint != NoId ? Hint : temp("stream");
    ir::Inst &I = emit(OpKind::CreateStream, site(Call));
    I.Stream = StreamRef::named(Target);
    I.NonBlocking = true; // the stream pool's streams are non-blocking
    return {ValueKind::Stream, Target, false, StreamRef::named(Target)};
  }
  case PyOp::CurrentStream:
    return {ValueKind::Stream, NoId, false, current()};
  case PyOp::StreamContext:
    // Only meaningful as a `with` item, which lowerWith handles.
    return other();
  case PyOp::SetStream: {
    StreamRef S = resolveStream(Args.find(Row.Stream));
    CurrentStack.back() = S;
    return other();
  }
  case PyOp::CreateEvent: {
    NameId Target = Hint != NoId ? Hint : temp("event");
    ir::Inst &I = emit(OpKind::Bind, site(Call));
    I.Names = {Target, NoId};
    I.Value = ir::ValueKind::Event;
    return {ValueKind::Event, Target, Hint == NoId, {}};
  }
  case PyOp::RecordEvent: {
    bool OnStream = Recv.Kind == ValueKind::Stream ||
                    Row.Receiver == ValueKind::Stream;
    StreamRef S = OnStream ? receiverStream() : streamArg();
    NameId Event = NoId;
    if (OnStream) {
      PyNode E = Args.find(Row.Event);
      Event = E && !isNoneLiteral(E) ? eventOperand(E)
                                     : (Hint != NoId ? Hint : temp("event"));
    } else {
      Event = receiverName();
    }
    if (Event == NoId)
      return other();
    ir::Inst &I = emit(OpKind::RecordEvent, site(Call));
    I.Stream = S;
    I.Event = Event;
    return {ValueKind::Event, Event, false, {}};
  }
  case PyOp::WaitEvent: {
    bool OnStream = Row.Receiver == ValueKind::Stream;
    ir::Inst &I = emit(OpKind::WaitEvent, site(Call));
    I.Stream = OnStream ? receiverStream() : streamArg();
    I.Event = OnStream ? eventOperand(Args.find(Row.Event)) : receiverName();
    return other();
  }
  case PyOp::WaitStream: {
    ir::Inst &I = emit(OpKind::WaitStream, site(Call));
    I.Stream = receiverStream();
    I.Stream2 = resolveStream(Args.find(Row.Stream));
    return other();
  }
  case PyOp::Synchronize:
    if (Row.Receiver == ValueKind::Event) {
      ir::Inst &I = emit(OpKind::SyncEvent, site(Call));
      I.Event = receiverName();
    } else {
      ir::Inst &I = emit(OpKind::SyncStream, site(Call));
      I.Stream = receiverStream();
    }
    return other();
  case PyOp::SyncDevice:
    emit(OpKind::SyncDevice, site(Call));
    return other();
  case PyOp::WaitWork: {
    ir::Inst &I = emit(OpKind::WaitEvent, site(Call));
    I.Stream = current();
    I.Event = receiverName();
    return other();
  }
  case PyOp::RecordStream: {
    if (ReportRecordStream && !Loops.empty())
      Ctx.Out.RecordStreamInLoops.push_back(
          {site(Call), Receiver.text().str(), site(Loops.back().Node)});
    StreamRef S = resolveStream(Args.find(Row.Stream));
    if (Recv.Name != NoId) {
      ir::Inst &I = emit(OpKind::RecordStream, site(Call));
      I.Names.push_back(Recv.Name);
      I.Stream = S;
    }
    return other();
  }
  case PyOp::Factory: {
    std::vector<Value> Operands = lowerArguments(Call);
    PyNode Device = Args.keyword("device");
    if (!Device || isHostDevice(Device))
      return {ValueKind::Tensor, NoId, false, {}};
    return allocate(Call, Hint);
  }
  case PyOp::FactoryLike: {
    std::vector<Value> Operands = lowerArguments(Call);
    PyNode Device = Args.keyword("device");
    bool OnGpu = Device ? !isHostDevice(Device)
                        : !Operands.empty() && Operands.front().Name != NoId;
    if (!OnGpu)
      return {ValueKind::Tensor, NoId, false, {}};
    return allocate(Call, Hint);
  }
  case PyOp::TensorOp: {
    std::vector<Value> Operands = lowerArguments(Call);
    if (Receiver)
      Operands.insert(Operands.begin(), Recv);
    Value Result = lowerTensorOp(Call, Operands, /*Allocates=*/true, Hint);
    return Result;
  }
  case PyOp::InPlace: {
    std::vector<Value> Operands = lowerArguments(Call);
    Operands.insert(Operands.begin(), Recv);
    use(Operands, current(), site(Call));
    return Recv;
  }
  case PyOp::View:
    lowerArguments(Call);
    return {ValueKind::Tensor, Recv.Name, false, {}};
  case PyOp::ToDevice: {
    PyNode Device = Args.find(Row.Stream); // `device` operand
    std::vector<Value> Operands = lowerArguments(Call);
    if (Device && isHostDevice(Device)) {
      use({Recv}, current(), site(Call));
      ir::Inst &I = emit(OpKind::SyncStream, site(Call));
      I.Stream = current();
      return {ValueKind::Tensor, NoId, false, {}};
    }
    Operands.insert(Operands.begin(), Recv);
    use(Operands, current(), site(Call));
    return allocate(Call, Hint);
  }
  case PyOp::HostRead: {
    lowerArguments(Call);
    use({Recv}, current(), site(Call));
    ir::Inst &I = emit(OpKind::SyncStream, site(Call));
    I.Stream = current();
    return other();
  }
  case PyOp::Metadata:
    lowerArguments(Call);
    return other();
  case PyOp::Collective: {
    std::vector<Value> Operands = lowerArguments(Call);
    bool Async = false;
    if (Row.Async.Keyword.empty())
      Async = true;
    else if (PyNode A = Args.keyword(Row.Async.Keyword))
      Async = A.is("true");
    llvm::StringRef Short = qualifiedCallee(File, Call.field("function"));
    Short = Short.rsplit('.').second;
    // The process group's stream: it waits for the caller's current stream
    // before the collective; an async collective is ordered back through
    // its work handle, a synchronous one before returning.
    StreamRef Comm =
        StreamRef::named(Ctx.shared("pg:" + Short.str(), Short));
    SiteId Site = site(Call);
    ir::Inst &Before = emit(OpKind::WaitStream, Site);
    Before.Stream = Comm;
    Before.Stream2 = current();
    use(Operands, Comm, Site);
    if (!Async) {
      ir::Inst &After = emit(OpKind::WaitStream, Site);
      After.Stream = current();
      After.Stream2 = Comm;
      return other();
    }
    NameId Work = Hint != NoId ? Hint : temp("work");
    ir::Inst &Record = emit(OpKind::RecordEvent, Site);
    Record.Stream = Comm;
    Record.Event = Work;
    return {ValueKind::Work, Work, Hint == NoId, {}};
  }
  case PyOp::NoOp:
    lowerArguments(Call);
    return other();
  }
  return {};
}

Value FunctionLowering::lowerMethodCall(PyNode Call, PyNode Receiver,
                                        llvm::StringRef Method, NameId Hint) {
  // A method of a local class: `self.gather(...)`, `p.forward(...)`.
  PyClassDef *Owner = classOf(Receiver);
  bool ReceiverIsModule =
      Receiver.is("identifier") && File.Imports.count(Receiver.text());
  if (!Owner && !ReceiverIsModule && !classifyMethod(Method, ValueKind::Unknown))
    Owner = Ctx.Set.uniqueClassWithMethod(Method);
  if (Owner)
    if (PyFunctionDef *Callee = Ctx.Set.findMethod(*Owner, Method)) {
      Value Self = lowerExpr(Receiver);
      return lowerLocalCall(*Callee, Call, Self, Hint);
    }
  Value Recv = lowerExpr(Receiver);
  ValueKind RecvKind = Recv.Kind;
  if (RecvKind == ValueKind::Unknown)
    RecvKind = kindOfName(Receiver);
  if (const PyApiRow *Row = classifyMethod(Method, RecvKind))
    return lowerApi(*Row, Call, Receiver, Recv, Hint);
  if (RecvKind == ValueKind::Tensor) {
    // Any other tensor method: in-place when it ends in '_', else an op
    // returning a new tensor.
    PyApiRow Row{"", ValueKind::Tensor,
                 Method.ends_with("_") ? PyOp::InPlace : PyOp::TensorOp};
    return lowerApi(Row, Call, Receiver, Recv, Hint);
  }
  // An unknown method of something that may be a tensor: a use of the
  // receiver (nothing, if it is not one); the arguments escape.
  std::vector<Value> Operands = lowerArguments(Call);
  use({Recv}, current(), site(Call));
  return lowerUnknownCall(Call, Operands);
}

Value FunctionLowering::lowerCall(PyNode Call, NameId Hint) {
  PyNode Callee = Call.field("function");
  // Library functions first: `torch.cuda.synchronize()`, `dist.all_reduce`.
  std::string Qualified = qualifiedCallee(File, Callee);
  if (!Qualified.empty()) {
    if (const PyApiRow *Row = classifyFunction(Qualified))
      return lowerApi(*Row, Call, PyNode(), Value(), Hint);
    if (isTensorLibraryFunction(Qualified))
      return lowerTensorOp(Call, lowerArguments(Call), /*Allocates=*/true,
                           Hint);
    lowerArguments(Call);
    return {}; // another library function: neither use nor ordering
  }
  if (Callee.is("identifier")) {
    llvm::StringRef Name = Callee.text();
    const PyFunctionDef *Target = nullptr;
    auto Local = File.TopLevelFunctions.find(Name);
    if (Local != File.TopLevelFunctions.end())
      Target = Local->second;
    auto Import = File.Imports.find(Name);
    if (!Target && Import != File.Imports.end() && Import->second.Module) {
      auto &Functions = Import->second.Module->TopLevelFunctions;
      auto Found = Functions.find(Import->second.Symbol);
      if (Found != Functions.end())
        Target = Found->second;
    }
    if (Target)
      return lowerLocalCall(*Target, Call, std::nullopt, Hint);
    if (PyClassDef *C = Ctx.Set.findClass(File, Name)) {
      if (PyFunctionDef *Init = Ctx.Set.findMethod(*C, "__init__")) {
        lowerLocalCall(*Init, Call, std::nullopt, NoId);
      } else {
        lowerArguments(Call);
      }
      return other();
    }
    static const llvm::StringSet<> HarmlessBuiltins = {
        "print", "len", "isinstance", "issubclass", "max", "min", "float",
        "int", "str", "repr", "id", "hasattr", "getattr", "range",
        "enumerate", "zip", "bool", "type", "hash", "format", "sorted",
        "reversed", "any", "all", "abs", "round", "callable", "iter", "next",
        "super", "divmod", "pow", "sum", "map", "filter", "vars", "dir"};
    if (HarmlessBuiltins.count(Name)) {
      lowerArguments(Call);
      return other();
    }
    return lowerUnknownCall(Call, lowerArguments(Call));
  }
  if (Callee.is("attribute")) {
    PyNode Receiver = Callee.field("object");
    llvm::StringRef Method = Callee.field("attribute").text();
    // `mod.f(...)` of a local module.
    if (Receiver.is("identifier")) {
      auto Import = File.Imports.find(Receiver.text());
      if (Import != File.Imports.end() && Import->second.Module &&
          Import->second.Symbol.empty()) {
        auto &Functions = Import->second.Module->TopLevelFunctions;
        auto Found = Functions.find(Method);
        if (Found != Functions.end())
          return lowerLocalCall(*Found->second, Call, std::nullopt, Hint);
        return lowerUnknownCall(Call, lowerArguments(Call));
      }
    }
    return lowerMethodCall(Call, Receiver, Method, Hint);
  }
  lowerExpr(Callee);
  return lowerUnknownCall(Call, lowerArguments(Call));
}

Value FunctionLowering::lowerExpr(PyNode Expr, NameId Hint) {
  if (!Expr)
    return {};
  llvm::StringRef K = Expr.kind();
  if (K == "parenthesized_expression" || K == "await") {
    auto Children = Expr.namedChildren();
    return Children.empty() ? Value() : lowerExpr(Children.front(), Hint);
  }
  if (K == "none" || K == "integer" || K == "float" || K == "string" ||
      K == "true" || K == "false" || K == "concatenated_string" ||
      K == "ellipsis")
    return other();
  if (K == "identifier" || K == "attribute") {
    ValueKind Kind = kindOfName(Expr);
    if (Kind == ValueKind::Stream)
      return {Kind, nameOf(Expr).value_or(NoId), false, resolveStream(Expr)};
    if (std::optional<NameId> N = nameOf(Expr))
      return {Kind, *N, false, {}};
    if (K == "attribute")
      lowerExpr(Expr.field("object"));
    return {Kind, NoId, false, {}};
  }
  if (K == "call")
    return lowerCall(Expr, Hint);
  if (K == "subscript") {
    Value Base = lowerExpr(Expr.field("value"));
    for (PyNode Index : Expr.fields("subscript"))
      lowerExpr(Index);
    // `t[i]` is a view of t.
    if (Base.Kind == ValueKind::Tensor && Base.Name != NoId)
      return {ValueKind::Tensor, Base.Name, false, {}};
    if (std::optional<NameId> N = nameOf(Expr))
      return {ValueKind::Unknown, *N, false, {}};
    return {};
  }
  if (K == "binary_operator") {
    Value L = lowerExpr(Expr.field("left"));
    Value R = lowerExpr(Expr.field("right"));
    llvm::StringRef Op = Expr.field("operator").text();
    // A name of unknown kind is taken for a tensor (uses of anything else
    // do nothing); `i - 1` with i a loop counter is not a tensor op.
    auto tensorish = [](const Value &V) {
      return V.Kind == ValueKind::Tensor ||
             (V.Kind == ValueKind::Unknown && V.Name != NoId);
    };
    bool Tensor = Op == "@" || L.Kind == ValueKind::Tensor ||
                  R.Kind == ValueKind::Tensor;
    if (!Tensor) {
      // Names of unknown kind: a use if they are tensors, but no new tensor
      // (`block * n + i` is index arithmetic far more often than not).
      if (tensorish(L) || tensorish(R))
        use({L, R}, current(), site(Expr));
      return {L.Kind == ValueKind::Other && R.Kind == ValueKind::Other
                  ? ValueKind::Other
                  : ValueKind::Unknown,
              NoId, false, {}};
    }
    return lowerTensorOp(Expr, {L, R}, /*Allocates=*/true, Hint);
  }
  if (K == "unary_operator") {
    Value V = lowerExpr(Expr.field("argument"));
    if (V.Kind == ValueKind::Tensor)
      return lowerTensorOp(Expr, {V}, true, Hint);
    return {};
  }
  if (K == "named_expression") {
    Value V = lowerExpr(Expr.field("value"));
    assign(Expr.field("name"), V, Expr);
    return V;
  }
  if (K == "lambda" || K == "list_comprehension" || K == "set_comprehension" ||
      K == "dictionary_comprehension" || K == "generator_expression")
    return other(); // not analysed (their bodies run elsewhere or later)
  // Containers, conditionals, comparisons, boolean operators: lower what is
  // inside for its operations; the result is not a tracked tensor.
  for (PyNode Child : Expr.namedChildren())
    lowerExpr(Child);
  if (K == "comparison_operator" || K == "boolean_operator" ||
      K == "not_operator" || K == "list" || K == "tuple" || K == "dictionary" ||
      K == "set" || K == "expression_list")
    return other();
  return {};
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void FunctionLowering::endStatement() {
  // Temporaries die at the end of the statement that made them.
  for (NameId T : StatementTemps) {
    ir::Inst &I = emit(OpKind::Kill, NoId);
    I.Names.push_back(T);
  }
  StatementTemps.clear();
}

void FunctionLowering::killName(NameId Name, ValueKind Kind, SiteId Site) {
  ir::Inst &I = emit(OpKind::Kill, Site);
  I.Names.push_back(Name);
  I.Value = Kind == ValueKind::Event || Kind == ValueKind::Work
                ? ir::ValueKind::Event
                : ir::ValueKind::Buffer;
}

void FunctionLowering::assign(PyNode Target, const Value &V, PyNode At) {
  if (Target.is("parenthesized_expression") &&
      !Target.namedChildren().empty())
    return assign(Target.namedChildren().front(), V, At);
  if (Target.is("pattern_list") || Target.is("tuple_pattern") ||
      Target.is("list_pattern") || Target.is("tuple") ||
      Target.is("expression_list") || Target.is("list")) {
    // Unpacking one value: views of it (split/chunk) or unknown values.
    for (PyNode Element : Target.namedChildren()) {
      Value Part = V.Kind == ValueKind::Tensor && V.Name != NoId
                       ? Value{ValueKind::Tensor, V.Name, false, {}}
                       : Value();
      assign(Element, Part, At);
    }
    return;
  }
  std::optional<NameId> Name = nameOf(Target);
  if (!Name) {
    // `d[k] = t`, `obj.x[i] = t`: stored where we do not track it.
    if (V.Name != NoId && mayHoldBuffer(V.Kind)) {
      ir::Inst &I = emit(OpKind::Escape, site(At));
      I.Names.push_back(V.Name);
    }
    lowerExpr(Target);
    return;
  }
  if (Target.is("identifier") && V.Kind == ValueKind::Stream) {
    StreamAliases[Target.text().str()] = V.Stream;
    if (V.Stream.Kind == StreamRef::Named && V.Stream.Name == EntryCurrent &&
        M.Names[EntryCurrent].Spelling == UnnamedCurrentStream)
      M.Names[EntryCurrent].Spelling = Target.text().str();
    return;
  }
  if (V.Kind == ValueKind::Stream) {
    if (V.Name != *Name && V.Stream.Kind == StreamRef::Named) {
      ir::Inst &I = emit(OpKind::Bind, site(At));
      I.Names = {*Name, V.Stream.Name};
      I.Value = ir::ValueKind::Stream;
    }
    return;
  }
  if (V.Kind == ValueKind::Event || V.Kind == ValueKind::Work) {
    if (V.Name == *Name)
      return;
    ir::Inst &I = emit(V.IsTemp ? OpKind::Move : OpKind::Bind, site(At));
    I.Names = {*Name, V.Name};
    I.Value = ir::ValueKind::Event;
    return;
  }
  if (V.Name == *Name)
    return; // `t = t.view(...)`, `t.add_()` results
  killElements(Target, At);
  ir::Inst &I = emit(V.IsTemp ? OpKind::Move : OpKind::Bind, site(At));
  I.Names = {*Name, V.Name};
  I.Value = ir::ValueKind::Buffer;
}

/// `pending = (grads, done)`: the tuple's elements are names of their own,
/// `pending[0]` and `pending[1]`, so that the tuple keeps them alive and
/// `old, ev = pending` gets them back.
bool FunctionLowering::lowerPacking(PyNode Left, PyNode Right, PyNode Stmt) {
  if (!Left.is("identifier") ||
      !(Right.is("tuple") || Right.is("expression_list")))
    return false;
  auto Elements = Right.namedChildren();
  std::vector<Value> Values;
  for (PyNode E : Elements)
    Values.push_back(lowerExpr(E));
  std::optional<NameId> Whole = nameOf(Left);
  if (!Whole)
    return true;
  killElements(Left, Stmt);
  ir::Inst &Reset = emit(OpKind::Bind, site(Stmt));
  Reset.Names = {*Whole, NoId};
  for (size_t I = 0; I < Elements.size(); ++I) {
    NameId Element = local(elementSpelling(Left, I));
    const Value &V = Values[I];
    if (V.Name == NoId || V.Kind == ValueKind::Stream)
      continue;
    ir::Inst &B = emit(V.IsTemp ? OpKind::Move : OpKind::Bind, site(Stmt));
    B.Names = {Element, V.Name};
    B.Value = V.Kind == ValueKind::Event || V.Kind == ValueKind::Work
                  ? ir::ValueKind::Event
                  : ir::ValueKind::Buffer;
  }
  return true;
}

/// `a, b = pending` with pending packed above: the elements' values.
bool FunctionLowering::lowerUnpacking(PyNode Left, PyNode Right, PyNode Stmt) {
  if (!(Left.is("pattern_list") || Left.is("tuple_pattern")) ||
      !Right.is("identifier"))
    return false;
  auto Arity = TupleArity.find(Right.text().str());
  auto Targets = Left.namedChildren();
  if (Arity == TupleArity.end() || Arity->second != Targets.size())
    return false;
  for (size_t I = 0; I < Targets.size(); ++I) {
    std::string Element = elementSpelling(Right, I);
    ValueKind K = LocalKinds.count(Element) ? LocalKinds[Element]
                                            : ValueKind::Unknown;
    Value V{K == ValueKind::Event ? ValueKind::Event : ValueKind::Unknown,
            local(Element), false, {}};
    assign(Targets[I], V, Stmt);
  }
  return true;
}

std::string FunctionLowering::elementSpelling(PyNode Whole, size_t Index) {
  return Whole.text().str() + "[" + std::to_string(Index) + "]";
}

void FunctionLowering::killElements(PyNode Whole, PyNode At) {
  if (!Whole.is("identifier"))
    return;
  auto Arity = TupleArity.find(Whole.text().str());
  if (Arity == TupleArity.end())
    return;
  for (size_t I = 0; I < Arity->second; ++I) {
    std::string Element = elementSpelling(Whole, I);
    killName(local(Element),
             LocalKinds.count(Element) ? LocalKinds[Element]
                                       : ValueKind::Unknown,
             site(At));
  }
}

void FunctionLowering::lowerAssignment(PyNode Stmt) {
  PyNode Left = Stmt.field("left"), Right = Stmt.field("right");
  if (!Right)
    return; // an annotation without a value
  if (lowerPacking(Left, Right, Stmt) || lowerUnpacking(Left, Right, Stmt))
    return;
  if (Right.is("assignment")) { // a = b = expr
    lowerAssignment(Right);
    Value V = lowerExpr(Right.field("left"));
    assign(Left, V, Stmt);
    return;
  }
  // `a, b = c, d`: all right-hand sides first, then the bindings.
  if ((Left.is("pattern_list") || Left.is("tuple_pattern")) &&
      (Right.is("expression_list") || Right.is("tuple")) &&
      Left.namedChildren().size() == Right.namedChildren().size()) {
    auto Ls = Left.namedChildren(), Rs = Right.namedChildren();
    std::vector<Value> Values;
    for (PyNode R : Rs)
      Values.push_back(lowerExpr(R));
    for (size_t I = 0; I < Ls.size(); ++I) {
      if (isNoneLiteral(Rs[I])) {
        if (std::optional<NameId> N = nameOf(Ls[I]))
          killName(*N, kindOfName(Ls[I]), site(Stmt));
        continue;
      }
      assign(Ls[I], Values[I], Stmt);
    }
    return;
  }
  if (isNoneLiteral(Right)) {
    killElements(Left, Stmt);
    if (std::optional<NameId> N = nameOf(Left))
      killName(*N, kindOfName(Left), site(Stmt));
    return;
  }
  // Streams and events are created right into their name; a tensor is
  // allocated first and bound after (the old value is still alive while
  // the right-hand side runs).
  NameId Hint = NoId;
  if (std::optional<NameId> N = nameOf(Left)) {
    Hint = *N;
    ValueKind K = staticKind(Right);
    if (K != ValueKind::Stream && K != ValueKind::Event &&
        K != ValueKind::Work) {
      // Spell the temporary after the target.
      Value V = lowerExpr(Right, *N);
      assign(Left, V, Stmt);
      return;
    }
  }
  Value V = lowerExpr(Right, Hint);
  assign(Left, V, Stmt);
}

void FunctionLowering::lowerAugmentedAssignment(PyNode Stmt) {
  // `t += u` on a tensor is in place: a use of both.
  Value L = lowerExpr(Stmt.field("left"));
  Value R = lowerExpr(Stmt.field("right"));
  if (L.Kind == ValueKind::Tensor || R.Kind == ValueKind::Tensor)
    use({L, R}, current(), site(Stmt));
}

void FunctionLowering::lowerDelete(PyNode Stmt) {
  std::vector<PyNode> Targets;
  for (PyNode Child : Stmt.namedChildren()) {
    if (Child.is("expression_list") || Child.is("tuple"))
      for (PyNode T : Child.namedChildren())
        Targets.push_back(T);
    else
      Targets.push_back(Child);
  }
  for (PyNode Target : Targets) {
    killElements(Target, Stmt);
    if (std::optional<NameId> N = nameOf(Target))
      killName(*N, kindOfName(Target), site(Stmt));
  }
}

void FunctionLowering::lowerReturn(PyNode Stmt) {
  auto Children = Stmt.namedChildren();
  if (!Children.empty() && Def) {
    Value V = lowerExpr(Children.front());
    if (V.Name != NoId && V.Kind != ValueKind::Stream) {
      if (F.Return == NoId)
        F.Return = M.addName({"<return>", Id, NoId});
      ir::Inst &I = emit(V.IsTemp ? OpKind::Move : OpKind::Bind, site(Stmt));
      I.Names = {F.Return, V.Name};
      I.Value = V.Kind == ValueKind::Event ? ir::ValueKind::Event
                                           : ir::ValueKind::Buffer;
    }
  }
  endStatement();
  jumpTo(F.Exit);
}

bool FunctionLowering::isHostSync(PyNode Stmt) {
  if (!Stmt.is("expression_statement") || Stmt.namedChildren().empty())
    return false;
  PyNode Call = Stmt.namedChildren().front();
  if (!Call.is("call"))
    return false;
  PyNode Callee = Call.field("function");
  if (const PyApiRow *Row = classifyFunction(qualifiedCallee(File, Callee)))
    return Row->Op == PyOp::SyncDevice;
  return false;
}

bool FunctionLowering::isReleaseStatement(PyNode Stmt) {
  if (Stmt.is("delete_statement"))
    return true;
  if (!Stmt.is("expression_statement") || Stmt.namedChildren().empty())
    return false;
  PyNode A = Stmt.namedChildren().front();
  return A.is("assignment") && isNoneLiteral(A.field("right"));
}

void FunctionLowering::lowerStatements(const std::vector<PyNode> &Stmts) {
  for (size_t I = 0; I < Stmts.size(); ++I) {
    // `del t` directly followed by `torch.cuda.synchronize()`: no Python
    // code runs between the two, so nothing can be handed the block before
    // the host has waited for the device. Lower it as sync-then-release.
    if (I + 1 < Stmts.size() && isReleaseStatement(Stmts[I]) &&
        isHostSync(Stmts[I + 1])) {
      lowerStatement(Stmts[I + 1]);
      lowerStatement(Stmts[I]);
      ++I;
      continue;
    }
    lowerStatement(Stmts[I]);
  }
}

void FunctionLowering::lowerBlock(PyNode Block) {
  if (!Block)
    return;
  lowerStatements(Block.namedChildren());
}

/// `x is None` / `x is not None`: the name x and whether the test is true
/// when x is None.
std::optional<std::pair<PyNode, bool>> noneTest(PyNode Condition) {
  if (Condition.is("parenthesized_expression") &&
      !Condition.namedChildren().empty())
    return noneTest(Condition.namedChildren().front());
  if (!Condition.is("comparison_operator"))
    return std::nullopt;
  auto Operands = Condition.namedChildren();
  if (Operands.size() != 2 || !isNoneLiteral(Operands[1]))
    return std::nullopt;
  llvm::StringRef Between =
      Condition.text()
          .slice(Operands[0].endByte() - Condition.startByte(),
                 Operands[1].startByte() - Condition.startByte())
          .trim();
  if (Between == "is")
    return std::make_pair(Operands[0], true);
  if (Between == "is not")
    return std::make_pair(Operands[0], false);
  return std::nullopt;
}

void FunctionLowering::assumeNone(PyNode Name, PyNode At) {
  // On the branch where `x is None`, x holds no object: the paths on which
  // it held one do not come this way, yet the join of the loop head says it
  // may. Rebinding x there would "release" an object that is not x's on
  // this path (the keepalive of the seed's keep_ref). The IR has no "forget
  // this name" operation, so the objects x may hold escape here: nothing is
  // reported about them afterwards (a missed bug on the keepalive itself is
  // possible; a false one is not). A core op that drops the name without a
  // release would keep them checked.
  ir::Inst I;
  I.Kind = OpKind::Escape;
  I.Site = site(At);
  if (std::optional<NameId> N = nameOf(Name))
    I.Names.push_back(*N);
  // A packed tuple's elements go with it.
  if (Name.is("identifier")) {
    auto Arity = TupleArity.find(Name.text().str());
    if (Arity != TupleArity.end())
      for (size_t E = 0; E < Arity->second; ++E)
        I.Names.push_back(local(elementSpelling(Name, E)));
  }
  if (!I.Names.empty())
    F.Blocks[Cur].Insts.push_back(std::move(I));
}

void FunctionLowering::lowerIf(PyNode Stmt) {
  PyNode Condition = Stmt.field("condition");
  lowerExpr(Condition);
  endStatement();
  std::optional<std::pair<PyNode, bool>> Refine = noneTest(Condition);
  unsigned Join = newBlock();
  unsigned Then = newBlock();
  edge(Cur, Then);
  unsigned Decide = Cur;
  Cur = Then;
  if (Refine && Refine->second)
    assumeNone(Refine->first, Condition);
  lowerBlock(Stmt.field("consequence"));
  edge(Cur, Join);
  Cur = newBlock();
  edge(Decide, Cur);
  if (Refine && !Refine->second)
    assumeNone(Refine->first, Condition);
  bool HasElse = false;
  for (PyNode Alt : Stmt.fields("alternative")) {
    if (Alt.is("elif_clause")) {
      lowerExpr(Alt.field("condition"));
      endStatement();
      unsigned Body = newBlock();
      edge(Cur, Body);
      unsigned Next = newBlock();
      edge(Cur, Next);
      Cur = Body;
      lowerBlock(Alt.field("consequence"));
      edge(Cur, Join);
      Cur = Next;
    } else {
      lowerBlock(Alt.field("body"));
      edge(Cur, Join);
      HasElse = true;
    }
  }
  if (!HasElse)
    edge(Cur, Join);
  Cur = Join;
}

void FunctionLowering::lowerFor(PyNode Stmt) {
  lowerExpr(Stmt.field("right"));
  endStatement();
  unsigned Header = newBlock(), After = newBlock();
  edge(Cur, Header);
  Cur = Header;
  unsigned Body = newBlock();
  edge(Header, Body);
  Cur = Body;
  // Each iteration binds the loop variables to an element we do not track.
  assign(Stmt.field("left"), Value(), Stmt.field("left"));
  Loops.push_back({Header, After, Stmt});
  lowerBlock(Stmt.field("body"));
  Loops.pop_back();
  endStatement();
  edge(Cur, Header);
  Cur = Header;
  if (PyNode Else = Stmt.field("alternative")) {
    unsigned ElseBlock = newBlock();
    edge(Header, ElseBlock);
    Cur = ElseBlock;
    lowerBlock(Else.field("body"));
  }
  edge(Cur, After);
  Cur = After;
}

void FunctionLowering::lowerWhile(PyNode Stmt) {
  unsigned Header = newBlock(), After = newBlock();
  edge(Cur, Header);
  Cur = Header;
  lowerExpr(Stmt.field("condition"));
  endStatement();
  unsigned Test = Cur;
  unsigned Body = newBlock();
  edge(Test, Body);
  Cur = Body;
  Loops.push_back({Header, After, Stmt});
  lowerBlock(Stmt.field("body"));
  Loops.pop_back();
  endStatement();
  edge(Cur, Header);
  Cur = Test;
  if (PyNode Else = Stmt.field("alternative")) {
    unsigned ElseBlock = newBlock();
    edge(Test, ElseBlock);
    Cur = ElseBlock;
    lowerBlock(Else.field("body"));
  }
  edge(Cur, After);
  Cur = After;
}

void FunctionLowering::lowerTry(PyNode Stmt) {
  // Any handler may run after any prefix of the body: edges from the body's
  // entry and from its end. `finally` runs after the body, the handlers and
  // the else block.
  unsigned Entry = newBlock();
  edge(Cur, Entry);
  Cur = Entry;
  lowerBlock(Stmt.field("body"));
  unsigned BodyEnd = Cur;
  std::vector<unsigned> Ends;
  PyNode Finally;
  for (PyNode Clause : Stmt.namedChildren()) {
    if (Clause.is("except_clause") || Clause.is("except_group_clause")) {
      unsigned Handler = newBlock();
      edge(Entry, Handler);
      edge(BodyEnd, Handler);
      Cur = Handler;
      for (PyNode Part : Clause.namedChildren())
        if (Part.is("block"))
          lowerBlock(Part);
      Ends.push_back(Cur);
    } else if (Clause.is("else_clause")) {
      unsigned Else = newBlock();
      edge(BodyEnd, Else);
      Cur = Else;
      lowerBlock(Clause.field("body"));
      BodyEnd = Cur;
    } else if (Clause.is("finally_clause")) {
      Finally = Clause;
    }
  }
  Ends.push_back(BodyEnd);
  unsigned Join = newBlock();
  for (unsigned End : Ends)
    edge(End, Join);
  Cur = Join;
  if (Finally)
    for (PyNode Part : Finally.namedChildren())
      if (Part.is("block"))
        lowerBlock(Part);
}

void FunctionLowering::lowerWith(PyNode Stmt) {
  size_t Depth = CurrentStack.size();
  for (PyNode Clause : Stmt.namedChildren()) {
    if (!Clause.is("with_clause"))
      continue;
    for (PyNode Item : Clause.namedChildren()) {
      PyNode V = Item.field("value");
      PyNode Target;
      if (V.is("as_pattern")) {
        auto Parts = V.namedChildren();
        for (PyNode P : Parts)
          if (P.is("as_pattern_target") && !P.namedChildren().empty())
            Target = P.namedChildren().front();
        V = Parts.empty() ? PyNode() : Parts.front();
      }
      // `with torch.cuda.stream(s):` / `with s:` (torch.Stream is a context
      // manager too): s is the current stream inside.
      const PyApiRow *Row =
          V.is("call")
              ? classifyFunction(qualifiedCallee(File, V.field("function")))
              : nullptr;
      if (Row && Row->Op == PyOp::StreamContext) {
        PyNode S = CallArguments(V).find(Row->Stream);
        CurrentStack.push_back(S && !isNoneLiteral(S) ? resolveStream(S)
                                                     : current());
        continue;
      }
      if ((V.is("identifier") || V.is("attribute")) &&
          kindOfName(V) == ValueKind::Stream) {
        CurrentStack.push_back(resolveStream(V));
        continue;
      }
      Value Entered = lowerExpr(V);
      if (Target)
        assign(Target, Value{Entered.Kind, NoId, false, {}}, Item);
    }
  }
  endStatement();
  lowerBlock(Stmt.field("body"));
  CurrentStack.resize(Depth);
}

void FunctionLowering::lowerMatch(PyNode Stmt) {
  lowerExpr(Stmt.field("subject"));
  endStatement();
  unsigned Decide = Cur, Join = newBlock();
  for (PyNode Case : Stmt.field("body").namedChildren()) {
    unsigned Body = newBlock();
    edge(Decide, Body);
    Cur = Body;
    lowerBlock(Case.field("consequence"));
    edge(Cur, Join);
  }
  edge(Decide, Join); // no case matched
  Cur = Join;
}

void FunctionLowering::lowerStatement(PyNode Stmt) {
  llvm::StringRef K = Stmt.kind();
  if (K == "expression_statement") {
    for (PyNode E : Stmt.namedChildren()) {
      if (E.is("assignment"))
        lowerAssignment(E);
      else if (E.is("augmented_assignment"))
        lowerAugmentedAssignment(E);
      else
        lowerExpr(E);
    }
  } else if (K == "delete_statement") {
    lowerDelete(Stmt);
  } else if (K == "return_statement") {
    lowerReturn(Stmt);
    return;
  } else if (K == "if_statement") {
    lowerIf(Stmt);
  } else if (K == "for_statement") {
    lowerFor(Stmt);
  } else if (K == "while_statement") {
    lowerWhile(Stmt);
  } else if (K == "try_statement") {
    lowerTry(Stmt);
  } else if (K == "with_statement") {
    lowerWith(Stmt);
  } else if (K == "match_statement") {
    lowerMatch(Stmt);
  } else if (K == "break_statement" || K == "continue_statement") {
    endStatement();
    if (!Loops.empty())
      jumpTo(K == "break_statement" ? Loops.back().Break
                                    : Loops.back().Continue);
    return;
  } else if (K == "raise_statement") {
    for (PyNode E : Stmt.namedChildren())
      lowerExpr(E);
    endStatement();
    // The path ends here; what it leaves behind is the handler's business.
    Cur = newBlock();
    return;
  } else if (K == "assert_statement") {
    for (PyNode E : Stmt.namedChildren())
      lowerExpr(E);
  } else if (K == "decorated_definition" || K == "function_definition" ||
             K == "class_definition" || K == "import_statement" ||
             K == "import_from_statement" || K == "future_import_statement" ||
             K == "global_statement" || K == "nonlocal_statement" ||
             K == "pass_statement" || K == "comment") {
    // Nothing to run here (nested definitions are not analysed).
  }
  endStatement();
}

void FunctionLowering::lowerFunction() {
  PyNode Node = Def->Node;
  F.Name = Def->QualifiedName;
  F.Site = site(Node.field("name"));
  F.Entry = newBlock();
  F.Exit = newBlock();
  Cur = F.Entry;
  for (const std::string &P : Def->Params)
    if (!P.empty())
      ParamNames.insert(P);
  // Parameter kinds from annotations.
  for (PyNode Param : Node.field("parameters").namedChildren()) {
    if (!Param.is("typed_parameter") && !Param.is("typed_default_parameter"))
      continue;
    PyNode Name = Param.is("typed_parameter") ? Param.namedChildren().front()
                                              : Param.field("name");
    llvm::StringRef Type = Param.field("type").text();
    ValueKind K = ValueKind::Unknown;
    if (Type == "int" || Type == "float" || Type == "str" || Type == "bool")
      K = ValueKind::Other;
    else if (Type.ends_with("Tensor"))
      K = ValueKind::Tensor;
    else if (Type.ends_with("Stream"))
      K = ValueKind::Stream;
    else if (Type.ends_with("Event"))
      K = ValueKind::Event;
    else if (PyClassDef *C = Ctx.Set.findClass(File, Type))
      LocalClasses[Name.text().str()] = C;
    if (K != ValueKind::Unknown)
      LocalKinds[Name.text().str()] = K;
  }
  scanLocals(Node.field("body"));
  for (const std::string &P : Def->Params)
    F.Params.push_back(P.empty() ? NoId : local(P));
  EntryCurrent = M.addName({UnnamedCurrentStream.str(), Id, NoId});
  F.Params.push_back(EntryCurrent);
  CurrentStack.push_back(StreamRef::named(EntryCurrent));

  lowerBlock(Node.field("body"));
  endStatement();
  edge(Cur, F.Exit);

  // Leaving the function drops the references its locals hold.
  Cur = F.Exit;
  PyNode Body = Node.field("body");
  SiteId ExitSite = NoId;
  for (const auto &[Spelling, Name] : Locals) {
    if (Name == NoId || ParamNames.count(Spelling))
      continue;
    // `x.attr`, `x[0]`: parts of objects that may outlive the function
    // (x a loop variable over a member list). Only plain locals and the
    // elements of tuples the function packed die with it.
    llvm::StringRef Base = llvm::StringRef(Spelling).take_until(
        [](char C) { return C == '.' || C == '['; });
    if (Base.size() != Spelling.size() &&
        (Spelling.find('.') != std::string::npos || !TupleArity.count(Base.str())))
      continue;
    ValueKind K = LocalKinds.count(Spelling) ? LocalKinds[Spelling]
                                             : ValueKind::Unknown;
    if (K == ValueKind::Stream || K == ValueKind::Other)
      continue;
    if (ExitSite == NoId) {
      ir::Site S;
      S.File = File.Source->path();
      S.Line = Body.endLine();
      S.Column = 1;
      S.Spelling = "end of '" + Def->QualifiedName + "'";
      S.Order = (uint64_t(File.Index) << 32) | Body.endByte();
      ExitSite = M.addSite(std::move(S));
    }
    killName(Name, K, ExitSite);
  }
}

void FunctionLowering::lowerModuleBody() {
  IsModuleBody = true;
  PyNode Root = File.Source->root();
  F.Name = "<module>";
  F.Site = site(Root, "<module>");
  F.Entry = newBlock();
  F.Exit = newBlock();
  Cur = F.Entry;
  scanLocals(Root);
  EntryCurrent = M.addName({UnnamedCurrentStream.str(), Id, NoId});
  F.Params.push_back(EntryCurrent);
  CurrentStack.push_back(StreamRef::named(EntryCurrent));
  lowerBlock(Root);
  endStatement();
  edge(Cur, F.Exit);
}

} // namespace

LoweredPython lowerPython(PyModuleSet &Set) {
  LoweredPython Out;
  LoweringContext Ctx{Set, Out, {}, {}, {}};
  // Ids first, so that calls can name functions not lowered yet.
  std::vector<std::pair<const PyFunctionDef *, const PyFile *>> Order;
  for (const auto &File : Set.files()) {
    for (const auto &Function : File->Functions) {
      Ctx.Ids[Function.get()] = Out.Module.Functions.size();
      Out.Module.Functions.emplace_back();
      Order.push_back({Function.get(), File.get()});
    }
  }
  ir::FunctionId Body = Out.Module.Functions.size();
  Out.Module.Functions.emplace_back();
  for (auto [Function, File] : Order) {
    ir::FunctionId Id = Ctx.Ids[Function];
    FunctionLowering(Ctx, *File, Function, Id).lowerFunction();
    if (File->Index == 0)
      Out.Checked.push_back(Id);
  }
  FunctionLowering(Ctx, Set.main(), nullptr, Body).lowerModuleBody();
  Out.Checked.push_back(Body);
  return Out;
}

} // namespace streamlife::python
