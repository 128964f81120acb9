//===--- PythonLowering.cpp - streamlife ----------------------------------===//
//
// See PythonLowering.h for the model. FunctionLowering is split by concern:
// this file has the names (locals, shared attributes, temporaries), the
// per-function pre-pass that guesses what each local holds, a function's
// entry and exit, and lowerPython(); PythonExpressions.cpp lowers
// expressions and calls (the API table's operations), PythonStatements.cpp
// statements and control flow.
//
//===----------------------------------------------------------------------===//

#include "PythonFunctionLowering.h"
#include "CallerStreams.h"

#include <cassert>
#include <functional>

namespace streamlife::python {
namespace lowering {

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

NameId FunctionLowering::temp(llvm::StringRef Spelling, SiteId MadeAt) {
  assert(MadeAt != NoId && "a temporary without the site that made it");
  NameId N = NoId;
  if (Copies) {
    auto Key = std::make_pair(Spelling.take_front(60).str(), MadeAt);
    unsigned Nth = Copies->TempUses[Key]++;
    std::vector<NameId> &Made = Copies->Temps[Key];
    if (Nth < Made.size())
      N = Made[Nth];
    else
      Made.push_back(N = M.addName({Key.first, Id, NoId}));
  } else {
    N = M.addName({Spelling.take_front(60).str(), Id, NoId});
  }
  StatementTemps.push_back({N, MadeAt});
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
    // A local assigned once, a view of a parameter: the parameter's name,
    // so that the summary carries its uses back to the caller's buffer.
    auto View = ParamViews.find(Text);
    if (View != ParamViews.end() && AssignmentCount[Text] == 1)
      return local(View->second);
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
    if (auto Narrowed = NarrowedKinds.find(Expr.text().str());
        Narrowed != NarrowedKinds.end())
      return Narrowed->second;
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
    if (Found != LocalKinds.end())
      return Found->second;
    // `p.grad`, `param.main_grad` (Megatron's): a parameter's gradient.
    llvm::StringRef Attr = Expr.field("attribute").text();
    if (Attr == "grad" || Attr == "main_grad")
      return ValueKind::Tensor;
    // `p.data`, `w.T`: a view of a tensor is a tensor (so `p.data`'s
    // record_stream is the tensor's, not that of a class of the file that
    // has a method of that name).
    if ((Attr == "data" || Attr == "T" || Attr == "mT" || Attr == "H" ||
         Attr == "mH" || Attr == "real" || Attr == "imag") &&
        staticKind(Object) == ValueKind::Tensor)
      return ValueKind::Tensor;
    return ValueKind::Unknown;
  }
  return ValueKind::Unknown;
}

//===----------------------------------------------------------------------===//
// The pre-pass
//===----------------------------------------------------------------------===//

ValueKind FunctionLowering::staticKind(PyNode Expr) {
  if (isNoneLiteral(Expr))
    return ValueKind::Unknown;
  if ((Expr.is("call") || Expr.is("attribute")) && isDeviceModule(File, Expr))
    return ValueKind::DeviceModule;
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
  std::string Qualified = qualified(Callee);
  if (const PyApiRow *Row = classifyFunction(Qualified)) {
    if (Row->Op == PyOp::Collective)
      return ValueKind::Work;
    if (Row->Op == PyOp::NoOp || Row->Op == PyOp::SyncDevice ||
        Row->Op == PyOp::Barrier)
      return ValueKind::Other;
  }
  // A standard-library function handed only host values gives one
  // (`random.choice(tensors)` gives a tensor).
  if (isHostOnlyLibraryFunction(Qualified)) {
    bool HostArguments = true;
    for (PyNode Arg : Expr.field("arguments").namedChildren()) {
      PyNode Value = Arg.is("keyword_argument") ? Arg.field("value") : Arg;
      HostArguments = HostArguments && staticKind(Value) == ValueKind::Other;
    }
    if (HostArguments)
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
    ValueKind Receiver = staticKind(Callee.field("object"));
    const PyApiRow *Row = classifyMethod(
        Method, Receiver == ValueKind::HostTensor ? ValueKind::Tensor : Receiver);
    if (!Row)
      return Receiver == ValueKind::HostTensor ? ValueKind::HostTensor
                                               : ValueKind::Unknown;
    switch (Row->Op) {
    case PyOp::RecordEvent:
      return ValueKind::Event;
    case PyOp::Metadata:
      return ValueKind::Other;
    case PyOp::HostRead:
      return Method == "cpu" || Method == "numpy" ? ValueKind::HostTensor
                                                  : ValueKind::Other;
    case PyOp::PinMemory:
      return ValueKind::HostTensor;
    case PyOp::ToDevice: {
      PyNode Device = CallArguments(Expr).find(Row->Stream);
      if (Device && isHostDevice(Device))
        return ValueKind::HostTensor;
      return ValueKind::Tensor;
    }
    case PyOp::View:
    case PyOp::TensorOp:
      return Receiver == ValueKind::HostTensor ? ValueKind::HostTensor
                                               : ValueKind::Tensor;
    default:
      break;
    }
  }
  return ValueKind::Unknown;
}

/// `w.view(-1, 4).index_select(0, i).pin_memory()`: the name at the base of
/// a chain of tensor methods and subscripts (`w`), which lives where the
/// result does, as long as no method in the chain moves it to another device.
static PyNode chainBase(PyNode Expr) {
  for (;;) {
    Expr = withoutParentheses(Expr);
    if (Expr.is("subscript")) {
      Expr = Expr.field("value");
      continue;
    }
    if (Expr.is("call") && Expr.field("function").is("attribute")) {
      llvm::StringRef Method = Expr.field("function").field("attribute").text();
      if (Method == "to" || Method == "cuda" || Method == "cpu")
        return {};
      Expr = Expr.field("function").field("object");
      continue;
    }
    return Expr.is("identifier") || Expr.is("attribute") ? Expr : PyNode();
  }
}

void FunctionLowering::noteTarget(PyNode Target) {
  if (Target.is("identifier")) {
    Locals.try_emplace(Target.text().str(), NoId);
    BoundNames.insert(Target.text());
    return;
  }
  if (Target.is("pattern_list") || Target.is("tuple_pattern") ||
      Target.is("list_pattern") || Target.is("tuple") ||
      Target.is("expression_list") || Target.is("list") ||
      Target.is("parenthesized_expression"))
    for (PyNode Element : Target.namedChildren())
      noteTarget(Element);
}

/// `weight = params.view(...)` with params a parameter: the base of the view,
/// else an empty node.
static PyNode viewBase(PyNode Value) {
  if (Value.is("subscript"))
    return Value.field("value").is("identifier") ? Value.field("value") : PyNode();
  if (!Value.is("call") || !Value.field("function").is("attribute"))
    return {};
  PyNode Callee = Value.field("function");
  const PyApiRow *Row =
      classifyMethod(Callee.field("attribute").text(), ValueKind::Tensor);
  if (!Row || Row->Op != PyOp::View || !Callee.field("object").is("identifier"))
    return {};
  return Callee.field("object");
}

void FunctionLowering::noteAssignment(PyNode Target, PyNode Value) {
  noteTarget(Target);
  if (!Target.is("identifier") || !Value)
    return;
  std::string Name = Target.text().str();
  ++AssignmentCount[Name];
  if (PyNode V = withoutParentheses(Value);
      V.is("comparison_operator") || V.is("unary_operator") ||
      V.is("binary_operator"))
    MaskValues[Name] = V;
  if (Value.is("subscript"))
    if (PyNode List = Value.field("value");
        List.is("identifier") || List.is("attribute"))
      ListElements[List.text().str()].try_emplace(Name, Target);
  if (PyNode Base = viewBase(Value)) {
    if (ParamNames.count(Base.text()))
      ParamViews[Name] = Base.text().str();
    if (Value.is("subscript"))
      SubscriptViews[Name] = Value;
  }
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
    if (const PyApiRow *Row = classifyFunction(qualified(Callee)))
      if (Row->Op == PyOp::StreamContext)
        StreamContexts[Name] = Value;
  }
  if (isNoneLiteral(Value))
    return;
  ValueKind K = staticKind(Value);
  auto [It, Inserted] = LocalKinds.try_emplace(Name, K);
  if (!Inserted && It->second != K)
    It->second = ValueKind::Unknown;
}

