//===--- PythonModuleSet.cpp - streamlife ---------------------------------===//

#include "PythonModuleSet.h"

#include "support/InputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <mutex>

namespace streamlife::python {
namespace {

/// Local imports are followed this deep (the checked file is depth 0).
constexpr unsigned MaxImportDepth = 3;
/// And at most this many files are loaded for one check.
constexpr unsigned MaxFiles = 32;
/// How far above a file's folder a package it imports by its absolute name
/// is looked for (a repository's tests/pytorch/engine/ below its root).
constexpr unsigned MaxAncestorLevels = 6;

std::vector<std::string> parameterNames(PyNode Function) {
  std::vector<std::string> Names;
  for (PyNode Param : Function.field("parameters").namedChildren()) {
    PyNode Name = Param;
    if (Param.is("default_parameter") || Param.is("typed_default_parameter"))
      Name = Param.field("name");
    else if (Param.is("typed_parameter") && !Param.namedChildren().empty())
      Name = Param.namedChildren().front();
    if (Name.is("identifier"))
      Names.push_back(Name.text().str());
    else if (Param.is("list_splat_pattern") ||
             Param.is("dictionary_splat_pattern") ||
             Param.is("keyword_separator") ||
             Param.is("positional_separator"))
      continue; // *args / **kwargs / * / /: not positional parameters
    else
      Names.push_back(""); // a tuple pattern: not a name we track
  }
  return Names;
}

/// Statements of a module body, looking through module-level if/try/with
/// blocks (`try: import torch`), not into functions or classes.
void forEachModuleStatement(PyNode Block,
                            const std::function<void(PyNode)> &Visit) {
  for (PyNode Stmt : Block.namedChildren()) {
    if (Stmt.is("if_statement") || Stmt.is("try_statement") ||
        Stmt.is("with_statement") || Stmt.is("elif_clause") ||
        Stmt.is("else_clause") || Stmt.is("except_clause") ||
        Stmt.is("finally_clause") || Stmt.is("block")) {
      forEachModuleStatement(Stmt, Visit);
      continue;
    }
    Visit(Stmt);
  }
}

PyNode definitionOf(PyNode Stmt) {
  return Stmt.is("decorated_definition") ? Stmt.field("definition") : Stmt;
}

} // namespace

namespace {

/// The files parsed in this process, by path: `streamlife check DIR` checks
/// every file of a package, and each one imports the same local modules,
/// which were parsed again for every file that imports them. A file whose
/// size or modification time changed is parsed again.
struct ParseCache {
  struct Entry {
    llvm::sys::TimePoint<> Modified;
    uint64_t Size = 0;
    std::shared_ptr<const PySourceFile> File;
    /// The file's definitions, per device-module spellings (one, unless
    /// .clang-tidy files of the tree spell them differently).
    std::vector<std::pair<PyDeviceModules, std::shared_ptr<const PyDefinitions>>>
        Definitions;
  };
  std::mutex Lock;
  std::map<std::string, Entry> Files;
};

ParseCache &parseCache() {
  // Never destroyed: freeing every tree the run parsed, one node at a time,
  // at exit was 3% of a run's CPU, and the process's end frees it at once.
  static ParseCache *Cache = new ParseCache;
  return *Cache;
}

} // namespace

std::shared_ptr<const PySourceFile> parsedFile(const std::string &Path,
                                               std::string &Error) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status)) {
    Error = EC.message();
    return nullptr;
  }
  ParseCache &Cache = parseCache();
  {
    std::lock_guard<std::mutex> Guard(Cache.Lock);
    auto Found = Cache.Files.find(Path);
    if (Found != Cache.Files.end() &&
        Found->second.Modified == Status.getLastModificationTime() &&
        Found->second.Size == Status.getSize())
      return Found->second.File;
  }
  // A regular file of bounded size: a FIFO or a link to /dev/zero named
  // *.py would block or be read until memory runs out.
  std::string Text;
  if (!readInputFile(Path, SourceFileLimit, Text, Error))
    return nullptr;
  std::shared_ptr<const PySourceFile> File = PySourceFile::parse(Path, std::move(Text));
  std::lock_guard<std::mutex> Guard(Cache.Lock);
  Cache.Files[Path] = {Status.getLastModificationTime(), Status.getSize(), File};
  return File;
}

PyDeviceModules PyDeviceModules::defaults() {
  PyDeviceModules D;
  D.Functions = {"torch.get_device_module", "torch._utils._get_device_module",
                 // DeepSpeed (deepspeed.accelerator) and ColossalAI
                 // (colossalai.accelerator): the accelerator object mirrors
                 // torch.cuda's stream, event and synchronize calls.
                 "get_accelerator",
                 // verl (verl.utils.device): getattr(torch, device name),
                 // torch.cuda on a CUDA machine.
                 "get_torch_device"};
  // FSDP's `_device_handle` (torch.distributed.fsdp), torchrec's and
  // others' `device_module`.
  D.Names = {"device_handle", "_device_handle", "device_module",
             "_device_module"};
  return D;
}

