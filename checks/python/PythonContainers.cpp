//===--- PythonContainers.cpp - streamlife --------------------------------===//
//
// Lists and deques of in-flight tensors (the N-deep keepalive queue): a
// tensor appended to a local list or deque lives until it is popped, and
// popping the oldest entry and dropping it is its release. So
//
//   in_flight.append((weights, compute.record_event()))
//   ...
//   oldest, oldest_done = in_flight.popleft()
//   ag.wait_event(oldest_done)   # wait first ...
//   del oldest                   # ... then release
//
// is clean and a bare `in_flight.popleft()` before the wait is flagged at the
// pop. The entries are the name `q[*]` (the core's Store / TakeEntry), the
// entries' events the name `q[*].event`, which holds the latest event stored
// (it covers the older entries' uses as well). Only locals made from a list
// display, `list()` or `deque()` are containers: a method named `append` of
// anything else is not taken for one.
//
//===----------------------------------------------------------------------===//

#include "PythonFunctionLowering.h"

namespace streamlife::python::lowering {

namespace {

bool isContainerFactory(const PyFile &File, PyNode Value) {
  if (Value.is("list") || Value.is("list_comprehension"))
    return true;
  if (!Value.is("call"))
    return false;
  llvm::StringRef Callee = Value.field("function").text();
  std::string Qualified = qualifiedCallee(File, Value.field("function"));
  return Callee == "list" || Callee == "deque" || Qualified == "collections.deque";
}

/// `append` stores; `popleft`, `pop(0)` take the oldest entry, `pop()` the
/// newest; `clear` drops every entry.
enum class ContainerOp { None, Append, TakeOldest, TakeNewest, Clear };

ContainerOp containerOp(llvm::StringRef Method, PyNode Call) {
  auto Args = Call.field("arguments").namedChildren();
  if (Method == "append" && Args.size() == 1)
    return ContainerOp::Append;
  if (Method == "popleft" && Args.empty())
    return ContainerOp::TakeOldest;
  if (Method == "pop" && Args.empty())
    return ContainerOp::TakeNewest;
  if (Method == "pop" && Args.size() == 1 && Args.front().text() == "0")
    return ContainerOp::TakeOldest;
  if (Method == "clear" && Args.empty())
    return ContainerOp::Clear;
  return ContainerOp::None;
}

/// The elements an appended value packs: `(t, e)` or `t`.
std::vector<PyNode> packedElements(PyNode Value) {
  Value = withoutParentheses(Value);
  if (Value.is("tuple"))
    return Value.namedChildren();
  return {Value};
}

} // namespace

void FunctionLowering::noteContainer(PyNode Target, PyNode Value) {
  if (!Target.is("identifier") || !isContainerFactory(File, Value))
    return;
  ContainerInfo &C = Containers[Target.text().str()];
  if (Value.is("list"))
    for (PyNode Element : Value.namedChildren())
      noteContainerElement(C, Element);
  else if (Value.is("list_comprehension"))
    noteContainerElement(C, Value.field("body"));
}

void FunctionLowering::noteContainerElement(ContainerInfo &C, PyNode Element) {
  std::vector<PyNode> Elements = packedElements(Element);
  for (size_t I = 0; I < Elements.size(); ++I) {
    ValueKind K = staticKind(Elements[I]);
    if (K == ValueKind::Event || K == ValueKind::Work) {
      C.EventSlots.insert(I);
      C.EventKind = K;
    }
  }
  C.Arity = std::max(C.Arity, Elements.size());
}

void FunctionLowering::noteContainerLoop(PyNode Target, PyNode Iterable) {
  if (!Target.is("identifier") || !Iterable.is("identifier"))
    return;
  auto Found = Containers.find(Iterable.text().str());
  if (Found == Containers.end())
    return;
  const ContainerInfo &C = Found->second;
  if (C.Arity == 1 && C.EventSlots.count(0))
    LocalKinds[Target.text().str()] = C.EventKind;
}

void FunctionLowering::noteContainerAppend(PyNode Call) {
  PyNode Callee = Call.field("function");
  if (!Callee.is("attribute") || Callee.field("attribute").text() != "append")
    return;
  PyNode Receiver = Callee.field("object");
  auto Args = Call.field("arguments").namedChildren();
  if (!Receiver.is("identifier") || Args.size() != 1)
    return;
  auto Found = Containers.find(Receiver.text().str());
  if (Found == Containers.end())
    return;
  noteContainerElement(Found->second, Args.front());
}

FunctionLowering::ContainerInfo *FunctionLowering::containerOf(PyNode Receiver) {
  if (!Receiver.is("identifier"))
    return nullptr;
  auto Found = Containers.find(Receiver.text().str());
  if (Found == Containers.end())
    return nullptr;
  ContainerInfo &C = Found->second;
  if (C.Entries == NoId) {
    // Not locals: leaving the function does not drop the entries (whether
    // a drained queue is empty there is a path condition we do not track).
    std::string Spelling = Receiver.text().str() + "[*]";
    C.Entries = M.addName({Spelling, Id, NoId});
    C.Event = M.addName({Spelling + ".event", Id, NoId});
  }
  return &C;
}

std::optional<Value> FunctionLowering::lowerContainerCall(PyNode Call,
                                                          PyNode Receiver,
                                                          llvm::StringRef Method) {
  ContainerOp Op = containerOp(Method, Call);
  if (Op == ContainerOp::None)
    return std::nullopt;
  ContainerInfo *C = containerOf(Receiver);
  if (!C)
    return std::nullopt;
  SiteId At = site(Call);
  switch (Op) {
  case ContainerOp::Append:
    storeElement(*C, Call.field("arguments").namedChildren().front(), At);
    return other();
  case ContainerOp::TakeOldest:
  case ContainerOp::TakeNewest: {
    NameId Taken = temp(Receiver.text().str() + "." + Method.str() + "()", At);
    ir::Inst &T = emit(OpKind::TakeEntry, At);
    T.Names = {Taken, C->Entries};
    T.Oldest = Op == ContainerOp::TakeOldest;
    return Value{ValueKind::Unknown, Taken, /*IsTemp=*/true, {}};
  }
  case ContainerOp::Clear: {
    ir::Inst &K = emit(OpKind::Kill, At);
    K.Names = {C->Entries};
    return other();
  }
  case ContainerOp::None:
    break;
  }
  return std::nullopt;
}

void FunctionLowering::storeElement(ContainerInfo &C, PyNode Element,
                                    SiteId At) {
  auto store = [&](const Value &V) {
    if (V.Name == NoId)
      return;
    if (V.Kind == ValueKind::Event || V.Kind == ValueKind::Work) {
      ir::Inst &B = emit(OpKind::Bind, At);
      B.Names = {C.Event, V.Name};
      B.Value = ir::ValueKind::Event;
    } else if (mayHoldBuffer(V.Kind)) {
      ir::Inst &S = emit(OpKind::Store, At);
      S.Names = {C.Entries, V.Name};
    }
  };
  Element = withoutParentheses(Element);
  if (Element.is("list_comprehension")) {
    store(lowerComprehension(Element));
    return;
  }
  for (PyNode E : packedElements(Element))
    store(lowerExpr(E));
}

bool FunctionLowering::lowerContainerDisplay(PyNode Left, PyNode Right,
                                             PyNode Stmt) {
  if (!Left.is("identifier") ||
      !(Right.is("list") || Right.is("list_comprehension")))
    return false;
  ContainerInfo *C = containerOf(Left);
  if (!C)
    return false;
  // `reqs = [dist.all_to_all_single(..., async_op=True)]`,
  // `works = [dist.all_reduce(x, async_op=True) for x in xs]`: the elements
  // are the container's first entries.
  SiteId At = site(Stmt);
  if (Right.is("list_comprehension"))
    storeElement(*C, Right, At);
  else
    for (PyNode Element : Right.namedChildren())
      storeElement(*C, Element, At);
  assign(Left, other(), Stmt);
  return true;
}

bool FunctionLowering::assignFromContainer(PyNode Target, PyNode Iterable,
                                           PyNode At) {
  if (!Target.is("identifier"))
    return false;
  ContainerInfo *C = containerOf(Iterable);
  if (!C)
    return false;
  // Each iteration's variable is one of the entries: an event (work handle)
  // stands for the entries' latest one, a tensor for all of them.
  if (C->Arity == 1 && C->EventSlots.count(0))
    assign(Target, Value{C->EventKind, C->Event, false, {}}, At);
  else if (C->EventSlots.empty())
    assign(Target, Value{ValueKind::Unknown, C->Entries, false, {}}, At);
  else
    assign(Target, Value(), At);
  return true;
}

bool FunctionLowering::lowerPopUnpacking(PyNode Left, PyNode Right,
                                         PyNode Stmt) {
  if (!(Left.is("pattern_list") || Left.is("tuple_pattern")) ||
      !Right.is("call"))
    return false;
  PyNode Callee = Right.field("function");
  if (!Callee.is("attribute"))
    return false;
  PyNode Receiver = Callee.field("object");
  ContainerOp Op = containerOp(Callee.field("attribute").text(), Right);
  if (Op != ContainerOp::TakeOldest && Op != ContainerOp::TakeNewest)
    return false;
  ContainerInfo *C = containerOf(Receiver);
  if (!C || C->Arity != Left.namedChildren().size())
    return false;
  // The entry's tensor goes to the first element that is not an event; the
  // events get the entries' event.
  Value Entry = lowerExpr(Right);
  bool TensorGiven = false;
  auto Targets = Left.namedChildren();
  for (size_t I = 0; I < Targets.size(); ++I) {
    if (C->EventSlots.count(I)) {
      assign(Targets[I], Value{ValueKind::Event, C->Event, false, {}}, Stmt);
    } else if (!TensorGiven) {
      assign(Targets[I], Entry, Stmt);
      TensorGiven = true;
    } else {
      assign(Targets[I], Value(), Stmt);
    }
  }
  return true;
}

} // namespace streamlife::python::lowering