void FunctionLowering::noteTensorEvidence(PyNode Call) {
  // Methods no other common receiver has (numpy arrays, modules and lists
  // share `reshape`, `cuda`, `to`, `sum`, `split`: those are no evidence).
  static const llvm::StringSet<> TensorOnly = {
      "view", "view_as", "contiguous", "copy_", "zero_", "fill_", "add_",
      "mul_", "div_", "sub_", "clamp_", "record_stream", "data_ptr",
      "untyped_storage", "numel", "narrow", "index_select", "index_add_",
      "index_copy_", "masked_fill", "masked_fill_", "scatter_", "scatter_add_",
      "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor",
      "element_size", "storage_offset", "is_contiguous", "unsqueeze",
      "squeeze", "permute", "transpose", "flatten", "unflatten", "detach",
      "detach_", "requires_grad_", "bmm", "mm", "matmul", "nelement", "unbind",
      "resize_", "as_strided", "expand", "expand_as", "type_as", "addmm",
      "is_pinned", "softmax", "log_softmax"};
  auto note = [&](PyNode N) {
    N = withoutParentheses(N);
    if (N.is("identifier") && !File.Imports.count(N.text()) &&
        !File.TopLevelFunctions.count(N.text()) && !File.Classes.count(N.text()))
      TensorEvidence.insert(N.text());
  };
  PyNode Callee = Call.field("function");
  if (Callee.is("attribute") &&
      TensorOnly.count(Callee.field("attribute").text()) &&
      !Ctx.Set.anyClassWithMethod(Callee.field("attribute").text()))
    note(Callee.field("object"));
  // The tensor operands of torch's own ops: `torch.cat([a, b])`,
  // `torch.mul(q, 2, out=mid)`, `F.linear(x, w)`.
  std::string Qualified = qualified(Callee);
  if (Qualified.empty() || !isTensorLibraryFunction(Qualified))
    return;
  // A factory's operands are sizes and host data (`torch.tensor(ids)`,
  // `torch.frombuffer(view)`), not device tensors.
  if (const PyApiRow *Row = classifyFunction(Qualified))
    if (Row->Op == PyOp::Factory)
      return;
  for (PyNode Arg : Call.field("arguments").namedChildren()) {
    PyNode E = Arg.is("keyword_argument") ? Arg.field("value") : Arg;
    if (E.is("list") || E.is("tuple"))
      for (PyNode Element : E.namedChildren())
        note(Element);
    else
      note(E);
  }
}

