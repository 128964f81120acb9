//===- Options.h - STREAMLIFE_OPTIONS and `streamlife run` flags -*- C++ -*-===//
//
// Typed view of Options.inc. The preloaded library parses STREAMLIFE_OPTIONS
// ("name=value:name=value", like the sanitizers' *SAN_OPTIONS); `streamlife run`
// turns its flags into that string and prints its --help from the same table.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CONFIG_OPTIONS_H
#define STREAMLIFE_RT_CONFIG_OPTIONS_H

#include <string>
#include <string_view>
#include <vector>

namespace streamlife {
namespace rt {

struct Options {
#define STREAMLIFE_OPTION(Type, Name, Default, Help) Type##Option Name = Default;
  using IntOption = long;
  using BoolOption = bool;
  using StringOption = std::string;
#include "config/Options.inc"
};

enum class OptionType { Int, Bool, String };

/// One row of Options.inc, for help texts and flag parsing.
struct OptionInfo {
  const char *Name;        ///< as in STREAMLIFE_OPTIONS: error_exitcode
  OptionType Type;
  const char *DefaultText; ///< the default as written in the table
  const char *Help;
};

const std::vector<OptionInfo> &optionTable();
const OptionInfo *findOption(std::string_view Name);

/// Sets one option from its text form. Returns false and says why in Error
/// (one lowercase line, no trailing period) for an unknown name or bad value.
bool setOption(Options &O, std::string_view Name, std::string_view Value, std::string &Error);

/// Parses "name=value:name=value". Items that fail leave their option at its
/// previous value; every failure is appended to Errors. Returns Errors.empty().
bool parseOptionString(Options &O, std::string_view Text, std::vector<std::string> &Errors);

/// "--error-exitcode" for "error_exitcode".
std::string flagName(const OptionInfo &Info);

/// What STREAMLIFE_OPTIONS=help=1 prints: every option as name=default with
/// its help, and the value in effect where Current differs from the default.
std::string renderOptionList(const Options &Current);

} // namespace rt
} // namespace streamlife

#endif
