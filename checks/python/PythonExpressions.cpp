//===--- PythonExpressions.cpp - streamlife -------------------------------===//
//
// FunctionLowering, expressions: names and calls become IR operations. Calls
// are classified by the API table (streams, events, tensors, collectives),
// by the module set (local functions and methods: ir::Call with the caller's
// current stream as the last argument), or are unknown (their tensor
// arguments escape).
//
//===----------------------------------------------------------------------===//

#include "PythonFunctionLowering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace streamlife::python::lowering {

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
  if (Expr.is("identifier") || Expr.is("attribute")) {
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
    if (!qualified(Expr).empty())
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

Value FunctionLowering::allocate(PyNode At, NameId Hint, bool EnqueuesNothing) {
  SiteId Site = site(At);
  NameId Result = temp(Hint != NoId ? M.name(Hint).Spelling : At.text(), Site);
  ir::Inst &I = emit(OpKind::Allocate, Site);
  I.Names.push_back(Result);
  I.Stream = current();
  I.Own = ir::Ownership::Owned;
  I.Caching = true; // PyTorch's caching allocator
  I.EnqueuesNothing = EnqueuesNothing;
  return {ValueKind::Tensor, Result, true, {}};
}

std::vector<Value> FunctionLowering::lowerArguments(PyNode Call) {
  std::vector<Value> Values;
  // A list or tuple display's elements are operands of the call, each of
  // its own (`torch.cat([a, b])`, `dist.all_to_all([out], [in])`,
  // `torch._foreach_add_((a, b), 1)`): the display itself is no tensor.
  std::function<void(PyNode)> Lower = [&](PyNode E) {
    PyNode Inner = withoutParentheses(E);
    if (Inner.is("list") || Inner.is("tuple")) {
      for (PyNode Element : Inner.namedChildren())
        Lower(Element);
      return;
    }
    Values.push_back(lowerExpr(E));
  };
  PyNode List = Call.field("arguments");
  for (PyNode Arg : List.namedChildren()) {
    PyNode E = Arg.is("keyword_argument") ? Arg.field("value") : Arg;
    if (Arg.is("list_splat") || Arg.is("dictionary_splat"))
      E = Arg.namedChildren().empty() ? PyNode() : Arg.namedChildren().front();
    if (E)
      Lower(E);
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
      Expr.is("parenthesized_expression") || Expr.is("expression_list") ||
      Expr.is("list_splat") || Expr.is("dictionary_splat")) {
    for (PyNode Child : Expr.namedChildren())
      collectContained(Child, Names);
    return;
  }
  // `args + [buf]`: a concatenation with a list or tuple display holds the
  // display's elements (`a + b` of tensors is a new tensor: not this).
  std::function<bool(PyNode)> Concatenates = [&](PyNode E) {
    E = withoutParentheses(E);
    if (E.is("list") || E.is("tuple"))
      return true;
    return E.is("binary_operator") && E.field("operator").text() == "+" &&
           (Concatenates(E.field("left")) || Concatenates(E.field("right")));
  };
  if (Expr.is("binary_operator") && Concatenates(Expr)) {
    collectContained(Expr.field("left"), Names);
    collectContained(Expr.field("right"), Names);
    return;
  }
  // A list or deque handed to code we cannot see: its entries may be popped
  // and released (or kept) there.
  if (ContainerInfo *C = containerOf(Expr))
    Names.push_back(C->Entries);
  if (Expr.is("identifier") || Expr.is("attribute"))
    if (mayHoldBuffer(kindOfName(Expr)))
      if (std::optional<NameId> N = nameOf(Expr))
        Names.push_back(*N);
}

/// Calls that keep their arguments: a container's or a registry's mutators,
/// autograd's saved tensors, constructors of classes we cannot see (the
/// object may hold the tensor). What is stored there lives on untracked.
static bool keepsArguments(PyNode Call) {
  PyNode Callee = Call.field("function");
  llvm::StringRef Name = Callee.is("attribute")
                             ? Callee.field("attribute").text()
                             : Callee.text();
  static const llvm::StringSet<> Keeping = {
      "append", "appendleft", "extend", "insert", "add", "put", "put_nowait",
      "setdefault", "update", "push", "register_buffer", "register_parameter",
      "save_for_backward", "mark_dirty", "__setitem__", "setattr", "partial",
      "Thread", "submit", "apply_async", "record", "cache", "store", "stash"};
  if (Keeping.count(Name))
    return true;
  // `Bucket(params, grad)`: a class (PEP 8 names), made with what it keeps.
  return !Name.empty() && llvm::isUpper(Name.front()) &&
         llvm::any_of(Name, [](char C) { return llvm::isLower(C); });
}

std::optional<NameId> FunctionLowering::addressOf(PyNode Expr) {
  Expr = withoutParentheses(Expr);
  if (!Expr.is("call") || !Expr.field("arguments").namedChildren().empty())
    return std::nullopt;
  PyNode Callee = Expr.field("function");
  if (!Callee.is("attribute") || Callee.field("attribute").text() != "data_ptr")
    return std::nullopt;
  PyNode Tensor = Callee.field("object");
  if (!(Tensor.is("identifier") || Tensor.is("attribute")) ||
      !mayHoldBuffer(kindOfName(Tensor)))
    return std::nullopt;
  return nameOf(Tensor);
}

bool FunctionLowering::runsNoDeviceWork(llvm::StringRef Qualified,
                                        const std::vector<Value> &Operands) {
  // A timer read between a host synchronization and an allocation
  // (`time.perf_counter()`), a path, a log line. Handed a tensor, any of
  // them may format or convert it: device work on the current stream.
  if (!isHostOnlyLibraryFunction(Qualified))
    return false;
  for (const Value &V : Operands)
    if (V.Name != NoId && mayHoldBuffer(V.Kind))
      return false;
  return true;
}

std::optional<Value> FunctionLowering::lowerModuleObjectCall(PyNode Call,
                                                            llvm::StringRef Receiver) {
  // A logger made at module level and used in every function: its calls
  // between a host synchronization and an allocation are as harmless as
  // `logging.info(...)` (PY-F21). A local or a parameter of that name is
  // another object.
  if (BoundNames.count(Receiver) || ParamNames.count(Receiver))
    return std::nullopt;
  const auto &Objects = File.Definitions->ModuleObjects;
  auto Made = Objects.find(Receiver);
  if (Made == Objects.end())
    return std::nullopt;
  std::string Maker = qualifiedCallee(File, Made->second.field("function"));
  if (!isHostOnlyLibraryFunction(Maker))
    return std::nullopt;
  std::vector<Value> Operands = lowerArguments(Call);
  if (runsNoDeviceWork(Maker, Operands))
    return other();
  return lowerUnknownCall(Call, Operands);
}

Value FunctionLowering::lowerUnknownCall(PyNode Call,
                                         const std::vector<Value> &Operands) {
  // A function we cannot see: a kernel launcher, a layer, a wrapper. Inside
  // a stream context its tensor arguments are used on that stream (what
  // such a function does with a tensor, it does on the current stream).
  // Outside, it is no ordering, and a use only of the parameters' tensors
  // (below). Either way the tensors stay tracked, unless the call keeps them
  // (keepsArguments) or they are a container's entries, which the callee may
  // pop and drop.
  SiteId Site = Call ? site(Call) : NoId;
  // Whatever it does on the current stream, it may release temporaries
  // there.
  emit(OpKind::UnseenWork, Site).Stream = current();
  llvm::SmallVector<NameId, 4> Passed;
  for (const Value &V : Operands) {
    if (V.Name != NoId && mayHoldBuffer(V.Kind))
      Passed.push_back(V.Name);
    // An event handed to it may be recorded there, at a point we cannot
    // see: unknown from here on.
    if (V.Name != NoId && V.Kind == ValueKind::Event) {
      ir::Inst &Unknown = emit(OpKind::Bind, Site);
      Unknown.Names = {V.Name, NoId};
      Unknown.Value = ir::ValueKind::Event;
    }
  }
  llvm::SmallVector<NameId, 4> Contained, Addressed;
  if (Call)
    for (PyNode Arg : Call.field("arguments").namedChildren()) {
      PyNode Value = Arg.is("keyword_argument") ? Arg.field("value") : Arg;
      collectContained(Value, Contained);
      // `launch(out.data_ptr(), n, stream)`: a launcher handed a tensor's
      // device address (ctypes, TVM FFI, CuPy) uses the tensor as if it had
      // been handed the tensor.
      if (std::optional<NameId> N = addressOf(Value))
        Addressed.push_back(*N);
    }
  ir::Inst Gone;
  Gone.Kind = OpKind::Escape;
  Gone.Site = Site;
  bool Keeps = Call && keepsArguments(Call);
  for (NameId N : Contained)
    if (Keeps || llvm::none_of(Containers, [&](const auto &Entry) {
          return Entry.second.Entries == N;
        }))
      Passed.push_back(N); // a display's elements: passed along
    else
      Gone.Names.push_back(N); // a container's entries
  if (Keeps) {
    Gone.Names.append(Passed.begin(), Passed.end());
    Passed.clear();
  }
  // A call that keeps what it is given (`addresses.add(t.data_ptr())`)
  // keeps a number: neither the tensor nor a use of it.
  if (!Keeps)
    for (NameId N : Addressed)
      if (!llvm::is_contained(Passed, N))
        Passed.push_back(N);
  if (!Gone.Names.empty())
    F.Blocks[Cur].Insts.push_back(std::move(Gone));
  // Outside a stream context, a function's parameters passed on are used on
  // its entry stream: whatever stream its caller made current. That is no use
  // to the function's own analysis, which knows nothing of the parameters'
  // streams, but its summary carries it to a caller that calls it under
  // `with torch.cuda.stream(s)`, where an unknown call would have used the
  // same tensors on s.
  if (!insideStreamContext())
    Passed.erase(llvm::remove_if(Passed,
                                 [&](NameId N) {
                                   return !ParamNames.count(M.name(N).Spelling);
                                 }),
                 Passed.end());
  if (!Passed.empty() && Site != NoId) {
    ir::Inst Use;
    Use.Kind = OpKind::Use;
    Use.Site = Site;
    Use.Stream = current();
    for (NameId N : Passed)
      if (!llvm::is_contained(Use.Names, N))
        Use.Names.push_back(N);
    F.Blocks[Cur].Insts.push_back(std::move(Use));
  }
  Value Result;
  Result.UnknownCall = Site;
  return Result;
}

Value FunctionLowering::lowerComprehension(PyNode Expr) {
  // Everything after the first iterable runs once an element: a loop for
  // streamlife-record-stream-in-loop (`[t.record_stream(s) for t in ts]`).
  // An expression has no break or continue, so the targets are never jumped to.
  size_t Depth = Loops.size();
  for (PyNode Clause : Expr.namedChildren()) {
    if (Clause.is("for_in_clause")) {
      std::vector<PyNode> Iterables = Clause.fields("right");
      for (PyNode Iterable : Iterables)
        lowerExpr(Iterable);
      if (Loops.size() == Depth)
        Loops.push_back({Cur, Cur, Expr});
      PyNode Target = Clause.field("left");
      if (Iterables.size() != 1 ||
          !assignFromContainer(Target, Iterables.front(), Target))
        assign(Target, Value(), Target);
    } else if (Clause.is("if_clause") && !Clause.namedChildren().empty()) {
      lowerExpr(Clause.namedChildren().front());
    }
  }
  PyNode Body = Expr.field("body");
  Value Result;
  if (Body.is("pair")) { // {k: v for ...}
    lowerExpr(Body.field("key"));
    Result = lowerExpr(Body.field("value"));
  } else {
    Result = lowerExpr(Body);
  }
  Loops.resize(Depth);
  return Result;
}

void FunctionLowering::bindConstructorStreams(const PyClassDef &Class,
                                              const PyFunctionDef &Init,
                                              PyNode Call) {
  if (Init.Params.empty())
    return;
  CallArguments Args(Call);
  for (PyNode Stmt : Init.Node.field("body").namedChildren()) {
    if (!Stmt.is("expression_statement") || Stmt.namedChildren().empty())
      continue;
    PyNode A = Stmt.namedChildren().front();
    if (!A.is("assignment"))
      continue;
    PyNode Left = A.field("left"), Right = A.field("right");
    if (!Left.is("attribute") || !Right.is("identifier") ||
        Left.field("object").text() != Init.Params.front())
      continue;
    auto Param = std::find(Init.Params.begin() + 1, Init.Params.end(),
                           Right.text());
    if (Param == Init.Params.end())
      continue;
    int Position = int(Param - Init.Params.begin()) - 1;
    PyNode Arg = Args.find(PyOperand{Position, Right.text()});
    if (!Arg || !(Arg.is("identifier") || Arg.is("attribute")) ||
        kindOfName(Arg) != ValueKind::Stream)
      continue;
    StreamRef S = resolveStream(Arg);
    if (S.Kind != StreamRef::Named)
      continue;
    std::string Attr = Left.field("attribute").text().str();
    ir::Inst &I = emit(OpKind::Bind, site(Call));
    I.Names = {Ctx.shared("a:" + Class.Name + "." + Attr, "self." + Attr),
               S.Name};
    I.Value = ir::ValueKind::Stream;
  }
}

std::optional<Value> FunctionLowering::displayArgument(PyNode Arg) {
  auto isDisplay = [](PyNode E) {
    return E.is("dictionary") || E.is("list") || E.is("tuple") || E.is("set");
  };
  PyNode Display = withoutParentheses(Arg);
  if (!isDisplay(Display))
    return std::nullopt;
  llvm::SmallVector<NameId, 4> Held;
  std::function<void(PyNode)> Collect = [&](PyNode E) {
    E = withoutParentheses(E);
    if (isDisplay(E)) {
      for (PyNode Element : E.namedChildren())
        Collect(Element);
      return;
    }
    if (E.is("pair")) {
      lowerExpr(E.field("key"));
      Collect(E.field("value"));
      return;
    }
    if (E.is("comment"))
      return;
    Value V = lowerExpr(E);
    if (V.Name != NoId && mayHoldBuffer(V.Kind))
      Held.push_back(V.Name);
  };
  Collect(Display);
  if (Held.empty())
    return other();
  SiteId Site = site(Display);
  NameId Entries = temp(Display.text(), Site);
  ir::Inst &I = emit(OpKind::Store, Site);
  I.Names.push_back(Entries);
  I.Names.append(Held.begin(), Held.end());
  return Value{ValueKind::Unknown, Entries, true, {}};
}

std::optional<NameId> FunctionLowering::parameterEntries(PyNode Expr) {
  Expr = withoutParentheses(Expr);
  // `tensors.values()`, `inputs.get(key)`, `inputs.get(key, default)`.
  if (Expr.is("call") && Expr.field("function").is("attribute")) {
    llvm::StringRef Method = Expr.field("function").field("attribute").text();
    if (Method != "values" && Method != "get")
      return std::nullopt;
    Expr = Expr.field("function").field("object");
  } else if (Expr.is("subscript")) {
    Expr = Expr.field("value");
  }
  if (!Expr.is("identifier") || !ParamNames.count(Expr.text()) ||
      AssignmentCount[Expr.text().str()] != 0 ||
      !mayHoldBuffer(kindOfName(Expr)))
    return std::nullopt;
  return nameOf(Expr);
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
  size_t FirstPositional = Next;
  CallArguments Arguments(Call);
  for (PyNode Arg : Arguments.Positional) {
    if (std::optional<Value> Held = displayArgument(Arg)) {
      bind(Next++, *Held);
      continue;
    }
    Value V = lowerExpr(Arg);
    if (kindOfName(Arg) == ValueKind::Stream || V.Kind == ValueKind::Stream) {
      V.Kind = ValueKind::Stream;
      V.Stream = resolveStream(Arg);
    }
    bind(Next++, V);
  }
  for (const auto &[Keyword, Arg] : Arguments.Keywords) {
    std::optional<Value> Held = displayArgument(Arg);
    Value V = Held ? *Held : lowerExpr(Arg);
    if (!Held &&
        (kindOfName(Arg) == ValueKind::Stream || V.Kind == ValueKind::Stream)) {
      V.Kind = ValueKind::Stream;
      V.Stream = resolveStream(Arg);
    }
    for (size_t I = 0; I < NumParams; ++I)
      if (Callee.Params[I] == Keyword)
        bind(I, V);
  }
  Args[NumParams].Stream = current();
  SiteId Site = site(Call);
  NameId Result =
      temp(Hint != NoId ? M.name(Hint).Spelling : Call.text(), Site);
  ir::Inst &I = emit(OpKind::Call, Site);
  I.Callee = specializedCallee(Callee, Found->second, Call, FirstPositional);
  I.Names.push_back(Result);
  I.Args.assign(Args.begin(), Args.end());
  if (!Loops.empty())
    Ctx.CallsInLoops.push_back({Site, &File, Loops.back().Node, I.Callee,
                                ReportRecordStream && Fixed.empty()});
  return {ValueKind::Unknown, Result, true, {}};
}

ir::FunctionId FunctionLowering::specializedCallee(const PyFunctionDef &Callee,
                                                   ir::FunctionId Generic,
                                                   PyNode Call,
                                                   size_t FirstPositional) {
  PyNode Body = Callee.Node.field("body");
  auto [Tested, Inserted] = Ctx.TestedParameters.try_emplace(&Callee);
  if (Inserted) {
    llvm::StringSet<> Params;
    for (const std::string &P : Callee.Params)
      if (!P.empty())
        Params.insert(P);
    Tested->second = testedParameters(Body, Params);
  }
  if (Tested->second.empty())
    return Generic;
  // `f(*args)`, `f(**options)`: which parameter gets what is not known.
  if (PyNode List = Call.field("arguments"); List.is("argument_list"))
    for (PyNode Arg : List.namedChildren())
      if (Arg.is("list_splat") || Arg.is("dictionary_splat"))
        return Generic;
  CallArguments Arguments(Call);
  ValueClass Class;
  // The parameters as declared: positional ones until `*` or `*args`.
  size_t Position = 0;
  bool KeywordOnly = false;
  for (PyNode Param : Callee.Node.field("parameters").namedChildren()) {
    if (Param.is("list_splat_pattern") || Param.is("keyword_separator")) {
      KeywordOnly = true;
      continue;
    }
    if (Param.is("dictionary_splat_pattern") ||
        Param.is("positional_separator"))
      continue;
    bool HasDefault =
        Param.is("default_parameter") || Param.is("typed_default_parameter");
    PyNode Name = HasDefault ? Param.field("name")
                  : Param.is("typed_parameter") && !Param.namedChildren().empty()
                      ? Param.namedChildren().front()
                      : Param;
    size_t Index = Position++;
    if (!Name.is("identifier") || !Tested->second.count(Name.text()))
      continue;
    PyNode Arg;
    if (!KeywordOnly && Index >= FirstPositional &&
        Index - FirstPositional < Arguments.Positional.size())
      Arg = Arguments.Positional[Index - FirstPositional];
    else
      Arg = Arguments.keyword(Name.text());
    std::optional<ClassValue> V;
    if (Arg)
      V = knownValue(Arg, Assumed);
    else if (HasDefault)
      V = knownValue(Param.field("value"), nullptr); // left alone
    if (V)
      Class.emplace(Name.text().str(), *V);
  }
  if (Class.empty())
    return Generic;
  return Ctx.specialization(&Callee, std::move(Class), Generic);
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
    StreamConstructors.insert(Call.id());
    NameId Target = Hint != NoId ? Hint : temp("stream", site(Call));
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
    NameId Target = Hint != NoId ? Hint : temp("event", site(Call));
    ir::Inst &I = emit(OpKind::Bind, site(Call));
    I.Names = {Target, NoId};
    I.Value = ir::ValueKind::Event;
    I.NewEvent = true;
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
                                     : (Hint != NoId ? Hint : temp("event", site(Call)));
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
    // A specialization is the function lowered again: its generic lowering
    // (every function of the checked file has one) reports the call.
    if (ReportRecordStream && Fixed.empty() && !Loops.empty()) {
      RecordStreamInLoop Finding{site(Call), Receiver.text().str(),
                                 site(Loops.back().Node)};
      // The copies of a body (one per value class) share their sites: the
      // call is reported once.
      auto &Found = Ctx.Out.RecordStreamInLoops;
      if (!Copies || std::none_of(Found.begin(), Found.end(), [&](const auto &R) {
            return R.Call == Finding.Call;
          }))
        Found.push_back(std::move(Finding));
    }
    // Ctx.site, not site: the copies of a body must ask for their sites
    // alike, and only the first copy to get here keeps the record.
    if (!Loops.empty())
      Ctx.LoopRecorders.insert(Id);
    else if (!Ctx.StreamRecords.count(Id))
      Ctx.StreamRecords[Id] = {Ctx.site(File, Call), Receiver.text().str()};
    StreamRef S = resolveStream(Args.find(Row.Stream));
    if (Recv.Name != NoId) {
      ir::Inst &I = emit(OpKind::RecordStream, site(Call));
      I.Names.push_back(Recv.Name);
      I.Stream = S;
    }
    return other();
  }
  case PyOp::Factory: {
    lowerArguments(Call);
    if (makesHostTensor(Call, /*DefaultsToHost=*/true))
      return hostTensor();
    Value Made = allocate(Call, Hint, allocatesOnly(Row));
    // `torch.tensor(data, device="cuda")` builds the tensor from host data
    // (a list, a tuple, a number, a numpy array) and copies it with a
    // blocking copy: the current stream is synchronized before it returns,
    // so its earlier work, the allocation included, is complete. (Copying
    // a device tensor this way is what PyTorch warns against; a call that
    // makes one is left alone.)
    if (Row.Pattern == "torch.tensor") {
      PyNode Data = withoutParentheses(Args.find(PyOperand{0, "data"}));
      if (Data && !(Data.is("call") && staticKind(Data) == ValueKind::Tensor)) {
        ir::Inst &I = emit(OpKind::SyncStream, site(Call));
        I.Stream = current();
      }
    }
    return Made;
  }
  case PyOp::FactoryLike: {
    std::vector<Value> Operands = lowerArguments(Call);
    // On the device of its operand (`t.new_empty(n)`: the receiver) unless
    // told otherwise.
    Value Source = Receiver ? Recv : Operands.empty() ? Value() : Operands.front();
    bool OnHost = Args.keyword("device") || Args.keyword("pin_memory")
                      ? makesHostTensor(Call, false)
                      : Source.Name == NoId ||
                            Source.Kind == ValueKind::HostTensor;
    if (OnHost)
      return hostTensor();
    return allocate(Call, Hint, allocatesOnly(Row));
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
      // A blocking copy to the host waits for the current stream; a
      // non-blocking one (into pinned memory) does not.
      PyNode NonBlocking = Args.keyword("non_blocking");
      if (!NonBlocking || !NonBlocking.is("true")) {
        ir::Inst &I = emit(OpKind::SyncStream, site(Call));
        I.Stream = current();
      }
      return hostTensor();
    }
    Operands.insert(Operands.begin(), Recv);
    use(Operands, current(), site(Call));
    return allocate(Call, Hint);
  }
  case PyOp::HostRead: {
    // `t.item()`, or `torch.equal(a, b)`: the operands are read on the
    // current stream and the host waits for the answer.
    std::vector<Value> Operands = lowerArguments(Call);
    if (Receiver)
      Operands = {Recv};
    use(Operands, current(), site(Call));
    ir::Inst &I = emit(OpKind::SyncStream, site(Call));
    I.Stream = current();
    // `t.cpu()` and `t.numpy()` give host memory, `item()`/`tolist()`
    // Python values: neither is a device block.
    return hostTensor();
  }
  case PyOp::PinMemory:
    lowerArguments(Call);
    return hostTensor();
  case PyOp::GraphCapture:
    // Only meaningful as a `with` item, which lowerWith handles.
    lowerArguments(Call);
    return other();
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
    // (qualifiedCallee returns a temporary: keep it alive while Short
    // points into it.)
    std::string Qualified = qualified(Call.field("function"));
    llvm::StringRef Short = llvm::StringRef(Qualified).rsplit('.').second;
    SiteId Site = site(Call);
    // ProcessGroupNCCL runs a synchronous collective on the caller's
    // current stream: an ordinary use there.
    if (!Async) {
      use(Operands, current(), Site);
      return other();
    }
    // An asynchronous one runs on the process group's own stream, which
    // first waits for the current stream. The work handle stashes the
    // inputs and outputs until the collective completes (wait() or the
    // watchdog), so dropping the last Python reference before the wait
    // releases nothing early: for the allocator the tensors are used on
    // that stream and kept past its work, as record_stream keeps them.
    StreamRef Comm =
        StreamRef::named(Ctx.shared("pg:" + Short.str(), Short));
    ir::Inst &Before = emit(OpKind::WaitStream, Site);
    Before.Stream = Comm;
    Before.Stream2 = current();
    use(Operands, Comm, Site);
    ir::Inst Keep;
    Keep.Kind = OpKind::RecordStream;
    Keep.Site = Site;
    Keep.Stream = Comm;
    for (const Value &V : Operands)
      if (V.Name != NoId && mayHoldBuffer(V.Kind))
        Keep.Names.push_back(V.Name);
    if (!Keep.Names.empty())
      F.Blocks[Cur].Insts.push_back(std::move(Keep));
    NameId Work = Hint != NoId ? Hint : temp("work", Site);
    ir::Inst &Record = emit(OpKind::RecordEvent, Site);
    Record.Stream = Comm;
    Record.Event = Work;
    return {ValueKind::Work, Work, Hint == NoId, {}};
  }
  case PyOp::Barrier: {
    lowerArguments(Call);
    PyNode A = Args.keyword(Row.Async.Keyword);
    if (!A || !A.is("true")) {
      ir::Inst &I = emit(OpKind::SyncStream, site(Call));
      I.Stream = current();
    }
    return other();
  }
  case PyOp::NoOp:
    lowerArguments(Call);
    return other();
  }
  return {};
}