std::optional<std::string> PyDeviceModules::parse(llvm::StringRef List,
                                                  PyDeviceModules &Into) {
  llvm::SmallVector<llvm::StringRef, 8> Entries;
  List.split(Entries, ';', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Entry : Entries) {
    Entry = Entry.trim();
    bool Function = Entry.consume_back("()");
    bool Valid = !Entry.empty() && !Entry.starts_with(".") &&
                 !Entry.ends_with(".") && !Entry.contains("..") &&
                 llvm::all_of(Entry, [](char C) {
                   return llvm::isAlnum(C) || C == '_' || C == '.';
                 });
    if (!Valid)
      return "'" + Entry.str() +
             "' is not a dotted Python name (a function ends in '()')";
    (Function ? Into.Functions : Into.Names).push_back(Entry.str());
  }
  return std::nullopt;
}

namespace {

/// The dotted text of \p N (`a.b.c`) if it is an identifier or an
/// attribute chain, else empty.
std::string dottedText(PyNode N) {
  if (N.is("identifier") || N.is("attribute"))
    return N.text().str();
  return "";
}

bool listed(const std::vector<std::string> &List, llvm::StringRef Dotted) {
  llvm::StringRef Last = Dotted.rsplit('.').second;
  if (Last.empty())
    Last = Dotted;
  for (const std::string &Entry : List)
    if (Entry == Dotted || (!llvm::StringRef(Entry).contains('.') && Entry == Last))
      return true;
  return false;
}

/// The dotted name of an identifier or attribute chain with its head
/// resolved through the imports (`torch.get_device_module`), or "".
std::string resolvedDotted(const PyFile &File, PyNode N) {
  std::string Text = dottedText(N);
  if (Text.empty())
    return "";
  llvm::StringRef Head = llvm::StringRef(Text).split('.').first;
  auto Import = File.Imports.find(Head);
  if (Import == File.Imports.end() || Import->second.Module)
    return Text;
  return Import->second.Qualified + Text.substr(Head.size());
}

} // namespace

bool isDeviceModule(const PyFile &File, PyNode Expr) {
  Expr = Expr.is("parenthesized_expression") && !Expr.namedChildren().empty()
             ? Expr.namedChildren().front()
             : Expr;
  const PyDeviceModules *D = File.DeviceModules;
  if (Expr.is("call")) {
    PyNode Callee = Expr.field("function");
    std::string Name = resolvedDotted(File, Callee);
    if (Name.empty())
      return false;
    // getattr(torch, device_type): the module named by the device type.
    if (Name == "getattr") {
      auto Args = Expr.field("arguments").namedChildren();
      return !Args.empty() && resolvedDotted(File, Args.front()) == "torch";
    }
    return D && listed(D->Functions, Name);
  }
  std::string Name = resolvedDotted(File, Expr);
  if (Name == "torch.cuda")
    return true;
  return !Name.empty() && D && listed(D->Names, Name);
}

std::string qualifiedCallee(const PyFile &File, PyNode Callee,
                            llvm::function_ref<bool(PyNode)> IsDeviceModule) {
  // The chain from the callee down to its base, innermost last.
  llvm::SmallVector<PyNode, 4> Chain;
  PyNode N = Callee;
  while (N.is("attribute")) {
    Chain.push_back(N);
    N = N.field("object");
  }
  // The longest prefix that denotes the device module (never the callee
  // itself: `get_accelerator` called is not a stream call).
  auto deviceModule = [&](PyNode Prefix) {
    return isDeviceModule(File, Prefix) ||
           (IsDeviceModule && IsDeviceModule(Prefix));
  };
  for (size_t I = 0; I < Chain.size(); ++I) {
    if (!deviceModule(Chain[I].field("object")))
      continue;
    std::string Result = "torch.cuda";
    for (size_t J = I + 1; J-- > 0;)
      Result += "." + Chain[J].field("attribute").text().str();
    return Result;
  }
  if (!N.is("identifier"))
    return "";
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  for (auto It = Chain.rbegin(); It != Chain.rend(); ++It)
    Parts.push_back(It->field("attribute").text());
  std::string Head = N.text().str();
  auto Import = File.Imports.find(Head);
  if (Import != File.Imports.end()) {
    if (Import->second.Module)
      return ""; // a local module: resolved by the lowering
    Head = Import->second.Qualified;
  } else if (Head != "torch") {
    // Not imported: a local, a builtin, or torch without an import we saw.
    return "";
  }
  std::string Result = Head;
  for (llvm::StringRef Part : Parts)
    Result += "." + Part.str();
  // DeepSpeed's communication module mirrors torch.distributed: the same
  // collectives (async_op included) and barrier, on the same process groups.
  constexpr llvm::StringLiteral DeepSpeedComm = "deepspeed.comm";
  if (llvm::StringRef(Result).starts_with(DeepSpeedComm) &&
      (Result.size() == DeepSpeedComm.size() || Result[DeepSpeedComm.size()] == '.'))
    Result = "torch.distributed" + Result.substr(DeepSpeedComm.size());
  return Result;
}

