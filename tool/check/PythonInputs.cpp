//===- PythonInputs.cpp - which inputs are Python -------------------------===//
#include "PythonInputs.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <set>

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

/// What a directory search found under one root.
struct DirectorySearch {
  std::vector<std::string> Found;
  bool Pruned = false; ///< a folder left out by --exclude
  std::string Error;   ///< the first folder that could not be read
};

/// Searches Root for Python files, depth first in sorted order. It takes
/// regular files named *.py (a symbolic link counts when it points to one;
/// a FIFO or a device named *.py would hang or never end) and descends into
/// real directories only, not into symbolic links to directories (a link to
/// ".." made every file appear again at each level, and two of them made
/// the walk exponential). Each directory and file is taken once, by device
/// and inode. A directory that cannot be read is an error, not a silent gap.
/// Errors name folders as the user spelled Root (Shown).
DirectorySearch searchDirectory(const std::string &Root, const std::string &Shown,
                                const std::optional<llvm::Regex> &Exclude) {
  namespace fs = llvm::sys::fs;
  DirectorySearch Search;
  std::set<fs::UniqueID> SeenDirectories, SeenFiles;
  std::vector<std::string> Pending = {Root};
  fs::file_status RootStatus;
  if (!fs::status(Root, RootStatus))
    SeenDirectories.insert(RootStatus.getUniqueID());
  while (!Pending.empty() && Search.Error.empty()) {
    std::string Dir = std::move(Pending.back());
    Pending.pop_back();
    std::vector<std::string> Entries;
    std::error_code EC;
    for (fs::directory_iterator It(Dir, EC, /*follow_symlinks=*/false), End; It != End && !EC;
         It.increment(EC))
      Entries.push_back(It->path());
    if (EC) {
      Search.Error = Shown + Dir.substr(Root.size()) + ": cannot read directory: " + EC.message();
      break;
    }
    std::sort(Entries.begin(), Entries.end());
    std::vector<std::string> Subdirectories;
    for (const std::string &Path : Entries) {
      fs::file_status Own, Target;
      if (fs::status(Path, Own, /*follow=*/false))
        continue; // gone meanwhile
      if (Own.type() == fs::file_type::directory_file) {
        bool Excluded = Exclude && Exclude->match(Path);
        Search.Pruned |= Excluded;
        if (!isSkippedDirectory(llvm::sys::path::filename(Path)) && !Excluded &&
            SeenDirectories.insert(Own.getUniqueID()).second)
          Subdirectories.push_back(Path);
        continue;
      }
      if (!isPythonSource(Path) || fs::status(Path, Target, /*follow=*/true) ||
          Target.type() != fs::file_type::regular_file)
        continue;
      if (SeenFiles.insert(Target.getUniqueID()).second)
        Search.Found.push_back(Path);
    }
    // Depth first, in sorted order: the last pushed is searched first.
    Pending.insert(Pending.end(), Subdirectories.rbegin(), Subdirectories.rend());
  }
  return Search;
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
    llvm::StringRef Shown = llvm::StringRef(File).size() > 1 ? llvm::StringRef(File).rtrim('/') : File;
    DirectorySearch Search = searchDirectory(absolutePath(File), Shown.str(), Exclude);
    if (!Search.Error.empty()) {
      Errors = llvm::joinErrors(std::move(Errors), llvm::createStringError(
                                                       llvm::inconvertibleErrorCode(), Search.Error));
      continue;
    }
    std::vector<std::string> &Found = Search.Found;
    bool Pruned = Search.Pruned;
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
