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
  LineText = LineText.take_until([](char C) { return C == '\n'; }).rtrim('\r');
  Location.Utf16Column = utf16Column(LineText, Location.Column);
  clipLine(LineText, Location);
}

unsigned SourceFileCache::utf16Column(llvm::StringRef Line, unsigned Column) {
  llvm::StringRef Prefix = Line.take_front(Column - 1);
  unsigned Units = 0;
  for (unsigned char C : Prefix) {
    if ((C & 0xC0) == 0x80)
      continue; // continuation byte
    Units += (C >= 0xF0) ? 2 : 1; // 4-byte sequences are surrogate pairs
  }
  // A column past the line's end (e.g. at the newline) keeps its distance.
  if (Column - 1 > Prefix.size())
    Units += Column - 1 - Prefix.size();
  return Units + 1;
}

void SourceFileCache::clipLine(llvm::StringRef Line, SourceLocationInfo &Location) {
  if (Line.size() <= MaxSnippetBytes) {
    Location.LineText = Line.str();
    return;
  }
  // A window around the column, a third of it before the column; never split
  // a UTF-8 sequence.
  size_t Column = std::min<size_t>(Location.Column - 1, Line.size());
  size_t Begin = Column > MaxSnippetBytes / 3 ? Column - MaxSnippetBytes / 3 : 0;
  size_t End = std::min(Line.size(), Begin + MaxSnippetBytes);
  auto IsContinuation = [&](size_t I) {
    return I < Line.size() && (static_cast<unsigned char>(Line[I]) & 0xC0) == 0x80;
  };
  while (Begin > 0 && IsContinuation(Begin))
    --Begin;
  while (End > Begin && IsContinuation(End))
    --End;
  Location.LineText = Line.slice(Begin, End).str();
  Location.LineTextStart = Begin;
  Location.LineTextClippedEnd = End < Line.size();
}

} // namespace streamlife::check