ValueKind annotationKind(llvm::StringRef Type) {
  Type = Type.trim().trim("'\"").trim();
  for (llvm::StringRef Optional : {"typing.Optional[", "Optional["})
    if (Type.starts_with(Optional) && Type.ends_with("]"))
      Type = Type.drop_front(Optional.size()).drop_back().trim();
  if (Type.ends_with("| None"))
    Type = Type.drop_back(6).trim();
  if (Type.starts_with("None |"))
    Type = Type.drop_front(6).trim();
  if (Type.empty() || Type.contains('[') || Type.contains('|') ||
      Type.contains(','))
    return ValueKind::Unknown; // containers, unions, generics
  llvm::StringRef Last = Type.rsplit('.').second;
  if (Last.empty())
    Last = Type;
  if (Last == "int" || Last == "float" || Last == "str" || Last == "bool" ||
      Last == "bytes" || Last == "complex" || Last == "dict" ||
      Last == "list" || Last == "tuple" || Last == "set" || Last == "device" ||
      Last == "dtype" || Last == "Size")
    return ValueKind::Other;
  if (Last == "Tensor" || Last == "Parameter" || Last == "DTensor")
    return ValueKind::Tensor;
  // The legacy typed tensors: torch.cuda.FloatTensor, LongTensor, ...
  for (llvm::StringRef Typed : {"Float", "Double", "Half", "BFloat16", "Byte",
                                "Char", "Short", "Int", "Long", "Bool"})
    if (Last == (Typed + "Tensor").str())
      return ValueKind::Tensor;
  if (Last == "Stream" || Last == "ExternalStream")
    return ValueKind::Stream;
  if (Last == "Event")
    return ValueKind::Event;
  if (Last == "Work")
    return ValueKind::Work;
  // Any other class (a batch type, `KeyedJaggedTensor`, a module, a type
  // variable bound to such a class) is not a tensor; `Any` and
  // lower-case names (aliases we cannot see through) are unknown.
  if (Last == "Any" || Last == "object" || !llvm::isUpper(Last.front()))
    return ValueKind::Unknown;
  return ValueKind::Other;
}

bool isHostDevice(PyNode N) {
  llvm::StringRef T = N.text();
  if (N.is("call") && !N.field("arguments").namedChildren().empty())
    T = N.field("arguments").namedChildren().front().text();
  T = T.trim("'\"");
  return T.starts_with("cpu") || T == "meta";
}

bool makesHostTensor(PyNode Call, bool DefaultsToHost) {
  PyNode Device;
  for (PyNode Arg : Call.field("arguments").namedChildren()) {
    if (!Arg.is("keyword_argument"))
      continue;
    llvm::StringRef Name = Arg.field("name").text();
    if (Name == "pin_memory" && Arg.field("value").is("true"))
      return true;
    if (Name == "device")
      Device = Arg.field("value");
  }
  return Device ? isHostDevice(Device) : DefaultsToHost;
}

AttributeFact classifyCreation(const PyFile &File, PyNode Expr) {
  while (Expr.is("parenthesized_expression") && !Expr.namedChildren().empty())
    Expr = Expr.namedChildren().front();
  if (Expr.is("conditional_expression")) {
    // `get_device_module(d).stream if cuda else torch.cuda.stream`: what
    // either branch makes (the other is usually a no-op stand-in).
    for (PyNode Branch : Expr.namedChildren())
      if (AttributeFact Fact = classifyCreation(File, Branch);
          Fact.Kind == ValueKind::StreamContextFn ||
          Fact.Kind == ValueKind::DeviceModule)
        return Fact;
    return {};
  }
  if (isDeviceModule(File, Expr))
    return {ValueKind::DeviceModule, false};
  if (Expr.is("identifier") || Expr.is("attribute")) {
    if (const PyApiRow *Row = classifyFunction(qualifiedCallee(File, Expr)))
      if (Row->Op == PyOp::StreamContext)
        return {ValueKind::StreamContextFn, false};
    return {};
  }
  if (!Expr.is("call"))
    return {};
  PyNode Callee = Expr.field("function");
  std::string Name = qualifiedCallee(File, Callee);
  if (const PyApiRow *Row = classifyFunction(Name)) {
    switch (Row->Op) {
    case PyOp::CreateStream:
      return {ValueKind::Stream, false};
    case PyOp::CurrentStream:
      return {ValueKind::Stream, true};
    case PyOp::CreateEvent:
      return {ValueKind::Event, false};
    case PyOp::Factory:
      return {makesHostTensor(Expr, true) ? ValueKind::HostTensor
                                          : ValueKind::Tensor,
              false};
    case PyOp::FactoryLike:
      return {makesHostTensor(Expr, false) ? ValueKind::HostTensor
                                           : ValueKind::Tensor,
              false};
    default:
      return {};
    }
  }
  if (Callee.is("attribute") &&
      Callee.field("attribute").text() == "record_event")
    return {ValueKind::Event, false};
  return {};
}

