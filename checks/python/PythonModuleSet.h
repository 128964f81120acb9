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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace streamlife::python {

struct PyFunctionDef {
  std::string QualifiedName; ///< "gather", "Pipeline.gather"
  std::string ClassName;     ///< Empty for a free function.
  PyNode Node;               ///< The function_definition.
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
  /// The file that defines it (PyModuleSet::fileOf finds it in a set).
  const PySourceFile *Source = nullptr;
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

/// What denotes the device module (torch.cuda on a CUDA machine) besides
/// `torch.cuda` itself: device-generic code reaches the stream API through
/// `torch.get_device_module(d)`, `getattr(torch, d)`, or a framework's
/// wrapper (DeepSpeed's and ColossalAI's `get_accelerator()`, verl's
/// `get_torch_device()`), and keeps the
/// module in a variable or attribute (FSDP's `device_handle`). Their stream
/// and event calls are then read as torch.cuda's. Configurable: the
/// `DeviceModules` option of `streamlife check` (README, "Python").
struct PyDeviceModules {
  /// Functions whose call returns the device module, by name or by dotted
  /// name after import resolution (`get_accelerator`,
  /// `torch.get_device_module`).
  std::vector<std::string> Functions;
  /// Variables and attributes that hold it (`device_handle`).
  std::vector<std::string> Names;

  /// The built-in list: PyTorch's own spellings and the well-known
  /// frameworks' wrappers.
  static PyDeviceModules defaults();
  /// Parses `name();other;attr` (a `()` suffix marks a function), adding to
  /// the defaults. Returns an error message for a malformed entry.
  static std::optional<std::string> parse(llvm::StringRef List,
                                          PyDeviceModules &Into);
  friend bool operator==(const PyDeviceModules &A, const PyDeviceModules &B) {
    return A.Functions == B.Functions && A.Names == B.Names;
  }
};

/// What a file defines: its functions, classes and methods, and what class
/// attributes hold. Read from the file's own text alone (its imports are not
/// resolved yet), so it depends only on the parsed file and the device-module
/// spellings: found once per process and shared by every check that loads
/// the file (every file of a package imports the same few modules).
struct PyDefinitions {
  std::vector<std::unique_ptr<PyFunctionDef>> Functions;
  llvm::StringMap<PyFunctionDef *> TopLevelFunctions;
  llvm::StringMap<std::unique_ptr<PyClassDef>> Classes;
  /// Module-level names made once by a call (`logger =
  /// logging.getLogger(__name__)`): the call. Only names that no other
  /// module-level statement binds and no function declares `global`.
  llvm::StringMap<PyNode> ModuleObjects;
};

/// One file of a module set: the shared parse and definitions, and what
/// its imports bind in this set.
struct PyFile {
  PyFile(std::shared_ptr<const PySourceFile> Source,
         std::shared_ptr<const PyDefinitions> Definitions,
         const PyDeviceModules *DeviceModules)
      : Source(std::move(Source)), DeviceModules(DeviceModules),
        Definitions(std::move(Definitions)),
        Functions(this->Definitions->Functions),
        TopLevelFunctions(this->Definitions->TopLevelFunctions),
        Classes(this->Definitions->Classes) {}

  /// Parsed once per process and shared (see parsedFile).
  std::shared_ptr<const PySourceFile> Source;
  /// The device-module spellings of the check (owned by the module set).
  const PyDeviceModules *DeviceModules = nullptr;
  unsigned Index = 0; ///< Load order; 0 is the checked file.
  /// Found once per process and shared (see PyDefinitions).
  std::shared_ptr<const PyDefinitions> Definitions;
  const std::vector<std::unique_ptr<PyFunctionDef>> &Functions;
  const llvm::StringMap<PyFunctionDef *> &TopLevelFunctions;
  const llvm::StringMap<std::unique_ptr<PyClassDef>> &Classes;
  llvm::StringMap<ImportBinding> Imports;
};

/// The checked file and the local modules it reaches.
class PyModuleSet {
public:
  /// Loads \p Path and its local imports. Returns null and sets \p Error
  /// when \p Path itself cannot be read; unreadable or unparsable imported
  /// modules are skipped (their calls are unknown calls).
  static std::unique_ptr<PyModuleSet>
  load(const std::string &Path, std::string &Error,
       PyDeviceModules DeviceModules = PyDeviceModules::defaults());
  /// Builds a set from text already in memory (tests, benches).
  static std::unique_ptr<PyModuleSet>
  fromText(std::string Path, std::string Text,
           PyDeviceModules DeviceModules = PyDeviceModules::defaults());

  PyFile &main() { return *Files.front(); }
  const std::vector<std::unique_ptr<PyFile>> &files() const { return Files; }

  /// The class named \p Name visible from \p From (defined or imported).
  PyClassDef *findClass(const PyFile &From, llvm::StringRef Name) const;
  /// The method \p Name of \p Class or of its bases in the set.
  PyFunctionDef *findMethod(const PyClassDef &Class, llvm::StringRef Name) const;
  /// The one class of the set with a method \p Name, if exactly one has it.
  PyClassDef *uniqueClassWithMethod(llvm::StringRef Name) const;
  /// Whether some class of the set has a method \p Name.
  bool anyClassWithMethod(llvm::StringRef Name) const;
  /// The one class of the set that assigns attribute \p Name, if exactly one.
  PyClassDef *uniqueClassWithAttribute(llvm::StringRef Name) const;

  /// The file of the set that \p Source is.
  const PyFile *fileOf(const PySourceFile &Source) const;

private:
  PyFile *add(std::shared_ptr<const PySourceFile> Source);
  void resolveImports(PyFile &File, unsigned Depth);
  PyFile *loadModule(const PyFile &From, llvm::StringRef Dotted,
                     unsigned Level, unsigned Depth);
  /// Module \p Dotted below directory \p Base; its own imports resolved
  /// when \p Transitive.
  PyFile *loadModuleAt(llvm::StringRef Base, llvm::StringRef Dotted,
                       unsigned Depth, bool Transitive);
  /// `from pkg.mod import X` in a file of package pkg, unresolved next to
  /// the file: pkg.mod from the directory above the outermost package (where
  /// Python's path finds it), without that module's own imports.
  void resolvePackageImports(PyFile &File);

  std::vector<std::unique_ptr<PyFile>> Files;
  std::map<std::string, PyFile *> ByPath;
  llvm::DenseMap<const PySourceFile *, PyFile *> BySource;
  PyDeviceModules DeviceModules;
};

/// \p Path parsed, once per process while the file is unchanged; null with
/// \p Error set when it cannot be read.
std::shared_ptr<const PySourceFile> parsedFile(const std::string &Path,
                                               std::string &Error);

/// What an expression creates, judged from its text alone (no scopes): the
/// stream/event/tensor constructors of the API table, resolved through the
/// imports of \p File. Used for class attribute facts and by the lowering.
AttributeFact classifyCreation(const PyFile &File, PyNode Expr);

/// `"cpu"`, `"meta"` or `torch.device("cpu")`: a device that is not a GPU.
bool isHostDevice(PyNode Device);

/// A tensor factory call (`torch.empty(...)`, `torch.empty_like(...)`) that
/// makes a host tensor: `pin_memory=True`, a host `device=`, or no device at
/// all for the factories that default to the CPU (\p DefaultsToHost).
bool makesHostTensor(PyNode Call, bool DefaultsToHost);

/// What a type annotation says a value is (`torch.Tensor`,
/// `Optional[Tensor]`, `nn.Parameter`: a tensor; `int`, a class that is not a
/// tensor such as `KeyedJaggedTensor`: not a buffer; generics and `Any`:
/// unknown).
ValueKind annotationKind(llvm::StringRef Type);

/// Whether \p Expr denotes the device module by its spelling alone (a call
/// of a device-module function, `getattr(torch, d)`, `torch.cuda`, a name
/// of PyDeviceModules::Names).
bool isDeviceModule(const PyFile &File, PyNode Expr);

/// The dotted name of a callee (`torch.cuda.Stream`, `dist.all_reduce`)
/// with its first component resolved through \p File's imports, and the
/// device module however it is reached read as torch.cuda
/// (`get_accelerator().Stream` is torch.cuda.Stream); empty when the callee
/// is not a dotted name. \p IsDeviceModule tells of names that hold the
/// device module by the lowering's knowledge (a local assigned one).
std::string
qualifiedCallee(const PyFile &File, PyNode Callee,
                llvm::function_ref<bool(PyNode)> IsDeviceModule = nullptr);

} // namespace streamlife::python

#endif // STREAMLIFE_CHECKS_PYTHON_PYTHONMODULESET_H
