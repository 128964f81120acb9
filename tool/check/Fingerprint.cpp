//===- Fingerprint.cpp - the identity of a finding across runs ------------===//
#include "Fingerprint.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

namespace streamlife::check {
namespace {

std::string relativeToRoot(llvm::StringRef Path, llvm::StringRef SourceRoot) {
  llvm::SmallString<256> Root(SourceRoot);
  if (!Root.empty() && !llvm::sys::path::is_separator(Root.back()))
    Root += llvm::sys::path::get_separator();
  llvm::StringRef Relative = Path;
  if (!Root.empty() && Relative.starts_with(Root))
    Relative = Relative.drop_front(Root.size());
  return llvm::sys::path::convert_to_slash(Relative);
}

} // namespace

std::string normalizeWhitespace(llvm::StringRef Line) {
  std::string Out;
  bool PendingSpace = false;
  for (char C : Line.trim()) {
    if (llvm::isSpace(C)) {
      PendingSpace = true;
      continue;
    }
    if (PendingSpace)
      Out += ' ';
    PendingSpace = false;
    Out += C;
  }
  return Out;
}

void assignFingerprints(CheckReport &Report, llvm::StringRef SourceRoot) {
  // Occurrences count per file of the finding, in report order (which is
  // source order within a file).
  llvm::StringMap<unsigned> Occurrences;
  for (FileResult &File : Report.Files) {
    for (Diagnostic &Finding : File.Findings) {
      std::string Key;
      Key += Finding.CheckName;
      Key += '\0';
      Key += relativeToRoot(Finding.Location.Path, SourceRoot);
      Key += '\0';
      Key += Finding.Message;
      Key += '\0';
      Key += normalizeWhitespace(Finding.Location.LineText);
      unsigned Occurrence = ++Occurrences[Key];
      Key += '\0';
      Key += std::to_string(Occurrence);
      Finding.Fingerprint = llvm::formatv("{0:x-16}", llvm::xxh3_64bits(Key)).str();
    }
  }
}

} // namespace streamlife::check