namespace {

/// What a dataclass field's default_factory makes per object:
/// `field(default_factory=lambda: E)` what E makes, `field(default_factory=
/// torch.cuda.current_stream)` the current stream. Nothing for any other
/// value (the caller keeps only the current stream).
AttributeFact dataclassFactoryFact(const PyFile &File, PyNode Value) {
  if (!Value || !Value.is("call"))
    return {};
  // Spelled as written: the definitions are read without the file's
  // imports (`from dataclasses import field` is the usual spelling).
  llvm::StringRef Callee = Value.field("function").text();
  if (Callee != "dataclasses.field" && Callee != "field")
    return {};
  for (PyNode Arg : Value.field("arguments").namedChildren()) {
    if (!Arg.is("keyword_argument") ||
        Arg.field("name").text() != "default_factory")
      continue;
    PyNode Factory = Arg.field("value");
    if (Factory.is("lambda"))
      return classifyCreation(File, Factory.field("body"));
    if (const PyApiRow *Row = classifyFunction(qualifiedCallee(File, Factory));
        Row && Row->Op == PyOp::CurrentStream)
      return {ValueKind::Stream, true};
  }
  return {};
}

/// The names a module-level statement binds (its assignment targets, a
/// definition's name, an import's names, a loop's targets).
void namesBoundBy(PyNode Stmt, llvm::SmallVectorImpl<llvm::StringRef> &Names) {
  std::function<void(PyNode)> Targets = [&](PyNode T) {
    if (T.is("identifier"))
      Names.push_back(T.text());
    else if (T.is("pattern_list") || T.is("tuple_pattern") || T.is("list_pattern") ||
             T.is("tuple") || T.is("list") || T.is("parenthesized_expression"))
      for (PyNode E : T.namedChildren())
        Targets(E);
  };
  PyNode Def = definitionOf(Stmt);
  if (Def.is("function_definition") || Def.is("class_definition")) {
    Names.push_back(Def.field("name").text());
  } else if (Stmt.is("import_statement") || Stmt.is("import_from_statement")) {
    for (PyNode Item : Stmt.namedChildren()) {
      if (Item.is("aliased_import"))
        Names.push_back(Item.field("alias").text());
      else if (Item.is("dotted_name") && !(Item == Stmt.field("module_name")))
        Names.push_back(Item.text().split('.').first);
    }
  } else if (Stmt.is("for_statement")) {
    Targets(Stmt.field("left"));
  } else if (Stmt.is("expression_statement")) {
    for (PyNode E : Stmt.namedChildren())
      for (PyNode A = E; A.is("assignment") || A.is("augmented_assignment"); A = A.field("right"))
        Targets(A.field("left"));
  }
}

/// Fills Definitions.ModuleObjects: a module-level `NAME = f(...)` whose
/// NAME nothing else at module level binds and no function rebinds through
/// `global NAME` (the lowering then knows what the name holds in every
/// function that does not bind it itself).
void noteModuleObjects(PyNode Root, PyDefinitions &Definitions) {
  llvm::StringMap<unsigned> Bindings;
  llvm::StringMap<PyNode> Made;
  forEachModuleStatement(Root, [&](PyNode Stmt) {
    llvm::SmallVector<llvm::StringRef, 4> Names;
    namesBoundBy(Stmt, Names);
    for (llvm::StringRef Name : Names)
      ++Bindings[Name];
    if (!Stmt.is("expression_statement") || Stmt.namedChildren().size() != 1)
      return;
    PyNode A = Stmt.namedChildren().front();
    if (A.is("assignment") && A.field("left").is("identifier") && A.field("right").is("call"))
      Made[A.field("left").text()] = A.field("right");
  });
  std::function<void(PyNode)> Globals = [&](PyNode N) {
    if (N.is("global_statement")) {
      for (PyNode Name : N.namedChildren())
        ++Bindings[Name.text()];
      return;
    }
    for (PyNode Child : N.namedChildren())
      Globals(Child);
  };
  Globals(Root);
  for (auto &Entry : Made)
    if (Bindings.lookup(Entry.getKey()) == 1)
      Definitions.ModuleObjects[Entry.getKey()] = Entry.getValue();
}

/// What \p Source defines (see PyDefinitions), read anew.
std::shared_ptr<const PyDefinitions>
readDefinitions(const std::shared_ptr<const PySourceFile> &Source,
                const PyDeviceModules &DeviceModules) {
  auto Definitions = std::make_shared<PyDefinitions>();
  // What attribute values create is judged as in a file without imports.
  const PyFile File(Source, Definitions, &DeviceModules);
  auto addFunction = [&](PyNode Def, PyClassDef *Class) {
    auto Function = std::make_unique<PyFunctionDef>();
    std::string Name = Def.field("name").text().str();
    Function->QualifiedName = Class ? Class->Name + "." + Name : Name;
    Function->ClassName = Class ? Class->Name : "";
    Function->Node = Def;
    Function->Params = parameterNames(Def);
    if (Class)
      Class->Methods[Name] = Function.get();
    else
      Definitions->TopLevelFunctions[Name] = Function.get();
    Definitions->Functions.push_back(std::move(Function));
  };
  noteModuleObjects(Source->root(), *Definitions);
  forEachModuleStatement(Source->root(), [&](PyNode Stmt) {
    PyNode Def = definitionOf(Stmt);
    if (Def.is("function_definition")) {
      addFunction(Def, nullptr);
      return;
    }
    if (!Def.is("class_definition"))
      return;
    auto Class = std::make_unique<PyClassDef>();
    Class->Name = Def.field("name").text().str();
    Class->Source = Source.get();
    for (PyNode Base : Def.field("superclasses").namedChildren())
      Class->Bases.push_back(Base.text().str());
    for (PyNode Member : Def.field("body").namedChildren()) {
      PyNode MemberDef = definitionOf(Member);
      if (MemberDef.is("function_definition"))
        addFunction(MemberDef, Class.get());
      // `labels: torch.Tensor`, `features: KeyedJaggedTensor` (dataclass
      // fields, annotated attributes): what the attribute holds.
      if (Member.is("expression_statement") && !Member.namedChildren().empty()) {
        PyNode Field = Member.namedChildren().front();
        if (Field.is("assignment") && Field.field("left").is("identifier") &&
            Field.field("type")) {
          if (ValueKind K = annotationKind(Field.field("type").text());
              K != ValueKind::Unknown)
            Class->Attributes[Field.field("left").text()] = {K, false};
          // `compute: Stream = field(default_factory=lambda:
          // torch.cuda.current_stream())`: made per object, as
          // `self.compute = torch.cuda.current_stream()` in __init__ is.
          if (AttributeFact Made = dataclassFactoryFact(File, Field.field("right"));
              Made.Kind == ValueKind::Stream && Made.IsCurrentStream)
            Class->Attributes[Field.field("left").text()] = Made;
        }
      }
    }
    Definitions->Classes[Class->Name] = std::move(Class);
  });
  // Attribute facts: `self.x = <creation>` in any method.
  for (auto &Entry : Definitions->Classes) {
    PyClassDef &Class = *Entry.second;
    for (auto &MethodEntry : Class.Methods) {
      PyFunctionDef &Method = *MethodEntry.second;
      if (Method.Params.empty())
        continue;
      const std::string &Self = Method.Params.front();
      // Statements only: an assignment to `self.x` is a statement (or the
      // value of one, `self.a = self.b = ...`), so the walk never descends
      // into expressions, which are most of a method's nodes.
      std::function<void(PyNode)> Scan = [&](PyNode N) {
        if (N.is("function_definition") && !(N == Method.Node))
          return;
        if (N.is("expression_statement")) {
          for (PyNode E : N.namedChildren())
            for (PyNode A = E; A.is("assignment"); A = A.field("right"))
              Scan(A);
          return;
        }
        if (N.is("assignment")) {
          PyNode Left = N.field("left"), Right = N.field("right");
          if (Left.is("attribute") && Left.field("object").text() == Self) {
            llvm::StringRef Attr = Left.field("attribute").text();
            AttributeFact Fact = classifyCreation(File, Right);
            // `self.x: KeyedJaggedTensor = ...`: the annotation says more
            // than the value.
            if (PyNode Type = N.field("type"))
              if (ValueKind K = annotationKind(Type.text()); K != ValueKind::Unknown)
                Fact = {K, false};
            auto [It, Inserted] = Class.Attributes.try_emplace(Attr, Fact);
            if (!Inserted && !Right.is("none") &&
                (It->second.Kind != Fact.Kind ||
                 It->second.IsCurrentStream != Fact.IsCurrentStream)) {
              if (It->second.Kind == ValueKind::Unknown &&
                  It->second.Kind != Fact.Kind && Fact.Kind != ValueKind::Unknown)
                It->second = Fact; // the first assignment was `= None`
              else if (Fact.Kind != ValueKind::Unknown ||
                       It->second.Kind == ValueKind::Tensor)
                It->second = {ValueKind::Unknown, false};
            }
          }
          return;
        }
        for (PyNode Child : N.namedChildren())
          if (Child.is("block") || Child.kind().ends_with("statement") ||
              Child.kind().ends_with("clause"))
            Scan(Child);
      };
      Scan(Method.Node.field("body"));
    }
  }
  return Definitions;
}

/// What \p Source defines, read once per parsed file and device-module
/// spellings (kept with the parse, so a file parsed again is read again).
std::shared_ptr<const PyDefinitions>
sharedDefinitions(const std::shared_ptr<const PySourceFile> &Source,
                  const PyDeviceModules &DeviceModules) {
  ParseCache &Cache = parseCache();
  auto entry = [&]() -> ParseCache::Entry * {
    auto Found = Cache.Files.find(Source->path());
    return Found != Cache.Files.end() && Found->second.File == Source
               ? &Found->second
               : nullptr; // text in memory, or a file parsed again since
  };
  {
    std::lock_guard<std::mutex> Guard(Cache.Lock);
    if (ParseCache::Entry *E = entry())
      for (const auto &[Spellings, Definitions] : E->Definitions)
        if (Spellings == DeviceModules)
          return Definitions;
  }
  std::shared_ptr<const PyDefinitions> Definitions = readDefinitions(Source, DeviceModules);
  std::lock_guard<std::mutex> Guard(Cache.Lock);
  if (ParseCache::Entry *E = entry())
    E->Definitions.emplace_back(DeviceModules, Definitions);
  return Definitions;
}

} // namespace

