//===--- PythonPrivateStreams.cpp - streamlife ----------------------------===//
//
// FunctionLowering, private streams: the locals that hold a stream the
// function made (`s = torch.cuda.Stream()`) and hands to no one. A block
// released to such a stream's pool can be handed only to an allocation on
// that stream, and after the return no one can name it to allocate there:
// a release still racing at the return is no finding (the runtime
// validator's caching-release rule, see Transfer::judgeAtReturn). A backward
// pass that makes its own offload streams and returns the casts of its
// accumulators is the shape (DeepSpeed's FPDT).
//
// Every occurrence of the name must be one that hands the stream to no one:
// its one assignment from a stream constructor, a stream method on it
// (`s.synchronize()`, `s.wait_stream(o)`, ...), an operand that only orders
// work or tells the allocator about a use (`torch.cuda.stream(s)` in a
// `with`, `o.wait_stream(s)`, `t.record_stream(s)`, `e.record(s)`), or a
// comparison. Anything else (a return, a store, an argument of any other
// call, `set_stream`, a closure) may let someone allocate on it later.
//
//===----------------------------------------------------------------------===//

#include "PythonFunctionLowering.h"

#include <functional>

namespace streamlife::python::lowering {

namespace {

/// Methods of a stream that order or wait for work and keep the stream.
bool isStreamMethod(llvm::StringRef Method) {
  return Method == "synchronize" || Method == "wait_stream" ||
         Method == "wait_event" || Method == "record_event" ||
         Method == "query";
}

/// The call whose argument \p Ident is (positional or keyword value).
PyNode callOfArgument(PyNode Ident) {
  PyNode Parent = Ident.parent();
  if (Parent.is("keyword_argument")) {
    if (!(Parent.field("value") == Ident))
      return {};
    Parent = Parent.parent();
  }
  if (!Parent.is("argument_list"))
    return {};
  PyNode Call = Parent.parent();
  return Call.is("call") ? Call : PyNode();
}

} // namespace

void FunctionLowering::markPrivateStreams(PyNode Body) {
  if (StreamConstructors.empty())
    return; // the function makes no stream: nothing to scan

  // The candidates: plain locals assigned a constructed stream.
  std::map<std::string, bool> Private;
  std::vector<std::pair<PyNode, bool>> Idents; // identifier, in a nested scope
  std::function<void(PyNode, bool)> Collect = [&](PyNode N, bool Nested) {
    if (N.is("identifier")) {
      Idents.push_back({N, Nested});
      return;
    }
    if (N.is("assignment") && !Nested)
      if (PyNode Left = N.field("left"), Right = N.field("right");
          Left.is("identifier") && Right.is("call") &&
          StreamConstructors.count(Right.id()))
        Private.try_emplace(Left.text().str(), true);
    bool Inner = Nested || N.is("function_definition") ||
                 N.is("class_definition") || N.is("lambda");
    for (PyNode Child : N.namedChildren())
      Collect(Child, Inner);
  };
  Collect(Body, false);

  auto handsToNoOne = [&](PyNode Ident) {
    PyNode Parent = Ident.parent();
    if (Parent.is("assignment") && Parent.field("left") == Ident) {
      PyNode Right = Parent.field("right");
      return Right.is("call") && StreamConstructors.count(Right.id()) != 0;
    }
    if (Parent.is("comparison_operator"))
      return true;
    if (Parent.is("attribute") && Parent.field("object") == Ident) {
      PyNode Call = Parent.parent();
      return Call.is("call") && Call.field("function") == Parent &&
             isStreamMethod(Parent.field("attribute").text());
    }
    PyNode Call = callOfArgument(Ident);
    if (!Call)
      return false;
    PyNode Callee = Call.field("function");
    if (Callee.is("attribute")) {
      llvm::StringRef Method = Callee.field("attribute").text();
      if (Method == "wait_stream" || Method == "record_stream")
        return true;
      // `e.record(s)`, `e.wait(s)` on an event of this function.
      PyNode Receiver = Callee.field("object");
      if ((Method == "record" || Method == "wait") &&
          (Receiver.is("identifier") || Receiver.is("attribute")) &&
          kindOfName(Receiver) == ValueKind::Event)
        return true;
    }
    const PyApiRow *Row = classifyFunction(qualified(Callee));
    return Row && Row->Op == PyOp::StreamContext;
  };

  for (const auto &[Ident, Nested] : Idents) {
    auto Found = Private.find(Ident.text().str());
    if (Found == Private.end() || !Found->second)
      continue;
    PyNode Parent = Ident.parent();
    // `obj.s` and `f(s=...)` spell the name without reading the local.
    if ((Parent.is("attribute") && Parent.field("attribute") == Ident) ||
        (Parent.is("keyword_argument") && Parent.field("name") == Ident))
      continue;
    if (Nested || !handsToNoOne(Ident))
      Found->second = false;
  }

  for (const auto &[Spelling, IsPrivate] : Private) {
    if (!IsPrivate || ParamNames.count(Spelling) || Globals.count(Spelling))
      continue;
    auto Local = Locals.find(Spelling);
    if (Local != Locals.end() && Local->second != NoId)
      M.Names[Local->second].PrivateStream = true;
  }
}

} // namespace streamlife::python::lowering