Value FunctionLowering::lowerMethodCall(PyNode Call, PyNode Receiver,
                                        llvm::StringRef Method, NameId Hint) {
  // `q.append(t)`, `q.popleft()` on a local list or deque of tensors.
  if (std::optional<Value> Entry = lowerContainerCall(Call, Receiver, Method))
    return *Entry;
  // `inputs.get(key)`, `tensors.values()` of a parameter: what the caller
  // passed (a display's tensors), not an op on a tensor.
  if (std::optional<NameId> Entries = parameterEntries(Call)) {
    lowerArguments(Call);
    return {ValueKind::Unknown, *Entries, false, {}};
  }
  // A method of a local class: `self.gather(...)`, `p.forward(...)`.
  PyClassDef *Owner = classOf(Receiver);
  bool ReceiverIsModule =
      Receiver.is("identifier") && File.Imports.count(Receiver.text());
  if (!Owner && !ReceiverIsModule) {
    // A receiver of unknown kind whose method only the API table's name
    // says is a tensor's or a stream's (`batch.record_stream(s)`) is more
    // likely an object of the class here that defines that method.
    const PyApiRow *ByName = classifyMethod(Method, ValueKind::Unknown);
    bool NameOnly = ByName && kindOfName(Receiver) == ValueKind::Unknown &&
                    (ByName->Op == PyOp::RecordStream ||
                     ByName->Op == PyOp::RecordEvent ||
                     ByName->Op == PyOp::WaitEvent ||
                     ByName->Op == PyOp::WaitStream);
    if (!ByName || NameOnly)
      Owner = Ctx.Set.uniqueClassWithMethod(Method);
    // Several classes here define it: one of theirs, we cannot tell which.
    if (!Owner && NameOnly && Ctx.Set.anyClassWithMethod(Method)) {
      std::vector<Value> Operands = lowerArguments(Call);
      lowerExpr(Receiver);
      return lowerUnknownCall(Call, Operands);
    }
  }
  if (Owner)
    if (PyFunctionDef *Callee = Ctx.Set.findMethod(*Owner, Method)) {
      Value Self = lowerExpr(Receiver);
      return lowerLocalCall(*Callee, Call, Self, Hint);
    }
  Value Recv = lowerExpr(Receiver);
  ValueKind RecvKind = Recv.Kind;
  if (RecvKind == ValueKind::Unknown)
    RecvKind = kindOfName(Receiver);
  if (RecvKind == ValueKind::HostTensor)
    return lowerHostTensorMethod(Call, Receiver, Method, Recv, Hint);
  if (const PyApiRow *Row = classifyMethod(Method, RecvKind))
    return lowerApi(*Row, Call, Receiver, Recv, Hint);
  // `h.wait()` on a handle of unknown kind: an event's wait() and a work
  // handle's wait() both make the current stream wait for it (a handle
  // recorded where we cannot see orders everything before it, in doubt).
  if (RecvKind == ValueKind::Unknown && Method == "wait" &&
      Call.field("arguments").namedChildren().empty())
    if (const PyApiRow *Row = classifyMethod(Method, ValueKind::Work))
      return lowerApi(*Row, Call, Receiver, Recv, Hint);
  if (RecvKind == ValueKind::Tensor) {
    // Any other tensor method: in-place when it ends in '_', else an op
    // returning a new tensor.
    PyApiRow Row{"", ValueKind::Tensor,
                 Method.ends_with("_") ? PyOp::InPlace : PyOp::TensorOp};
    return lowerApi(Row, Call, Receiver, Recv, Hint);
  }
  // `x.synchronize()` on a name of unknown kind (a stream or an event
  // handed to a helper, kept in an attribute by a constructor): the host
  // waits for whichever of the two it holds. As a stream the name maps to
  // the caller's stream through the summary; as an event, to its event.
  if (RecvKind == ValueKind::Unknown && Method == "synchronize" &&
      Call.field("arguments").namedChildren().empty())
    if (std::optional<NameId> N = nameOf(Receiver)) {
      ir::Inst &OnStream = emit(OpKind::SyncStream, site(Call));
      OnStream.Stream = resolveStream(Receiver);
      ir::Inst &OnEvent = emit(OpKind::SyncEvent, site(Call));
      OnEvent.Event = *N;
      return other();
    }
  // An unknown method of something that may be a tensor: a use of the
  // receiver (nothing, if it is not one); the arguments escape.
  std::vector<Value> Operands = lowerArguments(Call);
  use({Recv}, current(), site(Call));
  return lowerUnknownCall(Call, Operands);
}

