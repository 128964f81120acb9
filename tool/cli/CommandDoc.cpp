//===- CommandDoc.cpp - names derived from a command description -----------===//
#include "CommandDoc.h"

namespace streamlife::cli {

std::string CommandDoc::manName() const {
  std::string Result = Name;
  for (char &C : Result)
    if (C == ' ')
      C = '-';
  return Result;
}

std::string CommandDoc::subcommand() const {
  std::string::size_type Space = Name.rfind(' ');
  return Space == std::string::npos ? std::string() : Name.substr(Space + 1);
}

const OptionDoc *CommandDoc::findOption(const std::string &OptionName) const {
  for (const OptionDoc &Option : Options)
    if (Option.Long == OptionName || (!Option.Short.empty() && Option.Short == OptionName))
      return &Option;
  return nullptr;
}

} // namespace streamlife::cli
