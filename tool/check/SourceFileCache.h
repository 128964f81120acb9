//===- SourceFileCache.h - byte offsets to lines and columns ---*- C++ -*-===//
//
// clang-tidy hands diagnostics over as (file, byte offset). Formatters want a
// line, a column and the line's text; this reads each file once and answers
// those from a table of line starts.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_SOURCEFILECACHE_H
#define STREAMLIFE_TOOL_CHECK_SOURCEFILECACHE_H

#include "Finding.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <vector>

namespace streamlife::check {

class SourceFileCache {
public:
  /// Fills Line, Column and LineText of \p Location for \p Offset in \p Path.
  /// Leaves them unset when the file cannot be read or the offset is out of
  /// range (the location then prints as a bare path).
  void resolve(llvm::StringRef Path, unsigned Offset, SourceLocationInfo &Location);

  /// Longest LineText kept; longer lines keep a window around the column.
  /// (clang's own terminal output shows a window of the line as well.)
  static constexpr size_t MaxSnippetBytes = 200;

private:
  static unsigned utf16Column(llvm::StringRef Line, unsigned Column);
  static void clipLine(llvm::StringRef Line, SourceLocationInfo &Location);

  struct File {
    std::unique_ptr<llvm::MemoryBuffer> Buffer; ///< null when unreadable
    std::vector<unsigned> LineStarts;           ///< offset of each line's first byte
  };
  const File &load(llvm::StringRef Path);

  llvm::StringMap<File> Files;
};

} // namespace streamlife::check

#endif
