//===- CompilationDatabaseLoader.h - where compile commands come from -*- C++ -*-===//
//
// Builds the compilation database `streamlife check` runs on and validates the
// inputs against it before anything is parsed:
//  - with -p: BUILD_DIR/compile_commands.json (or -p naming the file itself);
//    a missing or malformed database, or a file it has no command for, is an
//    input error. With no FILES, every file of the database is checked;
//  - without -p: one fixed command for every file, from the arguments after
//    `--` (none at all is fine: plain C++ with the defaults).
// Either way each file is parsed once, with the first command the database
// lists for it (the others are counted, for a note), and the commands go
// through the CompileCommandAdjuster.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_COMPILATIONDATABASELOADER_H
#define STREAMLIFE_TOOL_CHECK_COMPILATIONDATABASELOADER_H

#include "CheckOptions.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace streamlife::check {

struct LoadedDatabase {
  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  /// Absolute paths of the files to check, in command-line (or database)
  /// order, without duplicates.
  std::vector<std::string> Files;
  /// Files of Files for which the database lists more than one command, the
  /// commands of theirs that are not used, and the first such file.
  size_t FilesWithSeveralCommands = 0;
  size_t UnusedCommands = 0;
  std::string FirstFileWithSeveralCommands;
};

/// \returns the adjusted database, or one error per bad input (each a single
/// line, joined with llvm::joinErrors).
llvm::Expected<LoadedDatabase> loadCompilationDatabase(const CheckOptions &Options,
                                                       llvm::StringRef ClangResourceDir);

} // namespace streamlife::check

#endif
