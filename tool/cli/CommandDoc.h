//===- CommandDoc.h - one description of a command line --------*- C++ -*-===//
//
// What a command is for, its synopsis, its options and its closing sections,
// as data. The --help text, the man page and the bash and zsh completions are
// all rendered from it (Renderers.h), so they cannot disagree: a new option is
// one row in its command's option table, which fills a CommandDoc. Kept free of
// LLVM, like the driver (tool/main.cpp), so that it builds on machines with
// only the runtime validator.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CLI_COMMANDDOC_H
#define STREAMLIFE_TOOL_CLI_COMMANDDOC_H

#include <string>
#include <vector>

namespace streamlife::cli {

/// What an option's value is, for completion: files, directories and commands
/// are completed from the system, choices from their list, the rest not at
/// all.
enum class ValueKind { None, Text, Number, File, Directory, Command, Choice };

struct OptionDoc {
  std::string Long;  ///< "--format"
  std::string Short; ///< "-p", or empty
  /// The metavariable shown in help ("FILE", "text|json|sarif"); empty for a
  /// flag without a value.
  std::string Value;
  ValueKind Kind = ValueKind::None;
  std::vector<std::string> Choices; ///< ValueKind::Choice
  /// --dedup[=BOOL]: the flag alone is valid; a value only as --flag=VALUE.
  bool ValueOptional = false;
  std::string Help;
  /// Shown as "(default: X)" after the help; empty when the help says it.
  std::string Default;
};

/// A paragraph of running text, an item of a list ("0", "no findings"), or
/// lines shown as they are (an example command).
struct Paragraph {
  enum Kind { Text, Item, Verbatim };
  Kind What = Text;
  std::string Term; ///< Item only
  std::string Body;
};

inline Paragraph text(std::string Body) { return {Paragraph::Text, "", std::move(Body)}; }
inline Paragraph item(std::string Term, std::string Body) {
  return {Paragraph::Item, std::move(Term), std::move(Body)};
}
inline Paragraph verbatim(std::string Lines) { return {Paragraph::Verbatim, "", std::move(Lines)}; }

struct Section {
  std::string Title; ///< "exit status" (the man page upper-cases it)
  std::vector<Paragraph> Body;
};

struct SubcommandDoc {
  std::string Name;    ///< "check"
  std::string Summary; ///< one line
};

struct CommandDoc {
  std::string Name;    ///< as typed: "streamlife check"
  std::string Summary; ///< the man page's NAME line, after the dash
  std::vector<std::string> Synopsis;   ///< usage lines, each starting with Name
  std::vector<Paragraph> Description;
  std::vector<SubcommandDoc> Subcommands; ///< the driver only
  std::vector<Paragraph> OptionsIntro;    ///< how values are written
  std::vector<OptionDoc> Options;
  /// The positional words, for completion: files (check) or a command and its
  /// arguments (run, after `--` or the first word that is not an option).
  enum class Operands { None, Files, Command } Takes = Operands::None;
  std::vector<Section> Sections; ///< exit status, environment, files, examples
  std::vector<std::string> SeeAlso; ///< "streamlife-run(1)"

  /// "streamlife-check": the man page's name, the command's words joined by '-'.
  std::string manName() const;
  /// "check" for "streamlife check"; empty for the driver.
  std::string subcommand() const;
  const OptionDoc *findOption(const std::string &Name) const;
};

} // namespace streamlife::cli

#endif