PyFile *PyModuleSet::add(std::shared_ptr<const PySourceFile> Source) {
  std::shared_ptr<const PyDefinitions> Definitions = sharedDefinitions(Source, DeviceModules);
  auto File = std::make_unique<PyFile>(std::move(Source), std::move(Definitions), &DeviceModules);
  File->Index = Files.size();
  ByPath[File->Source->path()] = File.get();
  BySource[File->Source.get()] = File.get();
  Files.push_back(std::move(File));
  return Files.back().get();
}

PyFile *PyModuleSet::loadModule(const PyFile &From, llvm::StringRef Dotted,
                                unsigned Level, unsigned Depth) {
  llvm::SmallString<256> Base(llvm::sys::path::parent_path(From.Source->path()));
  for (unsigned I = 1; I < Level; ++I)
    llvm::sys::path::remove_filename(Base);
  return loadModuleAt(Base, Dotted, Depth, /*Transitive=*/true);
}

PyFile *PyModuleSet::loadModuleAt(llvm::StringRef Base, llvm::StringRef Dotted,
                                  unsigned Depth, bool Transitive) {
  if (Files.size() >= MaxFiles || Depth > MaxImportDepth)
    return nullptr;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Dotted.split(Parts, '.', -1, false);
  llvm::SmallString<256> Candidate(Base);
  for (llvm::StringRef Part : Parts)
    llvm::sys::path::append(Candidate, Part);
  std::string AsFile = (Candidate + ".py").str();
  llvm::SmallString<256> AsPackage(Candidate);
  llvm::sys::path::append(AsPackage, "__init__.py");
  for (const std::string &Path : {AsFile, std::string(AsPackage)}) {
    if (Parts.empty() && Path == AsFile)
      continue;
    auto Known = ByPath.find(Path);
    if (Known != ByPath.end())
      return Known->second;
    if (!llvm::sys::fs::is_regular_file(Path))
      continue;
    std::string Error;
    std::shared_ptr<const PySourceFile> Source = parsedFile(Path, Error);
    if (!Source || Source->syntaxError())
      return nullptr;
    PyFile *Loaded = add(std::move(Source));
    if (Transitive)
      resolveImports(*Loaded, Depth);
    return Loaded;
  }
  return nullptr;
}

