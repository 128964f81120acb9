//===- FixApplier.cpp - --fix: apply the checks' fix-its ------------------===//
#include "FixApplier.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

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

} // namespace

llvm::Expected<FixSummary> applyFixes(const CheckReport &Report) {
  FixSummary Summary;
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
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Code = llvm::MemoryBuffer::getFile(Path);
    if (!Code)
      return fixError("cannot read '" + Path + "' to fix it: " + Code.getError().message());
    llvm::Expected<std::string> Fixed =
        clang::tooling::applyAllReplacements((*Code)->getBuffer(), Replacements);
    if (!Fixed)
      return fixError("cannot fix '" + Path + "': " + llvm::toString(Fixed.takeError()));
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC, llvm::sys::fs::OF_None);
    if (EC)
      return fixError("cannot write '" + Path + "': " + EC.message());
    Out << *Fixed;
    Out.close();
    if (Out.has_error()) {
      std::string Message = Out.error().message();
      Out.clear_error();
      return fixError("cannot write '" + Path + "': " + Message);
    }
    ++Summary.FilesChanged;
  }
  return Summary;
}

} // namespace streamlife::check
