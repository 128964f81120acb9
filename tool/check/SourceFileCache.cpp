//===- SourceFileCache.cpp - byte offsets to lines and columns ------------===//
#include "SourceFileCache.h"

#include <algorithm>

namespace streamlife::check {

const SourceFileCache::File &SourceFileCache::load(llvm::StringRef Path) {
  auto [It, Inserted] = Files.try_emplace(Path);
  File &Entry = It->second;
  if (!Inserted)
    return Entry;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return Entry;
  Entry.Buffer = std::move(*Buffer);
  llvm::StringRef Text = Entry.Buffer->getBuffer();
  Entry.LineStarts.push_back(0);
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      Entry.LineStarts.push_back(I + 1);
  return Entry;
}

void SourceFileCache::resolve(llvm::StringRef Path, unsigned Offset,
                              SourceLocationInfo &Location) {
  const File &Entry = load(Path);
  if (!Entry.Buffer)
    return;
  llvm::StringRef Text = Entry.Buffer->getBuffer();
  if (Offset > Text.size())
    return;
  // The last line start at or before Offset.
  auto Next = std::upper_bound(Entry.LineStarts.begin(), Entry.LineStarts.end(), Offset);
  unsigned LineIndex = (Next - Entry.LineStarts.begin()) - 1;
  unsigned LineStart = Entry.LineStarts[LineIndex];
  Location.Line = LineIndex + 1;
  Location.Column = Offset - LineStart + 1;
  llvm::StringRef LineText = Text.substr(LineStart);
  LineText = LineText.take_until([](char C) { return C == '\n'; });
  Location.LineText = LineText.rtrim('\r').str();
}

} // namespace streamlife::check