void PyModuleSet::resolvePackageImports(PyFile &File) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(File.Source->path());
  llvm::SmallString<256> Root(Dir);
  bool InPackage = false;
  for (;;) {
    llvm::SmallString<256> Init(Root);
    llvm::sys::path::append(Init, "__init__.py");
    if (Root.empty() || !llvm::sys::fs::is_regular_file(Init))
      break;
    InPackage = true;
    Root = llvm::sys::path::parent_path(Root);
  }
  // Where Python finds package Top for this file: below the parent of the
  // file's nearest ancestor directory named Top (`from megatron.core.x
  // import f` in megatron/core/y.py, megatron/ a namespace package without
  // __init__.py); else below the nearest ancestor that holds Top as a
  // regular package (a repository's tests/ importing the repository's
  // package, which the test runner or an editable install puts on the
  // path); else, in a package, above its outermost regular package.
  auto baseOf = [&](llvm::StringRef Top) -> std::optional<std::string> {
    for (llvm::StringRef Up = Dir;
         !Up.empty() && Up != llvm::sys::path::parent_path(Up);
         Up = llvm::sys::path::parent_path(Up))
      if (llvm::sys::path::filename(Up) == Top)
        return llvm::sys::path::parent_path(Up).str();
    unsigned Levels = 0;
    for (llvm::StringRef Up = llvm::sys::path::parent_path(Dir);
         !Up.empty() && Up != llvm::sys::path::parent_path(Up) &&
         Levels < MaxAncestorLevels;
         Up = llvm::sys::path::parent_path(Up), ++Levels) {
      llvm::SmallString<256> Init(Up);
      llvm::sys::path::append(Init, Top, "__init__.py");
      if (llvm::sys::fs::is_regular_file(Init))
        return Up.str();
    }
    if (InPackage)
      return std::string(Root);
    return std::nullopt;
  };
  auto resolve = [&](PyNode Stmt) {
    PyNode Module = Stmt.field("module_name");
    if (Module.is("relative_import"))
      return;
    std::optional<std::string> Base = baseOf(Module.text().split('.').first);
    if (!Base)
      return;
    PyFile *Local = nullptr;
    for (PyNode Name : Stmt.fields("name")) {
      PyNode Symbol = Name.is("aliased_import") ? Name.field("name") : Name;
      PyNode Alias = Name.is("aliased_import") ? Name.field("alias") : Symbol;
      auto Known = File.Imports.find(Alias.text());
      if (Known != File.Imports.end() && Known->second.Module)
        continue;
      if (!Local &&
          !(Local = loadModuleAt(*Base, Module.text(), 1, /*Transitive=*/false)))
        return;
      ImportBinding Binding;
      Binding.Module = Local;
      Binding.Symbol = Symbol.text().str();
      File.Imports[Alias.text()] = Binding;
    }
  };
  forEachModuleStatement(File.Source->root(), [&](PyNode Stmt) {
    if (Stmt.is("import_from_statement"))
      resolve(Stmt);
  });
  // `from pkg.mod import helper` inside a function (a test importing what
  // it tests): bound for the whole file, as a name a module-level import
  // did not bind already (scopes are not told apart).
  std::function<void(PyNode)> InFunctions = [&](PyNode N) {
    if (N.is("import_from_statement"))
      return resolve(N);
    for (PyNode Child : N.namedChildren())
      InFunctions(Child);
  };
  forEachModuleStatement(File.Source->root(), [&](PyNode Stmt) {
    if (Stmt.is("function_definition") || Stmt.is("class_definition") ||
        Stmt.is("decorated_definition"))
      InFunctions(Stmt);
  });
}

