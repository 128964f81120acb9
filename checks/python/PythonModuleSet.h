//===--- PythonModuleSet.h - streamlife -------------------------*- C++ -*-===//
//
// The Python files one check looks at: the checked file and the local modules
// it imports (`from pipeline import gather`, `import helpers`, relative
// imports), found next to it on disk, transitively. For each file it keeps
// the symbols the lowering resolves calls against: top-level functions,
// classes and their methods, and the import aliases (`import torch.distributed
// as dist`). For each class it records what its attributes hold
// (`self.ag = torch.cuda.Stream()` makes `ag` a stream created by the class),
// which is how `p.ag` in another function is known to be a stream.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_PYTHON_PYTHONMODULESET_H
#define STREAMLIFE_CHECKS_PYTHON_PYTHONMODULESET_H

#include "PythonApiTable.h"
#include "PythonSyntax.h"

#include "llvm/ADT/StringMap.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace streamlife::python {

struct PyFunctionDef {
  std::string QualifiedName; ///< "gather", "Pipeline.gather"
  std::string ClassName;     ///< Empty for a free function.
  PyNode Node;               ///< The function_definition.
  const struct PyFile *File = nullptr;
  std::vector<std::string> Params; ///< Names, in order (self included).
};

/// What a class attribute was seen to hold across the class's methods.
struct AttributeFact {
  ValueKind Kind = ValueKind::Unknown;
  /// For streams: created by the class (torch.cuda.Stream()), or the
  /// current/default stream at the time of assignment.
  bool IsCurrentStream = false;
};

struct PyClassDef {
  std::string Name;
  const struct PyFile *File = nullptr;
  std::vector<std::string> Bases;
  llvm::StringMap<PyFunctionDef *> Methods;
  llvm::StringMap<AttributeFact> Attributes;
};

/// What a name bound by an import denotes.
struct ImportBinding {
  /// A library path (`torch.distributed`, `torch.cuda.Stream`) when the
  /// import is not a local module.
  std::string Qualified;
  /// The local module file when it is one, and the symbol in it ("" for the
  /// module itself).
  struct PyFile *Module = nullptr;
  std::string Symbol;
};

struct PyFile {
  std::unique_ptr<PySourceFile> Source;
  unsigned Index = 0; ///< Load order; 0 is the checked file.
  std::vector<std::unique_ptr<PyFunctionDef>> Functions;
  llvm::StringMap<PyFunctionDef *> TopLevelFunctions;
  llvm::StringMap<std::unique_ptr<PyClassDef>> Classes;
  llvm::StringMap<ImportBinding> Imports;
};

/// The checked file and the local modules it reaches.
class PyModuleSet {
public:
  /// Loads \p Path and its local imports. Returns null and sets \p Error
  /// when \p Path itself cannot be read; unreadable or unparsable imported
  /// modules are skipped (their calls are unknown calls).
  static std::unique_ptr<PyModuleSet> load(const std::string &Path,
                                           std::string &Error);
  /// Builds a set from text already in memory (tests, benches).
  static std::unique_ptr<PyModuleSet> fromText(std::string Path,
                                               std::string Text);

  PyFile &main() { return *Files.front(); }
  const std::vector<std::unique_ptr<PyFile>> &files() const { return Files; }

  /// The class named \p Name visible from \p From (defined or imported).
  PyClassDef *findClass(const PyFile &From, llvm::StringRef Name) const;
  /// The method \p Name of \p Class or of its bases in the set.
  PyFunctionDef *findMethod(const PyClassDef &Class, llvm::StringRef Name) const;
  /// The one class of the set with a method \p Name, if exactly one has it.
  PyClassDef *uniqueClassWithMethod(llvm::StringRef Name) const;
  /// The one class of the set that assigns attribute \p Name, if exactly one.
  PyClassDef *uniqueClassWithAttribute(llvm::StringRef Name) const;

private:
  PyFile *add(std::unique_ptr<PySourceFile> Source);
  void index(PyFile &File);
  void resolveImports(PyFile &File, unsigned Depth);
  PyFile *loadModule(const PyFile &From, llvm::StringRef Dotted,
                     unsigned Level, unsigned Depth);

  std::vector<std::unique_ptr<PyFile>> Files;
  std::map<std::string, PyFile *> ByPath;
};

/// What an expression creates, judged from its text alone (no scopes): the
/// stream/event/tensor constructors of the API table, resolved through the
/// imports of \p File. Used for class attribute facts and by the lowering.
AttributeFact classifyCreation(const PyFile &File, PyNode Expr);

/// The dotted name of a callee (`torch.cuda.Stream`, `dist.all_reduce`)
/// with its first component resolved through \p File's imports, and a
/// `device_handle` (the device module, as FSDP names it) read as torch.cuda;
/// empty when the callee is not a plain dotted name.
std::string qualifiedCallee(const PyFile &File, PyNode Callee);

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONMODULESET_H
