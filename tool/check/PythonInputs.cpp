//===- PythonInputs.cpp - which inputs are Python -------------------------===//
#include "PythonInputs.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>

namespace streamlife::check {
namespace {

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

/// Directories nobody wants searched: VCS metadata, caches, virtualenvs.
bool isSkippedDirectory(llvm::StringRef Name) {
  return Name == ".git" || Name == "__pycache__" || Name == ".hg" ||
         Name == ".tox" || Name == ".venv" || Name == "node_modules" ||
         Name == ".mypy_cache";
}

} // namespace

bool isPythonSource(llvm::StringRef Path) {
  return llvm::sys::path::extension(Path) == ".py";
}

llvm::Expected<SplitInputs> splitPythonInputs(llvm::ArrayRef<std::string> Files,
                                              const std::optional<std::string> &FilesRegex,
                                              const std::optional<std::string> &ExcludeRegex) {
  std::optional<llvm::Regex> Keep, Exclude;
  if (FilesRegex)
    Keep.emplace(*FilesRegex);
  if (ExcludeRegex)
    Exclude.emplace(*ExcludeRegex);
  auto wanted = [&](llvm::StringRef Absolute) {
    return (!Keep || Keep->match(Absolute)) && (!Exclude || !Exclude->match(Absolute));
  };
  SplitInputs Result;
  llvm::StringSet<> Seen;
  auto addPython = [&](const std::string &Absolute) {
    if (wanted(Absolute) && Seen.insert(Absolute).second)
      Result.PythonFiles.push_back(Absolute);
  };
  llvm::Error Errors = llvm::Error::success();
  for (const std::string &File : Files) {
    if (isPythonSource(File) && !llvm::sys::fs::is_directory(File)) {
      if (!llvm::sys::fs::exists(File))
        Errors = llvm::joinErrors(std::move(Errors),
                                  llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                          File + ": no such file"));
      else
        addPython(absolutePath(File));
      continue;
    }
    if (!llvm::sys::fs::is_directory(File)) {
      Result.OtherFiles.push_back(File);
      continue;
    }
    std::vector<std::string> Found;
    bool Pruned = false; // a folder left out by --exclude
    std::error_code EC;
    std::string Root = absolutePath(File);
    for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End; It != End && !EC;
         It.increment(EC)) {
      llvm::StringRef Path = It->path();
      llvm::StringRef Name = llvm::sys::path::filename(Path);
      if (It->type() == llvm::sys::fs::file_type::directory_file) {
        bool Excluded = Exclude && Exclude->match(Path);
        Pruned |= Excluded;
        if (isSkippedDirectory(Name) || Excluded)
          It.no_push();
        continue;
      }
      if (isPythonSource(Path))
        Found.push_back(Path.str());
    }
    if (EC) {
      Errors = llvm::joinErrors(
          std::move(Errors), llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                     File + ": cannot read directory: " +
                                                         EC.message()));
      continue;
    }
    // Only Python is found by searching a directory; C++ and CUDA need a
    // compile command each. A directory with nothing to check is an input
    // error, not an empty (clean) run.
    if (Found.empty() && !Pruned) {
      Errors = llvm::joinErrors(
          std::move(Errors),
          llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  File + ": is a directory with no Python files in it (name "
                                         "C++ and CUDA files one by one, or use -p BUILD_DIR)"));
      continue;
    }
    std::sort(Found.begin(), Found.end());
    for (const std::string &Path : Found)
      addPython(Path);
  }
  if (Errors)
    return std::move(Errors);
  return Result;
}

} // namespace streamlife::check