void PyModuleSet::resolveImports(PyFile &File, unsigned Depth) {
  forEachModuleStatement(File.Source->root(), [&](PyNode Stmt) {
    if (Stmt.is("import_statement")) {
      for (PyNode Name : Stmt.fields("name")) {
        PyNode Dotted = Name.is("aliased_import") ? Name.field("name") : Name;
        PyNode Alias = Name.is("aliased_import") ? Name.field("alias") : PyNode();
        std::string Path = Dotted.text().str();
        ImportBinding Binding;
        if (PyFile *Local = loadModule(File, Path, 1, Depth + 1))
          Binding.Module = Alias ? Local : nullptr;
        if (Alias) {
          if (!Binding.Module)
            Binding.Qualified = Path;
          File.Imports[Alias.text()] = Binding;
        } else {
          // `import a.b` binds `a`.
          std::string Head = Path.substr(0, Path.find('.'));
          if (PyFile *Local = loadModule(File, Head, 1, Depth + 1))
            Binding.Module = Local;
          else
            Binding.Qualified = Head;
          File.Imports[Head] = Binding;
        }
      }
      return;
    }
    if (!Stmt.is("import_from_statement"))
      return;
    PyNode Module = Stmt.field("module_name");
    unsigned Level = 0;
    std::string Dotted;
    if (Module.is("relative_import")) {
      for (PyNode Part : Module.namedChildren()) {
        if (Part.is("import_prefix"))
          Level = Part.text().size();
        else
          Dotted = Part.text().str();
      }
    } else {
      Dotted = Module.text().str();
    }
    PyFile *Local = loadModule(File, Dotted, std::max(1u, Level), Depth + 1);
    // `from pipeline import *`: every public function and class of a local
    // module (the names its `__all__` would list, as far as we can tell
    // without running it: those not starting with '_').
    if (Local && llvm::any_of(Stmt.namedChildren(), [](PyNode Child) {
          return Child.is("wildcard_import");
        })) {
      auto bindAll = [&](llvm::StringRef Symbol) {
        if (Symbol.starts_with("_") || File.Imports.count(Symbol))
          return;
        ImportBinding Binding;
        Binding.Module = Local;
        Binding.Symbol = Symbol.str();
        File.Imports[Symbol] = Binding;
      };
      for (const auto &Function : Local->TopLevelFunctions)
        bindAll(Function.first());
      for (const auto &Class : Local->Classes)
        bindAll(Class.first());
      // The module's own imports come along too (`import torch` in it).
      for (const auto &Import : Local->Imports)
        if (!Import.first().starts_with("_") && !File.Imports.count(Import.first()))
          File.Imports[Import.first()] = Import.second;
    }
    for (PyNode Name : Stmt.fields("name")) {
      PyNode Symbol = Name.is("aliased_import") ? Name.field("name") : Name;
      PyNode Alias = Name.is("aliased_import") ? Name.field("alias") : Symbol;
      ImportBinding Binding;
      if (Local) {
        Binding.Module = Local;
        Binding.Symbol = Symbol.text().str();
        // `from pkg import mod`: a submodule rather than a symbol.
        if (!Local->TopLevelFunctions.count(Binding.Symbol) &&
            !Local->Classes.count(Binding.Symbol))
          if (PyFile *Sub = loadModule(*Local, Binding.Symbol, 1, Depth + 1)) {
            Binding.Module = Sub;
            Binding.Symbol.clear();
          }
      } else if (Level == 0) {
        Binding.Qualified = Dotted + "." + Symbol.text().str();
      } else {
        continue; // a relative import we could not find: unknown
      }
      File.Imports[Alias.text()] = Binding;
    }
  });
}