std::optional<std::string>
FunctionLowering::tensorInstanceTest(PyNode Test, bool OrOtherTypes) {
  PyNode Call = withoutParentheses(Test);
  if (!Call.is("call") || !Call.field("function").is("identifier") ||
      Call.field("function").text() != "isinstance")
    return std::nullopt;
  auto Args = Call.field("arguments").namedChildren();
  if (Args.size() != 2 || !Args[0].is("identifier"))
    return std::nullopt;
  PyNode Types = withoutParentheses(Args[1]);
  bool Tensor = qualified(Types) == "torch.Tensor";
  if (OrOtherTypes && Types.is("tuple"))
    for (PyNode T : Types.namedChildren())
      Tensor |= qualified(T) == "torch.Tensor";
  if (!Tensor)
    return std::nullopt;
  return Args[0].text().str();
}

void FunctionLowering::noteAssertedTensor(PyNode Assert) {
  // `assert isinstance(x, (torch.Tensor, Other))`: from here on x may be a
  // tensor, and its tensor methods are the tensor's (torchrec's `data`, a
  // Tensor or a Multistreamable: record_stream is either's). Only an
  // assertion says so for the rest of the function: `if isinstance(x,
  // Tensor)` says nothing of x in its other branches (lmdeploy's
  // `elif isinstance(value, VisionModelInputs): value.record_stream(s)`).
  auto Tests = Assert.namedChildren();
  if (Tests.empty())
    return;
  if (std::optional<std::string> Name =
          tensorInstanceTest(Tests.front(), /*OrOtherTypes=*/true))
    TensorEvidence.insert(*Name);
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
        noteContainer(Left, Right);
      }
      // `t: torch.Tensor`, `b: Batch = ...`: the annotation says what the
      // local holds, whatever the value looks like.
      if (PyNode Type = N.field("type"); Type && Left.is("identifier"))
        if (ValueKind K = annotationKind(Type.text()); K != ValueKind::Unknown)
          LocalKinds[Left.text().str()] = K;
    } else if (N.is("for_in_clause")) {
      noteTarget(N.field("left"));
      noteContainerLoop(N.field("left"), N.field("right"));
    } else if (N.is("for_statement")) {
      noteTarget(N.field("left"));
      noteContainerLoop(N.field("left"), N.field("right"));
      if (PyNode Left = N.field("left"), List = N.field("right");
          Left.is("identifier") && (List.is("identifier") || List.is("attribute")))
        ListElements[List.text().str()].try_emplace(Left.text().str(), Left);
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
    } else if (N.is("assert_statement")) {
      noteAssertedTensor(N);
    } else if (N.is("call")) {
      noteContainerAppend(N);
      noteTensorEvidence(N);
      // Receivers of stream-only methods are streams, of tensor-only
      // methods tensors; `with torch.cuda.stream(x)` makes x a stream.
      PyNode Callee = N.field("function");
      if (Callee.is("attribute")) {
        PyNode Object = Callee.field("object");
        llvm::StringRef Method = Callee.field("attribute").text();
        // Only host tensors can be pinned or viewed as numpy arrays.
        if (Method == "pin_memory" || Method == "numpy")
          if (PyNode Base = chainBase(Object))
            LocalKinds.try_emplace(Base.text().str(), ValueKind::HostTensor);
        if (Object.is("identifier")) {
          // Only names no other kind of object has: `x.size()` could be
          // anybody's (a process group's), `x.wait_event(e)` is a stream's.
          // A class here with a method of that name makes it no evidence.
          const PyApiRow *Row = classifyMethod(Method, ValueKind::Unknown);
          if (Row && !Ctx.Set.anyClassWithMethod(Method) &&
              (Row->Op == PyOp::RecordEvent || Row->Op == PyOp::WaitEvent ||
               Row->Op == PyOp::WaitStream || Row->Op == PyOp::RecordStream))
            LocalKinds.try_emplace(Object.text().str(), Row->Receiver);
        }
      }
      std::string Qualified = qualified(Callee);
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
  // Evidence makes a tensor of a name nothing else typed (a parameter, the
  // value of a call we cannot see); a kind already known stays.
  for (const auto &Entry : TensorEvidence) {
    auto [It, Inserted] =
        LocalKinds.try_emplace(Entry.first().str(), ValueKind::Tensor);
    if (!Inserted && It->second == ValueKind::Unknown)
      It->second = ValueKind::Tensor;
  }
  // `rows = weights[mask]` is a copy, not a view of the parameter (told
  // now that the kinds of the mask's operands are known).
  for (const auto &[Name, Subscript] : SubscriptViews)
    for (PyNode Index : Subscript.fields("subscript"))
      if (isBooleanMask(Index))
        ParamViews.erase(Name);
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
    if (PyClassDef *C = Ctx.Set.findClass(File, Type))
      LocalClasses[Name.text().str()] = C;
    ValueKind K = annotationKind(Type);
    if (K != ValueKind::Unknown)
      LocalKinds[Name.text().str()] = K;
  }
  scanLocals(Node.field("body"));
  for (const std::string &P : Def->Params)
    F.Params.push_back(P.empty() ? NoId : local(P));
  EntryCurrent = M.addName({UnnamedCurrentStream.str(), Id, NoId});
  F.Params.push_back(EntryCurrent);
  F.CurrentStreamParam = EntryCurrent;
  CurrentStack.push_back(StreamRef::named(EntryCurrent));

  lowerBodyPerValueClass(Node.field("body"));
  markPrivateStreams(Node.field("body"));

  // Leaving the function drops the references its locals hold.
  Cur = F.Exit;
  PyNode Body = Node.field("body");
  SiteId ExitSite = NoId;
  for (const auto &[Spelling, Name] : Locals) {
    if (Name == NoId || ParamNames.count(Spelling))
      continue;
    if (ParamViews.count(Spelling) && AssignmentCount[Spelling] == 1)
      continue; // the parameter itself (see nameOf)
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
      // The last statement's last line (the block also spans the comments
      // that follow it).
      PyNode Last = Body;
      for (auto Children = Last.namedChildren(); !Children.empty();
           Children = Last.namedChildren())
        Last = Children.back();
      S.Line = Last == Body ? Node.line() : Last.endLine();
      S.Column = 1;
      S.Spelling = "end of '" + Def->QualifiedName + "'";
      S.Order = (uint64_t(File.Index) << 32) | Body.endByte();
      ExitSite = M.addSite(std::move(S));
    }
    killName(Name, K, ExitSite);
  }
}

