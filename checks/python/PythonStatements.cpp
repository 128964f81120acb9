//===--- PythonStatements.cpp - streamlife --------------------------------===//
//
// FunctionLowering, statements: assignments (rebinding, tuples, `= None`),
// `del`, `return`, and the control flow (if/elif/else with `is None`
// refinement, for/while with else, break/continue, try/except/else/finally,
// with, match). Temporaries die at the end of their statement.
//
//===----------------------------------------------------------------------===//

#include "PythonFunctionLowering.h"

namespace streamlife::python::lowering {

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void FunctionLowering::endStatement() {
  // Temporaries die at the end of the statement that made them.
  for (const auto &[T, MadeAt] : StatementTemps) {
    // A temporary that is the last owner (a popped entry, a tensor made and
    // dropped in one statement) is released where it was made.
    ir::Inst &I = emit(OpKind::Kill, MadeAt);
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
  // A name bound again is no longer what an earlier test made it.
  if (Target.is("attribute"))
    StreamAliases.erase(Target.text().str());
  if (Target.is("identifier") && V.Name != NoId &&
      llvm::is_contained(F.Params, V.Name))
    EntryAliases.insert(Target.text().str());
  std::optional<NameId> Name = nameOf(Target);
  // `out = self.layer(x)`, `y = launcher(q=q)` with out, y used as tensors:
  // a tensor of unknown origin, released on the current stream like the
  // tensors the callee most likely made there.
  if (Name && V.Name == NoId && V.UnknownCall != NoId &&
      (Target.is("identifier") || Target.is("attribute")) &&
      kindOfName(Target) == ValueKind::Tensor) {
    NameId Made = temp(M.name(*Name).Spelling, V.UnknownCall);
    ir::Inst &I = emit(OpKind::Allocate, V.UnknownCall);
    I.Names.push_back(Made);
    I.Stream = current();
    I.Own = ir::Ownership::Owned;
    I.Fresh = false;
    I.Caching = true;
    return assign(Target, Value{ValueKind::Tensor, Made, true, {}}, At);
  }
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
  if (lowerPacking(Left, Right, Stmt) || lowerUnpacking(Left, Right, Stmt) ||
      lowerPopUnpacking(Left, Right, Stmt) ||
      lowerContainerDisplay(Left, Right, Stmt))
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

/// `return (out, done)`, `return [a, b]`, `return Result(out, done)` with
/// Result a class of these files without `__init__` (a NamedTuple or a
/// dataclass): the returned value packs the tensors it names.
PyNode FunctionLowering::packedReturn(PyNode Expr) {
  Expr = withoutParentheses(Expr);
  if (Expr.is("tuple") || Expr.is("list") || Expr.is("expression_list"))
    return Expr;
  if (Expr.is("call") && Expr.field("function").is("identifier"))
    if (PyClassDef *C = Ctx.Set.findClass(File, Expr.field("function").text()))
      if (!Ctx.Set.findMethod(*C, "__init__"))
        return Expr.field("arguments");
  return PyNode();
}

void FunctionLowering::lowerReturn(PyNode Stmt) {
  auto Children = Stmt.namedChildren();
  if (!Children.empty() && Def)
    if (PyNode Packed = packedReturn(Children.front())) {
      // The caller gets every tensor the value packs: none is released by
      // leaving this function.
      lowerExpr(Children.front());
      llvm::SmallVector<NameId, 4> Held;
      for (PyNode Element : Packed.namedChildren())
        collectContained(Element.is("keyword_argument") ? Element.field("value")
                                                        : Element,
                         Held);
      if (!Held.empty()) {
        if (F.Return == NoId)
          F.Return = M.addName({"<return>", Id, NoId});
        ir::Inst &Reset = emit(OpKind::Bind, site(Stmt));
        Reset.Names = {F.Return, NoId};
        ir::Inst &Store = emit(OpKind::Store, site(Stmt));
        Store.Names.push_back(F.Return);
        Store.Names.append(Held.begin(), Held.end());
      }
      endStatement();
      jumpTo(F.Exit);
      return;
    }
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
  if (const PyApiRow *Row = classifyFunction(qualified(Callee)))
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
  // `value = inputs.get(key)` then `if value is None: continue`: value is
  // one of what the caller passed in a parameter, which still names the
  // others (the caller's tensors); rebinding value releases none of them,
  // and their escape would hide the caller's releases.
  if (Name.is("identifier") && EntryAliases.count(Name.text().str()) &&
      AssignmentCount[Name.text().str()] <= 1)
    return;
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

std::optional<std::pair<StreamRef, StreamRef>>
FunctionLowering::streamInequality(PyNode Condition) {
  Condition = withoutParentheses(Condition);
  // `differs = current_stream() != side` then `if differs:`.
  if (Condition.is("identifier")) {
    auto Made = MaskValues.find(Condition.text().str());
    if (Made == MaskValues.end() || AssignmentCount[Made->first] != 1)
      return std::nullopt;
    Condition = Made->second;
  }
  if (!Condition.is("comparison_operator"))
    return std::nullopt;
  auto Operands = Condition.namedChildren();
  if (Operands.size() != 2)
    return std::nullopt;
  llvm::StringRef Between =
      Condition.text()
          .slice(Operands[0].endByte() - Condition.startByte(),
                 Operands[1].startByte() - Condition.startByte())
          .trim();
  if (Between != "!=" && Between != "is not")
    return std::nullopt;
  // Only operands whose stream can be told without lowering them again.
  auto streamOf = [&](PyNode E) -> std::optional<StreamRef> {
    E = withoutParentheses(E);
    if (E.is("call")) {
      const PyApiRow *Row = classifyFunction(qualified(E.field("function")));
      if (!Row || Row->Op != PyOp::CurrentStream)
        return std::nullopt;
      return current();
    }
    if ((E.is("identifier") || E.is("attribute")) &&
        kindOfName(E) == ValueKind::Stream)
      return resolveStream(E);
    return std::nullopt;
  };
  std::optional<StreamRef> A = streamOf(Operands[0]), B = streamOf(Operands[1]);
  // What a stream is compared with is a stream (`current_stream() !=
  // self.dtoh`, the attribute set at class level).
  auto comparedWith = [&](PyNode E) -> std::optional<StreamRef> {
    E = withoutParentheses(E);
    if (E.is("identifier") || E.is("attribute"))
      return resolveStream(E);
    return std::nullopt;
  };
  if (A && !B)
    B = comparedWith(Operands[1]);
  else if (B && !A)
    A = comparedWith(Operands[0]);
  if (!A || !B || !A->known() || !B->known())
    return std::nullopt;
  return std::make_pair(*A, *B);
}

std::optional<bool> FunctionLowering::deviceAnswer(PyNode Leaf) {
  // `get_accelerator().resolves_data_dependency()`: a query of the device
  // module, asked without arguments.
  if (!Leaf.is("call") || !Leaf.field("arguments").namedChildren().empty())
    return std::nullopt;
  return cudaDeviceAnswer(qualified(Leaf.field("function")));
}

void FunctionLowering::lowerIf(PyNode Stmt) {
  PyNode Condition = Stmt.field("condition");
  lowerExpr(Condition);
  endStatement();
  std::optional<std::pair<PyNode, bool>> Refine = noneTest(Condition);
  // In a copy of the body for one value class (lowerBodyPerValueClass) a
  // test of the class's parameters has one answer: only that branch is
  // lowered, the other runs on no path of the copy.
  std::optional<bool> Taken = decided(Condition);
  unsigned Join = newBlock();
  if (Taken != false) {
    unsigned Then = newBlock();
    edge(Cur, Then);
    unsigned Decide = Cur;
    Cur = Then;
    if (Refine && Refine->second)
      assumeNone(Refine->first, Condition);
    // `if isinstance(value, torch.Tensor):` the branch's value is a tensor,
    // whatever classes of the package also define its methods (lmdeploy's
    // `value.record_stream(stream)` there is the tensor's).
    std::optional<std::string> Tensor =
        tensorInstanceTest(Condition, /*OrOtherTypes=*/false);
    std::optional<ValueKind> Before;
    if (Tensor) {
      if (auto Was = NarrowedKinds.find(*Tensor); Was != NarrowedKinds.end())
        Before = Was->second;
      NarrowedKinds[*Tensor] = ValueKind::Tensor;
    }
    lowerBlock(Stmt.field("consequence"));
    if (Tensor) {
      if (Before)
        NarrowedKinds[*Tensor] = *Before;
      else
        NarrowedKinds.erase(*Tensor);
    }
    edge(Cur, Join);
    if (Taken == true) {
      Cur = Join;
      return;
    }
    Cur = newBlock();
    edge(Decide, Cur);
  }
  if (Refine && !Refine->second)
    assumeNone(Refine->first, Condition);
  // `if current_stream() != side: side.wait_stream(current_stream())`: where
  // the test is false the two are one stream, each trivially ordered after
  // the other's work, so the join keeps the ordering the branch made.
  if (auto Same = streamInequality(Condition)) {
    ir::Inst &First = emit(OpKind::WaitStream, site(Condition));
    First.Stream = Same->first;
    First.Stream2 = Same->second;
    ir::Inst &Second = emit(OpKind::WaitStream, site(Condition));
    Second.Stream = Same->second;
    Second.Stream2 = Same->first;
  }
  bool HasElse = false;
  for (PyNode Alt : Stmt.fields("alternative")) {
    if (Alt.is("elif_clause")) {
      PyNode AltCondition = Alt.field("condition");
      lowerExpr(AltCondition);
      endStatement();
      std::optional<bool> AltTaken = decided(AltCondition);
      if (AltTaken == false)
        continue;
      if (AltTaken == true) {
        lowerBlock(Alt.field("consequence"));
        edge(Cur, Join);
        Cur = Join;
        return;
      }
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
  // Each iteration binds the loop variables to an element: one of a
  // container's entries, or one we do not track.
  PyNode Target = Stmt.field("left");
  if (!assignFromContainer(Target, Stmt.field("right"), Target)) {
    // `for t in tensors:`, `for t in tensors.values():` over a parameter:
    // each element is one of what the caller passed.
    std::optional<NameId> Entries = parameterEntries(Stmt.field("right"));
    assign(Target,
           Entries && Target.is("identifier")
               ? Value{ValueKind::Unknown, *Entries, false, {}}
               : Value(),
           Target);
  }
  lowerLoopRest(Stmt, Header, Header, After);
  // Once the loop is done the host has waited for every stream of the list,
  // so for each local that held one of them.
  if (std::optional<std::string> List = listSynchronizedByLoop(Stmt))
    for (const auto &[Element, Node] : ListElements[*List]) {
      // Locals of other kinds (tensors of a list of tensors) hold no stream.
      ValueKind Kind = kindOfName(Node);
      if (Kind != ValueKind::Stream && Kind != ValueKind::Unknown)
        continue;
      StreamRef Stream = resolveStream(Node);
      if (!Stream.known())
        continue;
      ir::Inst &I = emit(OpKind::SyncStream, site(Stmt));
      I.Stream = Stream;
    }
}

std::optional<std::string> FunctionLowering::listSynchronizedByLoop(PyNode Stmt) {
  PyNode Target = Stmt.field("left"), Iterable = Stmt.field("right");
  PyNode Body = Stmt.field("body");
  if (!Target.is("identifier") || !Body || Stmt.field("alternative"))
    return std::nullopt;
  // A `break` may leave elements unsynchronized.
  std::vector<PyNode> Work{Body};
  while (!Work.empty()) {
    PyNode N = Work.back();
    Work.pop_back();
    if (N.is("break_statement"))
      return std::nullopt;
    if (N.is("function_definition") || N.is("class_definition"))
      continue;
    for (PyNode Child : N.namedChildren())
      Work.push_back(Child);
  }
  bool OverIndices = Iterable.is("call") &&
                     Iterable.field("function").text() == "range";
  bool OverList = Iterable.is("identifier") || Iterable.is("attribute");
  for (PyNode Statement : Body.namedChildren()) {
    if (!Statement.is("expression_statement") || Statement.namedChildren().empty())
      continue;
    PyNode Call = Statement.namedChildren().front();
    if (!Call.is("call") || !Call.field("arguments").namedChildren().empty())
      continue;
    PyNode Callee = Call.field("function");
    if (!Callee.is("attribute") || Callee.field("attribute").text() != "synchronize")
      continue;
    PyNode Stream = Callee.field("object");
    // `for s in L: s.synchronize()`
    if (OverList && Stream.is("identifier") && Stream.text() == Target.text())
      return Iterable.text().str();
    // `for i in range(n): L[i].synchronize()`: the range is taken to be the
    // list's indices, as the loops that fill and use such a list run.
    if (OverIndices && Stream.is("subscript")) {
      PyNode List = Stream.field("value");
      std::vector<PyNode> Index = Stream.fields("subscript");
      if ((List.is("identifier") || List.is("attribute")) && Index.size() == 1 &&
          Index.front().is("identifier") && Index.front().text() == Target.text())
        return List.text().str();
    }
  }
  return std::nullopt;
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
  lowerLoopRest(Stmt, Header, Test, After);
}

void FunctionLowering::lowerLoopRest(PyNode Stmt, unsigned Header, unsigned Test,
                                     unsigned After) {
  // The body loops back to Header; the `else` block runs when the loop test
  // (Test, the block that decides another iteration) says no, and `break`
  // skips it.
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

std::optional<StreamRef> FunctionLowering::streamContextOf(PyNode V) {
  V = withoutParentheses(V);
  if (V.is("call")) {
    PyNode Callee = V.field("function");
    PyNode S;
    if (const PyApiRow *Row = classifyFunction(qualified(Callee));
        Row && Row->Op == PyOp::StreamContext)
      S = CallArguments(V).find(Row->Stream);
    else if ((Callee.is("identifier") || Callee.is("attribute")) &&
             kindOfName(Callee) == ValueKind::StreamContextFn)
      S = CallArguments(V).find(PyOperand{0, "stream"}); // self._stream_context(s)
    else
      return std::nullopt;
    return S && !isNoneLiteral(S) ? resolveStream(S) : current();
  }
  // `with s:` (torch.Stream is a context manager too).
  if ((V.is("identifier") || V.is("attribute")) &&
      kindOfName(V) == ValueKind::Stream)
    return resolveStream(V);
  // `ctx = torch.cuda.stream(s)` (on some path; `nullcontext()` on the
  // other) then `with ctx:`.
  if (V.is("identifier"))
    if (auto Made = StreamContexts.find(V.text().str());
        Made != StreamContexts.end())
      return streamContextOf(Made->second);
  // `with torch.cuda.stream(s) if s is not None else nullcontext():`.
  if (V.is("conditional_expression"))
    for (PyNode Branch : V.namedChildren())
      if (std::optional<StreamRef> S = streamContextOf(Branch))
        return S;
  return std::nullopt;
}

/// `pytest.raises(E)`, `self.assertRaises(E)`, `self.assertRaisesRegex(E, m)`:
/// a context whose body must raise.
static bool expectsRaise(PyNode Item) {
  if (!Item.is("call"))
    return false;
  llvm::StringRef Callee = Item.field("function").text();
  return Callee == "pytest.raises" || Callee == "raises" ||
         Callee.ends_with(".assertRaises") ||
         Callee.ends_with(".assertRaisesRegex");
}

void FunctionLowering::lowerWith(PyNode Stmt) {
  size_t Depth = CurrentStack.size();
  bool MustRaise = false;
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
              ? classifyFunction(qualified(V.field("function")))
              : nullptr;
      if (Row && Row->Op == PyOp::GraphCapture) {
        // `torch.cuda.graph` synchronizes the device on entry, then
        // captures its body into the graph: nothing in it runs now, on any
        // stream (what it allocates comes from the graph's private pool).
        // The body's stream work is left out: an unknown current stream.
        lowerArguments(V);
        emit(OpKind::SyncDevice, site(V));
        CurrentStack.push_back(StreamRef::unknown());
        continue;
      }
      if (std::optional<StreamRef> S = streamContextOf(V)) {
        CurrentStack.push_back(*S);
        continue;
      }
      MustRaise |= expectsRaise(V);
      Value Entered = lowerExpr(V);
      if (Target)
        assign(Target, Value{Entered.Kind, NoId, false, {}}, Item);
    }
  }
  endStatement();
  if (PyNode Body = Stmt.field("body"); MustRaise && Body) {
    // The test expects the body to raise, and the statement that raises is
    // the last one: the checks it makes fail before it enqueues its work
    // (an argument rejected, a stream refused). What comes before it runs.
    std::vector<PyNode> Stmts = Body.namedChildren();
    if (!Stmts.empty())
      Stmts.pop_back();
    lowerStatements(Stmts);
  } else {
    lowerBlock(Stmt.field("body"));
  }
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
      if (E.is("assignment")) {
        lowerAssignment(E);
        makeStreamsOne(E);
      } else if (E.is("augmented_assignment"))
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


} // namespace streamlife::python::lowering
