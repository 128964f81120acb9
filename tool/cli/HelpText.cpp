//===- HelpText.cpp - the --help text of a command ------------------------===//
//
// usage, description, commands, options (names in a column, help beside them,
// wrapped with a hanging indent), then the closing sections, in the layout of
// clang-tidy's and git's help.
//
//===----------------------------------------------------------------------===//
#include "Renderers.h"

#include <algorithm>
#include <sstream>

namespace streamlife::cli {
namespace {

/// Where option help starts; longer option names put it on the next line.
constexpr unsigned HelpColumn = 32;

/// \p Text filled into lines of at most \p Width columns, the first starting
/// after \p FirstUsed columns already printed, the others indented by
/// \p Indent. A word longer than a line gets a line of its own.
std::string fill(const std::string &Text, unsigned FirstUsed, unsigned Indent, unsigned Width) {
  std::istringstream Words(Text);
  std::string Word, Out;
  unsigned Column = FirstUsed;
  bool LineEmpty = true;
  while (Words >> Word) {
    if (!LineEmpty && Column + 1 + Word.size() > Width) {
      Out += '\n';
      Out.append(Indent, ' ');
      Column = Indent;
      LineEmpty = true;
    }
    if (!LineEmpty) {
      Out += ' ';
      ++Column;
    }
    Out += Word;
    Column += Word.size();
    LineEmpty = false;
  }
  return Out;
}

std::string optionNames(const OptionDoc &Option) {
  std::string Names = Option.Short.empty() ? Option.Long : Option.Short + ", " + Option.Long;
  if (Option.Value.empty())
    return Names;
  return Names + (Option.ValueOptional ? "[=" + Option.Value + "]" : " " + Option.Value);
}

std::string optionHelp(const OptionDoc &Option) {
  return Option.Default.empty() ? Option.Help : Option.Help + " (default: " + Option.Default + ")";
}

/// A term and its text, the text starting at \p Column (or on the next line
/// when the term does not leave room).
std::string columns(unsigned Indent, const std::string &Term, const std::string &Body,
                    unsigned Column, unsigned Width) {
  std::string Out(Indent, ' ');
  Out += Term;
  if (Out.size() + 2 > Column) {
    Out += '\n';
    Out.append(Column, ' ');
  } else {
    Out.append(Column - Out.size(), ' ');
  }
  return Out + fill(Body, Column, Column, Width) + '\n';
}

std::string paragraphs(const std::vector<Paragraph> &Body, unsigned Indent, unsigned Width) {
  unsigned TermWidth = 0;
  for (const Paragraph &P : Body)
    if (P.What == Paragraph::Item)
      TermWidth = std::max<unsigned>(TermWidth, P.Term.size());
  std::string Out;
  const Paragraph *Previous = nullptr;
  for (const Paragraph &P : Body) {
    // A blank line between paragraphs, none inside a list.
    if (Previous && !(Previous->What == Paragraph::Item && P.What == Paragraph::Item))
      Out += '\n';
    Previous = &P;
    switch (P.What) {
    case Paragraph::Text:
      Out += std::string(Indent, ' ') + fill(P.Body, Indent, Indent, Width) + '\n';
      break;
    case Paragraph::Item:
      Out += columns(Indent, P.Term, P.Body, Indent + TermWidth + 2, Width);
      break;
    case Paragraph::Verbatim: {
      std::istringstream Lines(P.Body);
      for (std::string Line; std::getline(Lines, Line);)
        Out += std::string(Indent + 2, ' ') + Line + '\n';
      break;
    }
    }
  }
  return Out;
}

} // namespace

std::string renderHelp(const CommandDoc &Doc, unsigned Width) {
  std::string Out;
  for (size_t I = 0; I < Doc.Synopsis.size(); ++I)
    Out += (I == 0 ? "usage: " : "       ") + Doc.Synopsis[I] + '\n';
  if (!Doc.Description.empty())
    Out += '\n' + paragraphs(Doc.Description, 0, Width);
  if (!Doc.Subcommands.empty()) {
    Out += "\ncommands:\n";
    for (const SubcommandDoc &Sub : Doc.Subcommands)
      Out += columns(2, Sub.Name, Sub.Summary, 10, Width);
  }
  if (!Doc.Options.empty()) {
    Out += "\noptions:\n";
    if (!Doc.OptionsIntro.empty())
      Out += paragraphs(Doc.OptionsIntro, 0, Width) + '\n';
    for (const OptionDoc &Option : Doc.Options)
      Out += columns(2, optionNames(Option), optionHelp(Option), HelpColumn, Width);
  }
  for (const Section &S : Doc.Sections)
    Out += '\n' + S.Title + ":\n" + paragraphs(S.Body, 2, Width);
  return Out;
}

} // namespace streamlife::cli
