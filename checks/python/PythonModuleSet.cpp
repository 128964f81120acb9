//===--- PythonModuleSet.cpp - streamlife ---------------------------------===//

#include "PythonModuleSet.h"

#include "support/InputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <functional>

namespace streamlife::python {
namespace {

/// Local imports are followed this deep (the checked file is depth 0).
constexpr unsigned MaxImportDepth = 3;
/// And at most this many files are loaded for one check.
constexpr unsigned MaxFiles = 32;

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

std::string qualifiedCallee(const PyFile &File, PyNode Callee) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  PyNode N = Callee;
  while (N.is("attribute")) {
    Parts.push_back(N.field("attribute").text());
    N = N.field("object");
  }
  if (!N.is("identifier"))
    return "";
  Parts.push_back(N.text());
  std::reverse(Parts.begin(), Parts.end());
  // `device_handle = _get_device_handle(device.type)` (FSDP and others):
  // the device module, torch.cuda on CUDA; `self.device_handle.Stream()` is
  // torch.cuda.Stream().
  for (size_t I = 0; I + 1 < Parts.size(); ++I)
    if (Parts[I] == "device_handle" || Parts[I] == "_device_handle") {
      std::string Result = "torch.cuda";
      for (llvm::StringRef Part : llvm::ArrayRef(Parts).drop_front(I + 1))
        Result += "." + Part.str();
      return Result;
    }
  std::string Head = Parts.front().str();
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
  for (llvm::StringRef Part : llvm::ArrayRef(Parts).drop_front())
    Result += "." + Part.str();
  return Result;
}

AttributeFact classifyCreation(const PyFile &File, PyNode Expr) {
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
    case PyOp::FactoryLike:
      return {ValueKind::Tensor, false};
    default:
      return {};
    }
  }
  if (Callee.is("attribute") &&
      Callee.field("attribute").text() == "record_event")
    return {ValueKind::Event, false};
  return {};
}

PyFile *PyModuleSet::add(std::unique_ptr<PySourceFile> Source) {
  auto File = std::make_unique<PyFile>();
  File->Index = Files.size();
  File->Source = std::move(Source);
  ByPath[File->Source->path()] = File.get();
  Files.push_back(std::move(File));
  index(*Files.back());
  return Files.back().get();
}

void PyModuleSet::index(PyFile &File) {
  auto addFunction = [&](PyNode Def, PyClassDef *Class) {
    auto Function = std::make_unique<PyFunctionDef>();
    std::string Name = Def.field("name").text().str();
    Function->QualifiedName = Class ? Class->Name + "." + Name : Name;
    Function->ClassName = Class ? Class->Name : "";
    Function->Node = Def;
    Function->File = &File;
    Function->Params = parameterNames(Def);
    if (Class)
      Class->Methods[Name] = Function.get();
    else
      File.TopLevelFunctions[Name] = Function.get();
    File.Functions.push_back(std::move(Function));
  };
  forEachModuleStatement(File.Source->root(), [&](PyNode Stmt) {
    PyNode Def = definitionOf(Stmt);
    if (Def.is("function_definition")) {
      addFunction(Def, nullptr);
      return;
    }
    if (!Def.is("class_definition"))
      return;
    auto Class = std::make_unique<PyClassDef>();
    Class->Name = Def.field("name").text().str();
    Class->File = &File;
    for (PyNode Base : Def.field("superclasses").namedChildren())
      Class->Bases.push_back(Base.text().str());
    for (PyNode Member : Def.field("body").namedChildren()) {
      PyNode MemberDef = definitionOf(Member);
      if (MemberDef.is("function_definition"))
        addFunction(MemberDef, Class.get());
    }
    File.Classes[Class->Name] = std::move(Class);
  });
  // Attribute facts: `self.x = <creation>` in any method.
  for (auto &Entry : File.Classes) {
    PyClassDef &Class = *Entry.second;
    for (auto &MethodEntry : Class.Methods) {
      PyFunctionDef &Method = *MethodEntry.second;
      if (Method.Params.empty())
        continue;
      const std::string &Self = Method.Params.front();
      std::function<void(PyNode)> Scan = [&](PyNode N) {
        if (N.is("function_definition") && !(N == Method.Node))
          return;
        if (N.is("assignment")) {
          PyNode Left = N.field("left"), Right = N.field("right");
          if (Left.is("attribute") && Left.field("object").text() == Self) {
            llvm::StringRef Attr = Left.field("attribute").text();
            AttributeFact Fact = classifyCreation(File, Right);
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
        }
        for (PyNode Child : N.namedChildren())
          Scan(Child);
      };
      Scan(Method.Node);
    }
  }
}

PyFile *PyModuleSet::loadModule(const PyFile &From, llvm::StringRef Dotted,
                                unsigned Level, unsigned Depth) {
  if (Files.size() >= MaxFiles || Depth > MaxImportDepth)
    return nullptr;
  llvm::SmallString<256> Base(llvm::sys::path::parent_path(From.Source->path()));
  for (unsigned I = 1; I < Level; ++I)
    llvm::sys::path::remove_filename(Base);
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
    std::string Text, Why;
    if (!readInputFile(Path, SourceFileLimit, Text, Why))
      return nullptr;
    auto Source = PySourceFile::parse(Path, std::move(Text));
    if (Source->syntaxError())
      return nullptr;
    PyFile *Loaded = add(std::move(Source));
    resolveImports(*Loaded, Depth);
    return Loaded;
  }
  return nullptr;
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
                                               std::string &Error) {
  // A regular file of bounded size: a FIFO or a link to /dev/zero named
  // *.py would block or be read until memory runs out.
  std::string Text;
  if (!readInputFile(Path, SourceFileLimit, Text, Error))
    return nullptr;
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, true);
  auto Set = std::make_unique<PyModuleSet>();
  Set->add(PySourceFile::parse(std::string(Absolute), std::move(Text)));
  if (!Set->main().Source->syntaxError())
    Set->resolveImports(Set->main(), 0);
  return Set;
}

std::unique_ptr<PyModuleSet> PyModuleSet::fromText(std::string Path,
                                                   std::string Text) {
  auto Set = std::make_unique<PyModuleSet>();
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
      if ((Base = findClass(*C->File, BaseName)))
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

} // namespace streamlife::python
