//===- Renderers.h - --help, man pages and completions ---------*- C++ -*-===//
//
// Each output a user reads about a command, rendered from its CommandDoc: one
// renderer per file (HelpText.cpp, ManPage.cpp, BashCompletion.cpp,
// ZshCompletion.cpp). The build generates the man pages and completions by
// running the built `streamlife --print-man-page` / `--print-completion`, so
// what is installed is what the binary's --help says.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CLI_RENDERERS_H
#define STREAMLIFE_TOOL_CLI_RENDERERS_H

#include "CommandDoc.h"

#include <string>
#include <vector>

namespace streamlife::cli {

/// The --help text, wrapped to \p Width columns.
std::string renderHelp(const CommandDoc &Doc, unsigned Width = 80);

/// A man(7) page in section 1, named Doc.manName().
std::string renderManPage(const CommandDoc &Doc, const std::string &Version);

/// Completion scripts for the driver and its subcommands: bash's is sourced
/// by bash-completion (or by hand) and needs nothing from it; zsh's is an
/// autoloaded `_streamlife` function for $fpath.
std::string renderBashCompletion(const CommandDoc &Driver,
                                 const std::vector<CommandDoc> &Subcommands);
std::string renderZshCompletion(const CommandDoc &Driver,
                                const std::vector<CommandDoc> &Subcommands);

} // namespace streamlife::cli

#endif
