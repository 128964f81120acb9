//===- InputFile.h - read an input file whole, with bounds -------*- C++ -*-===//
//
// Inputs named by the user or found in a searched folder (a suppressions
// file, a baseline, a compile database, a Python source) are read whole. A
// name can stand for something that never ends: /dev/zero, a FIFO nobody
// writes, a directory (read as empty). Reading one would exhaust memory or
// block, and in the preloaded runtime kill the validated program. So an input
// must be a regular file (a symbolic link to one is fine) no larger than its
// limit; the open never blocks, and no more than the limit is ever read.
// Plain POSIX, no LLVM: the preloaded runtime links it.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_SUPPORT_INPUTFILE_H
#define STREAMLIFE_SUPPORT_INPUTFILE_H

#include <cstddef>
#include <string>

namespace streamlife {

/// Upper bounds for the kinds of input, far above real ones.
constexpr std::size_t MiB = std::size_t(1) << 20;
constexpr std::size_t SuppressionsFileLimit = 16 * MiB;
constexpr std::size_t ConfigFileLimit = 16 * MiB;
constexpr std::size_t SourceFileLimit = 64 * MiB;
constexpr std::size_t BaselineFileLimit = 256 * MiB;
constexpr std::size_t CompileDatabaseLimit = 1024 * MiB;

/// Reads the regular file Path into Text. False with a one-line lowercase
/// reason without the path ("is a directory", "is a device, not a regular
/// file", "is 80 MB, more than the 64 MB a source file may have", or the
/// system's error) in Error.
bool readInputFile(const std::string &Path, std::size_t Limit, std::string &Text,
                   std::string &Error);

} // namespace streamlife

#endif