SiteId FunctionLowering::site(PyNode N, llvm::StringRef Spelling) {
  if (!Copies)
    return Ctx.site(File, N, Spelling);
  auto Key = std::make_tuple(N.startByte(), N.endByte(), Spelling.str());
  unsigned Nth = Copies->SiteUses[Key]++;
  std::vector<SiteId> &Made = Copies->Sites[Key];
  if (Nth >= Made.size())
    Made.push_back(Ctx.site(File, N, Spelling));
  return Made[Nth];
}

/// Copies of a function are worth their cost only up to a few: the classes
/// of apex's bottleneck (a method in {1, 2, 3, other} times a group size
/// above 1 or not) are 8.
static constexpr size_t MaxBodyCopies = 8;

void FunctionLowering::lowerBodyPerValueClass(PyNode Body) {
  std::vector<ValueClass> Classes =
      valueClasses(Body, ParamNames, MaxBodyCopies, Fixed,
                   StreamFlagNames = streamFlags());
  if (Classes.size() <= 1) {
    Assumed = Classes.empty() ? nullptr : &Classes.front();
    lowerBlock(Body);
    endStatement();
    edge(Cur, F.Exit);
    Assumed = nullptr;
    return;
  }
  // Each copy starts from the entry with the lowering's own state as it
  // was there (a stream alias made in one copy is not known at the start
  // of the next).
  Copies = std::make_unique<CopyMemo>();
  unsigned Start = Cur;
  std::map<std::string, StreamRef> Aliases = StreamAliases;
  for (const ValueClass &Class : Classes) {
    Assumed = &Class;
    StreamAliases = Aliases;
    Copies->SiteUses.clear();
    Copies->TempUses.clear();
    Cur = newBlock();
    edge(Start, Cur);
    lowerBlock(Body);
    endStatement();
    edge(Cur, F.Exit);
  }
  Assumed = nullptr;
  Copies.reset();
}