/// True for `t.to(torch.float16)` / `t.to(dtype=...)`: a conversion that
/// keeps the tensor on its device (`t.to("cuda")`, `t.to(dev)` move it).
static bool keepsDevice(PyNode Call, const CallArguments &Args) {
  if (Call.field("function").field("attribute").text() != "to")
    return false;
  PyNode Target = Args.find(PyOperand{0, "device"});
  if (!Target)
    return true; // only keyword arguments other than device (dtype=...)
  llvm::StringRef T = Target.text();
  return T.starts_with("torch.") && !T.starts_with("torch.device");
}

Value FunctionLowering::lowerHostTensorMethod(PyNode Call, PyNode Receiver,
                                              llvm::StringRef Method,
                                              const Value &Recv, NameId Hint) {
  // A host tensor's methods make host tensors, except the copies to a
  // device (`.cuda()`, `.to("cuda", non_blocking=True)`), which allocate
  // on the current stream.
  CallArguments Args(Call);
  const PyApiRow *Row = classifyMethod(Method, ValueKind::Tensor);
  if (Row && Row->Op == PyOp::ToDevice && !keepsDevice(Call, Args))
    return lowerApi(*Row, Call, Receiver, Recv, Hint);
  // Device tensors among the arguments are read on the current stream:
  // `host.copy_(activation, non_blocking=True)` is a device-to-host copy.
  use(lowerArguments(Call), current(), site(Call));
  if (Row && (Row->Op == PyOp::Metadata ||
              (Row->Op == PyOp::HostRead && Method != "cpu" && Method != "numpy")))
    return other();
  return hostTensor();
}

