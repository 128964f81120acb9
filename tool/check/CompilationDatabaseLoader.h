//===- CompilationDatabaseLoader.h - where compile commands come from -*- C++ -*-===//
//
// Builds the compilation database `streamlife check` runs on and validates the
// inputs against it before anything is parsed:
//  - with -p: BUILD_DIR/compile_commands.json (or -p naming the file itself);
//    a missing or malformed database is an input error. With no FILES, every
//    file of the database is checked; a file named on the command line that
//    it does not list gets a command interpolated from its nearest entry, as
//    clangd and clang-tidy do (an empty database has none to give);
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
  /// Files named on the command line that the database does not list, each
  /// with the entry its command was interpolated from.
  struct Interpolation {
    std::string File;
    std::string From;
  };
  std::vector<Interpolation> InterpolatedFiles;
  /// nvcc options of the files' commands that nvcc's option table does not
  /// know (dropped), each with how many commands have it, in first-seen order.
  std::vector<std::pair<std::string, size_t>> UnknownNvccOptions;
};

/// Loads -p's database as it is recorded: \p BuildDirOrFile is a directory
/// holding compile_commands.json, or that file itself. A missing or broken
/// file is one error line.
llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
loadJsonCompilationDatabase(llvm::StringRef BuildDirOrFile);

/// \returns the adjusted database, or one error per bad input (each a single
/// line, joined with llvm::joinErrors).
llvm::Expected<LoadedDatabase> loadCompilationDatabase(const CheckOptions &Options,
                                                       llvm::StringRef ClangResourceDir);

} // namespace streamlife::check

#endif