std::vector<std::string> FunctionLowering::streamFlags() {
  std::vector<std::string> Flags;
  for (const auto &[Name, Value] : MaskValues)
    if (AssignmentCount[Name] == 1 && !ParamNames.count(Name) &&
        streamInequality(Value))
      Flags.push_back(Name);
  return Flags;
}

void FunctionLowering::makeStreamsOne(PyNode Assignment) {
  PyNode Left = Assignment.field("left");
  if (!Assumed || !Left.is("identifier"))
    return;
  auto Flag = Assumed->find(Left.text());
  if (Flag == Assumed->end() || Flag->second.K != ClassValue::Number ||
      Flag->second.Num != 0 ||
      std::find(StreamFlagNames.begin(), StreamFlagNames.end(),
                Left.text()) == StreamFlagNames.end())
    return;
  std::optional<std::pair<StreamRef, StreamRef>> Streams =
      streamInequality(Assignment.field("right"));
  if (!Streams)
    return;
  // The operand written as a name (a local, `self.dtoh`) becomes the
  // other one: `current_stream() != self.dtoh` false makes `self.dtoh`
  // the current stream of that moment.
  auto Operands =
      withoutParentheses(Assignment.field("right")).namedChildren();
  auto nameLike = [](PyNode N) {
    N = withoutParentheses(N);
    return N.is("identifier") || N.is("attribute");
  };
  if (nameLike(Operands[1]))
    StreamAliases[withoutParentheses(Operands[1]).text().str()] =
        Streams->first;
  else if (nameLike(Operands[0]))
    StreamAliases[withoutParentheses(Operands[0]).text().str()] =
        Streams->second;
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
  F.CurrentStreamParam = EntryCurrent;
  CurrentStack.push_back(StreamRef::named(EntryCurrent));
  lowerBlock(Root);
  endStatement();
  edge(Cur, F.Exit);
}

} // namespace lowering