Value FunctionLowering::lowerCall(PyNode Call, NameId Hint) {
  PyNode Callee = Call.field("function");
  // `logger.info(...)`: a method of an object the module made.
  if (Callee.is("attribute") && Callee.field("object").is("identifier"))
    if (std::optional<Value> Host = lowerModuleObjectCall(Call, Callee.field("object").text()))
      return *Host;
  // Library functions first: `torch.cuda.synchronize()`, `dist.all_reduce`.
  std::string Qualified = qualified(Callee);
  if (!Qualified.empty()) {
    if (const PyApiRow *Row = classifyFunction(Qualified))
      return lowerApi(*Row, Call, PyNode(), Value(), Hint);
    if (isTensorLibraryFunction(Qualified))
      return lowerTensorOp(Call, lowerArguments(Call), /*Allocates=*/true,
                           Hint);
    // Another library's function (a Triton launcher, an extension's op):
    // a function we cannot see. torch's own unlisted functions
    // (torch.cuda.memory_allocated, torch.utils...) are neither uses nor
    // orderings.
    if (!llvm::StringRef(Qualified).starts_with("torch.") && Qualified != "torch") {
      std::vector<Value> Operands = lowerArguments(Call);
      // Nor do they return a tensor: what they give is the host's.
      if (runsNoDeviceWork(Qualified, Operands))
        return other();
      return lowerUnknownCall(Call, Operands);
    }
    lowerArguments(Call);
    return {};
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
        bindConstructorStreams(*C, *Init, Call);
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

bool FunctionLowering::isBooleanMask(PyNode Index, unsigned Depth) {
  // Locals defined from each other (`a = ~b`, `b = ~a`) end here.
  if (Depth > 8)
    return false;
  Index = withoutParentheses(Index);
  if (Index.is("identifier")) {
    auto Made = MaskValues.find(Index.text().str());
    return Made != MaskValues.end() && AssignmentCount[Made->first] == 1 &&
           isBooleanMask(Made->second, Depth + 1);
  }
  if (Index.is("unary_operator"))
    return Index.field("operator").text() == "~" &&
           isBooleanMask(Index.field("argument"), Depth + 1);
  if (Index.is("binary_operator")) {
    llvm::StringRef Op = Index.field("operator").text();
    return (Op == "&" || Op == "|") &&
           (isBooleanMask(Index.field("left"), Depth + 1) ||
            isBooleanMask(Index.field("right"), Depth + 1));
  }
  if (!Index.is("comparison_operator"))
    return false;
  // `a >= 0`, `a == b`: a comparison of tensors, not `x is None`, `k in d`.
  auto Operands = Index.namedChildren();
  for (size_t I = 1; I < Operands.size(); ++I) {
    llvm::StringRef Between =
        Index.text()
            .slice(Operands[I - 1].endByte() - Index.startByte(),
                   Operands[I].startByte() - Index.startByte())
            .trim();
    if (Between.starts_with("is") || Between.ends_with("in"))
      return false;
  }
  for (PyNode Operand : Operands)
    if (staticKind(Operand) == ValueKind::Tensor)
      return true;
  return false;
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
    std::vector<Value> Operands{Base};
    bool Masked = false;
    for (PyNode Index : Expr.fields("subscript")) {
      Operands.push_back(lowerExpr(Index));
      Masked |= isBooleanMask(Index);
    }
    // `t[mask]` with a boolean tensor: a copy of the selected elements,
    // whose number the host needs first; PyTorch runs nonzero and waits
    // for the current stream.
    if (Masked && Base.Name != NoId && mayHoldBuffer(Base.Kind)) {
      use(Operands, current(), site(Expr));
      ir::Inst &I = emit(OpKind::SyncStream, site(Expr));
      I.Stream = current();
      return allocate(Expr, Hint);
    }
    // `t[i]` is a view of t.
    if (Base.Kind == ValueKind::Tensor && Base.Name != NoId)
      return {ValueKind::Tensor, Base.Name, false, {}};
    // `tensors[0]` of a parameter: one of what the caller passed.
    if (std::optional<NameId> Entries = parameterEntries(Expr))
      return {ValueKind::Unknown, *Entries, false, {}};
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
  if (K == "list_comprehension" || K == "set_comprehension" ||
      K == "dictionary_comprehension") {
    lowerComprehension(Expr);
    return other();
  }
  if (K == "lambda" || K == "generator_expression")
    return other(); // not analysed (their bodies run elsewhere or later)
  if (K == "conditional_expression") {
    // `a if c else b`: c, then one of the two. Each arm on a path of its
    // own, so that what one arm does (a synchronizing call) is not taken as
    // done on the other's.
    auto Parts = Expr.namedChildren();
    if (Parts.size() == 3) {
      lowerExpr(Parts[1]);
      unsigned Decide = Cur, Join = newBlock();
      for (PyNode Arm : {Parts[0], Parts[2]}) {
        Cur = newBlock();
        edge(Decide, Cur);
        lowerExpr(Arm);
        edge(Cur, Join);
      }
      Cur = Join;
      return {};
    }
  }
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


} // namespace streamlife::python::lowering