std::unique_ptr<PyModuleSet> PyModuleSet::load(const std::string &Path,
                                               std::string &Error,
                                               PyDeviceModules DeviceModules) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, true);
  std::shared_ptr<const PySourceFile> Source =
      parsedFile(std::string(Absolute), Error);
  if (!Source)
    return nullptr;
  auto Set = std::make_unique<PyModuleSet>();
  Set->DeviceModules = std::move(DeviceModules);
  Set->add(std::move(Source));
  if (!Set->main().Source->syntaxError()) {
    Set->resolveImports(Set->main(), 0);
    // What the file imports from its own package by its absolute name is
    // looked at where the file names record_stream: receivers of
    // record_stream whose kind nothing says may be objects of a class of
    // the package with a method of that name (torchrec's Multistreamable,
    // imported from the package's root), and a helper told to record the
    // stream may do it (Megatron-LM's maybe_move_tensor_to_cpu(t,
    // record_stream=on_side_stream), from the package's moe_utils). Only
    // for such files: it costs time, and a helper seen is read for what it
    // does, where an unknown call under `with torch.cuda.stream(s)` uses
    // its tensors on s. Read for every file of the corpus (tried again
    // once a helper's unknown calls used its parameters on its entry
    // stream), the corpus's Python check took 15% more CPU, found no
    // more true bugs, and lost a mutant that drops a wait before such a
    // helper (flashinfer's moe_output_memset_inplace; 7 before).
    if (Set->main().Source->text().contains("record_stream"))
      Set->resolvePackageImports(Set->main());
  }
  return Set;
}

std::unique_ptr<PyModuleSet> PyModuleSet::fromText(std::string Path,
                                                   std::string Text,
                                                   PyDeviceModules DeviceModules) {
  auto Set = std::make_unique<PyModuleSet>();
  Set->DeviceModules = std::move(DeviceModules);
  Set->add(PySourceFile::parse(std::move(Path), std::move(Text)));
  if (!Set->main().Source->syntaxError())
    Set->resolveImports(Set->main(), 0);
  return Set;
}

PyClassDef *PyModuleSet::findClass(const PyFile &From,
                                   llvm::StringRef Name) const {
  auto Local = From.Classes.find(Name);
  if (Local != From.Classes.end())
    return Local->second.get();
  auto Import = From.Imports.find(Name);
  if (Import != From.Imports.end() && Import->second.Module) {
    auto &Classes = Import->second.Module->Classes;
    auto Found = Classes.find(Import->second.Symbol);
    if (Found != Classes.end())
      return Found->second.get();
  }
  return nullptr;
}

PyFunctionDef *PyModuleSet::findMethod(const PyClassDef &Class,
                                       llvm::StringRef Name) const {
  const PyClassDef *C = &Class;
  for (unsigned Depth = 0; C && Depth < 8; ++Depth) {
    auto Found = C->Methods.find(Name);
    if (Found != C->Methods.end())
      return Found->second;
    const PyClassDef *Base = nullptr;
    for (const std::string &BaseName : C->Bases)
      if ((Base = findClass(*fileOf(*C->Source), BaseName)))
        break;
    C = Base;
  }
  return nullptr;
}

PyClassDef *PyModuleSet::uniqueClassWithMethod(llvm::StringRef Name) const {
  PyClassDef *Found = nullptr;
  for (const auto &File : Files)
    for (const auto &Entry : File->Classes)
      if (Entry.second->Methods.count(Name)) {
        if (Found)
          return nullptr;
        Found = Entry.second.get();
      }
  return Found;
}

bool PyModuleSet::anyClassWithMethod(llvm::StringRef Name) const {
  for (const auto &File : Files)
    for (const auto &Entry : File->Classes)
      if (Entry.second->Methods.count(Name))
        return true;
  return false;
}

PyClassDef *PyModuleSet::uniqueClassWithAttribute(llvm::StringRef Name) const {
  PyClassDef *Found = nullptr;
  for (const auto &File : Files)
    for (const auto &Entry : File->Classes)
      if (Entry.second->Attributes.count(Name)) {
        if (Found)
          return nullptr;
        Found = Entry.second.get();
      }
  return Found;
}

const PyFile *PyModuleSet::fileOf(const PySourceFile &Source) const {
  auto Found = BySource.find(&Source);
  assert(Found != BySource.end() && "a class from a file outside the set");
  return Found->second;
}

} // namespace streamlife::python