LoweredPython lowerPython(PyModuleSet &Set) {
  using namespace lowering;
  LoweredPython Out;
  LoweringContext Ctx{Set, Out, {}, {}, {}};
  // Ids first, so that calls can name functions not lowered yet.
  std::vector<std::pair<const PyFunctionDef *, const PyFile *>> ById;
  for (const auto &File : Set.files()) {
    for (const auto &Function : File->Functions) {
      Ctx.Ids[Function.get()] = Out.Module.Functions.size();
      Out.Module.Functions.emplace_back();
      ById.push_back({Function.get(), File.get()});
    }
  }
  ir::FunctionId Body = Out.Module.Functions.size();
  Out.Module.Functions.emplace_back();
  // The checked file's functions, then only what they call, transitively:
  // the imported modules' other functions are never analysed, and lowering
  // them all was a third of the time of a check. A function not lowered
  // has no blocks, which the core reads as a call that does nothing; none
  // is ever called.
  Ctx.FirstSpecialization = Out.Module.Functions.size();
  std::vector<char> Done(ById.size(), 0);
  std::vector<ir::FunctionId> Work;
  for (ir::FunctionId Id = 0; Id < ById.size(); ++Id)
    if (ById[Id].second->Index == 0) {
      Out.Checked.push_back(Id);
      Work.push_back(Id);
      Done[Id] = 1;
    }
  // The specializations a lowering asked for get their IR functions once
  // it is done (LoweringContext::specialization says why).
  auto callees = [&](ir::FunctionId Id) {
    Out.Module.Functions.resize(Ctx.FirstSpecialization +
                                Ctx.Specializations.size());
    Done.resize(Out.Module.Functions.size(), 0);
    for (const ir::Block &B : Out.Module.Functions[Id].Blocks)
      for (const ir::Inst &I : B.Insts)
        if (I.Kind == ir::OpKind::Call && I.Callee != Body &&
            I.Callee < Done.size() && !Done[I.Callee]) {
          Done[I.Callee] = 1;
          Work.push_back(I.Callee);
        }
  };
  FunctionLowering(Ctx, Set.main(), nullptr, Body).lowerModuleBody();
  Out.Checked.push_back(Body);
  callees(Body);
  while (!Work.empty()) {
    ir::FunctionId Id = Work.back();
    Work.pop_back();
    if (Id >= Ctx.FirstSpecialization) {
      // Copied out: lowering may ask for more and grow the list.
      LoweringContext::Specialization S =
          Ctx.Specializations[Id - Ctx.FirstSpecialization];
      const PyFile *File = ById[Ctx.Ids.at(S.Def)].second;
      FunctionLowering(Ctx, *File, S.Def, Id, std::move(S.Class))
          .lowerFunction();
    } else {
      auto [Function, File] = ById[Id];
      FunctionLowering(Ctx, *File, Function, Id).lowerFunction();
    }
    callees(Id);
  }
  // A specialization's calls are calls of the function it lowers again.
  // The calls in the checked files count as all of a function's calls (the
  // rule's scope, as for every finding of a Python check).
  core::markCurrentStreamParameters(
      Out.Module,
      [&](ir::FunctionId Id) {
        if (Id < Ctx.FirstSpecialization ||
            Id - Ctx.FirstSpecialization >= Ctx.Specializations.size())
          return Id;
        return Ctx.Ids.at(
            Ctx.Specializations[Id - Ctx.FirstSpecialization].Def);
      },
      [](ir::FunctionId) { return true; });
  reportRecordStreamThroughCalls(Ctx);
  return Out;
}

} // namespace streamlife::python
