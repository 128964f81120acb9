//===- FixApplier.cpp - --fix: apply the checks' fix-its ------------------===//
#include "FixApplier.h"

#include "support/AtomicFile.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"

#include <sys/stat.h>
#include <time.h>

#include <map>

namespace streamlife::check {
namespace {

llvm::Error fixError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

std::string editKey(const TextEdit &Edit) {
  return Edit.Path + '\0' + std::to_string(Edit.Offset) + '\0' + std::to_string(Edit.Length) +
         '\0' + Edit.Replacement;
}

/// Which of the inputs a path is (by device and inode); -1 if none.
class InputSet {
public:
  explicit InputSet(llvm::ArrayRef<std::string> Inputs) {
    for (const std::string &Input : Inputs) {
      struct stat St;
      if (stat(Input.c_str(), &St) == 0 && S_ISREG(St.st_mode))
        Ids.push_back({St.st_dev, St.st_ino});
    }
  }
  bool contains(const std::string &Path) const {
    struct stat St;
    if (stat(Path.c_str(), &St) != 0)
      return false;
    for (const auto &[Dev, Ino] : Ids)
      if (Dev == St.st_dev && Ino == St.st_ino)
        return true;
    return false;
  }

private:
  std::vector<std::pair<dev_t, ino_t>> Ids;
};

bool modifiedSince(const std::string &Path, int64_t StartedNs) {
  struct stat St;
  if (!StartedNs || stat(Path.c_str(), &St) != 0)
    return false;
  int64_t Modified = static_cast<int64_t>(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec;
  return Modified > StartedNs;
}

/// Replaces the source through a temporary beside it, renamed over it once
/// complete. A run killed meanwhile (Ctrl-C, a CI timeout's SIGTERM) leaves
/// the source as it was and no temporary: LLVM's signal handler removes it.
bool replaceSource(const std::string &Path, llvm::StringRef Contents, std::string &Why) {
  AtomicFile File;
  if (!File.open(Path, Why))
    return false;
  const std::string Temporary = File.temporaryPath(); // commit() forgets it
  llvm::sys::RemoveFileOnSignal(Temporary);
  bool Replaced = File.write(std::string_view(Contents.data(), Contents.size()), Why) &&
                  File.commit(Why);
  // After the rename: a signal in between removes a name that is gone.
  llvm::sys::DontRemoveFileOnSignal(Temporary);
  return Replaced;
}

} // namespace

int64_t fixClockNow() {
  struct timespec Now;
  clock_gettime(CLOCK_REALTIME, &Now);
  return static_cast<int64_t>(Now.tv_sec) * 1000000000 + Now.tv_nsec;
}

llvm::Expected<FixSummary> applyFixes(const CheckReport &Report, const FixSettings &Settings) {
  FixSummary Summary;
  InputSet Inputs(Settings.Inputs);
  // Files whose analysis cannot be trusted for edits: compile errors.
  InputSet Broken([&] {
    std::vector<std::string> Paths;
    for (const FileResult &File : Report.Files)
      if (!File.parsedCleanly())
        Paths.push_back(File.Path);
    return Paths;
  }());
  // Per file, every accepted replacement; std::map keeps the files sorted.
  std::map<std::string, clang::tooling::Replacements> ByFile;
  llvm::StringSet<> SeenFixes;
  for (const FileResult &File : Report.Files) {
    for (const Diagnostic &Finding : File.Findings) {
      if (Finding.Fix.empty() || Finding.State == BaselineState::Unchanged)
        continue;
      std::string FixKey;
      for (const TextEdit &Edit : Finding.Fix)
        FixKey += editKey(Edit) + '\n';
      if (!SeenFixes.insert(FixKey).second)
        continue; // the same fix, reported by another translation unit
      if (llvm::any_of(Finding.Fix, [&](const TextEdit &Edit) { return !Inputs.contains(Edit.Path); })) {
        ++Summary.NotInputFindings;
        continue;
      }
      if (!File.parsedCleanly() ||
          llvm::any_of(Finding.Fix, [&](const TextEdit &Edit) {
            return Broken.contains(Edit.Path) || modifiedSince(Edit.Path, Settings.StartedNs);
          })) {
        ++Summary.StaleFindings;
        continue;
      }
      // All of the finding's edits or none: try them on copies.
      std::map<std::string, clang::tooling::Replacements> Trial;
      bool Conflict = false;
      for (const TextEdit &Edit : Finding.Fix) {
        auto [It, Inserted] = Trial.try_emplace(Edit.Path);
        if (Inserted)
          It->second = ByFile[Edit.Path];
        if (llvm::Error E = It->second.add(clang::tooling::Replacement(
                Edit.Path, Edit.Offset, Edit.Length, Edit.Replacement))) {
          llvm::consumeError(std::move(E));
          Conflict = true;
          break;
        }
      }
      if (Conflict) {
        ++Summary.ConflictingFindings;
        continue;
      }
      for (auto &[Path, Replacements] : Trial)
        ByFile[Path] = std::move(Replacements);
      ++Summary.FixedFindings;
    }
  }
  for (const auto &[Path, Replacements] : ByFile) {
    if (Replacements.empty())
      continue;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Code =
        llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Code)
      return fixError("cannot read '" + Path + "' to fix it: " + Code.getError().message());
    llvm::Expected<std::string> Fixed =
        clang::tooling::applyAllReplacements((*Code)->getBuffer(), Replacements);
    if (!Fixed)
      return fixError("cannot fix '" + Path + "': " + llvm::toString(Fixed.takeError()));
    if (std::string Why; !replaceSource(Path, *Fixed, Why))
      return fixError("cannot write '" + Path + "': " + Why);
    ++Summary.FilesChanged;
  }
  return Summary;
}

} // namespace streamlife::check
