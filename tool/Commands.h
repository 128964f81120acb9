//===- Commands.h - streamlife subcommands ---------------------*- C++ -*-===//
//
// Entry points of the `streamlife` subcommands. Each takes the arguments after
// the subcommand's name (argv[0] is the subcommand) and returns the process
// exit status.
//
// Exit codes shared by every subcommand:
//   0  clean              1  findings reported
//   2  usage or input error (bad option, missing file, broken compile database,
//      parse errors); one line on stderr says which
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_COMMANDS_H
#define STREAMLIFE_TOOL_COMMANDS_H

#include "cli/CommandDoc.h"

namespace streamlife {

enum ExitCode : int {
  ExitClean = 0,
  ExitFindings = 1,
  ExitUsage = 2,
};

/// `streamlife check [-p BUILD_DIR] [--format text|json|sarif] [--output FILE]
///                   FILES... [-- COMPILER_ARGS]`
int runCheckCommand(int Argc, const char **Argv);

/// `streamlife compdb -p BUILD_DIR [-o OUT] [--cuda-path DIR] [-- COMPILER_ARGS]`
int runCompdbCommand(int Argc, const char **Argv);

/// `streamlife run [OPTIONS] -- CMD ARGS...`
int runRunCommand(int Argc, const char **Argv);

/// `streamlife timeline FILE [--svg OUT.svg] [--from T] [--to T] [--blocks N]`
int runTimelineCommand(int Argc, const char **Argv);

/// Each command line as data (tool/cli/CommandDoc.h): --help, the man pages
/// and the shell completions are rendered from these.
cli::CommandDoc driverCommandDoc();
cli::CommandDoc checkCommandDoc();
cli::CommandDoc compdbCommandDoc();
cli::CommandDoc runCommandDoc();
cli::CommandDoc timelineCommandDoc();
cli::CommandDoc clangTidyWrapperDoc();

} // namespace streamlife

#endif
