//===- Options.cpp - STREAMLIFE_OPTIONS parsing, generated from Options.inc -===//
#include "config/Options.h"

#include <cerrno>
#include <cstdlib>

namespace streamlife {
namespace rt {

namespace {

/// Decimal digits with an optional '-': no spaces, no '+', no 0x (strtol would
/// take " 5" and "+5").
bool parseInt(std::string_view Text, long &Out) {
  if (Text.empty() || Text.size() > 20)
    return false;
  std::size_t Digits = Text[0] == '-' ? 1 : 0;
  if (Digits == Text.size())
    return false;
  for (std::size_t I = Digits; I < Text.size(); ++I)
    if (Text[I] < '0' || Text[I] > '9')
      return false;
  std::string Copy(Text);
  char *End = nullptr;
  errno = 0;
  long V = std::strtol(Copy.c_str(), &End, 10);
  if (errno != 0 || End != Copy.c_str() + Copy.size())
    return false;
  Out = V;
  return true;
}

/// The values an integer option accepts. An exit status is taken mod 256 by
/// the kernel, so --error-exitcode=256 would exit 0 with findings: only 1-255
/// (and 0, the default, for "keep the program's own status").
struct IntRange {
  const char *Name;
  long Min, Max;
  const char *Why;
};
constexpr IntRange IntRanges[] = {
    {"error_exitcode", 0, 255, "an exit status, 1-255 (0: keep the program's own)"},
    {"stack_depth", 0, 1L << 30, "a frame count, 0 or more"},
    {"stacks_per_op", 0, 1L << 30, "a count, 0 or more"},
    {"report_frames", 0, 1L << 30, "a frame count, 0 or more"},
    {"verbosity", 0, 9, "0 or more"},
    // A negative count would wrap to "never replay" in the size comparison.
    {"replay_batch", 0, 1L << 20, "a count of queued events, 0-1048576 (0: replay at every call)"},
    {"replay_thread_wake", 1, 1L << 20, "a count of queued events, 1-1048576"},
    {"replay_thread_nap_ns", 0, 1000000, "nanoseconds, 0-1000000 (0: a pause of about 1 µs)"},
};

bool parseBool(std::string_view Text, bool &Out) {
  if (Text == "1" || Text == "true" || Text == "yes") {
    Out = true;
    return true;
  }
  if (Text == "0" || Text == "false" || Text == "no") {
    Out = false;
    return true;
  }
  return false;
}

} // namespace

const std::vector<OptionInfo> &optionTable() {
  static const std::vector<OptionInfo> Table = {
#define STREAMLIFE_OPTION(Type, Name, Default, Help) {#Name, OptionType::Type, #Default, Help},
#include "config/Options.inc"
  };
  return Table;
}

const OptionInfo *findOption(std::string_view Name) {
  for (const OptionInfo &Info : optionTable())
    if (Name == Info.Name)
      return &Info;
  return nullptr;
}

bool setOption(Options &O, std::string_view Name, std::string_view Value, std::string &Error) {
  auto SetInt = [&](long &Field) {
    long Parsed = 0;
    if (!parseInt(Value, Parsed)) {
      Error = "option '" + std::string(Name) + "' expects an integer, got '" + std::string(Value) + "'";
      return false;
    }
    for (const IntRange &R : IntRanges)
      if (Name == R.Name && (Parsed < R.Min || Parsed > R.Max)) {
        Error = "option '" + std::string(Name) + "' expects " + R.Why + ", got '" +
                std::string(Value) + "'";
        return false;
      }
    Field = Parsed;
    return true;
  };
  auto SetBool = [&](bool &Field) {
    if (parseBool(Value, Field))
      return true;
    Error = "option '" + std::string(Name) + "' expects 0, 1, true or false, got '" +
            std::string(Value) + "'";
    return false;
  };
  auto SetString = [&](std::string &Field) {
    Field = std::string(Value);
    return true;
  };
#define STREAMLIFE_OPTION(Type, Name_, Default, Help)                                               \
  if (Name == #Name_)                                                                              \
    return Set##Type(O.Name_);
#include "config/Options.inc"
  Error = "unknown option '" + std::string(Name) + "'";
  return false;
}

bool parseOptionString(Options &O, std::string_view Text, std::vector<std::string> &Errors) {
  std::size_t Before = Errors.size();
  while (!Text.empty()) {
    std::size_t Colon = Text.find(':');
    std::string_view Item = Text.substr(0, Colon);
    Text = Colon == std::string_view::npos ? std::string_view() : Text.substr(Colon + 1);
    if (Item.empty())
      continue;
    std::size_t Eq = Item.find('=');
    if (Eq == std::string_view::npos) {
      Errors.push_back("expected name=value, got '" + std::string(Item) + "'");
      continue;
    }
    std::string Error;
    if (!setOption(O, Item.substr(0, Eq), Item.substr(Eq + 1), Error))
      Errors.push_back(Error);
  }
  return Errors.size() == Before;
}

std::string flagName(const OptionInfo &Info) {
  std::string Flag = "--";
  for (const char *C = Info.Name; *C; ++C)
    Flag += *C == '_' ? '-' : *C;
  return Flag;
}

namespace {

/// The default as the table writes it, without a string's quotes.
std::string defaultText(const OptionInfo &Info) {
  std::string Text = Info.DefaultText;
  if (Text.size() >= 2 && Text.front() == '"' && Text.back() == '"')
    Text = Text.substr(1, Text.size() - 2);
  return Text;
}

std::string valueText(long V) { return std::to_string(V); }
std::string valueText(bool V) { return V ? "true" : "false"; }
std::string valueText(const std::string &V) { return V; }

/// Text filled to lines of at most Width columns, each indented by Indent.
std::string fillIndented(const std::string &Text, std::size_t Indent, std::size_t Width) {
  std::string Out, Line;
  std::size_t Start = 0;
  while (Start < Text.size()) {
    std::size_t End = Text.find(' ', Start);
    if (End == std::string::npos)
      End = Text.size();
    std::string Word = Text.substr(Start, End - Start);
    if (!Line.empty() && Indent + Line.size() + 1 + Word.size() > Width) {
      Out += std::string(Indent, ' ') + Line + "\n";
      Line.clear();
    }
    Line += (Line.empty() ? "" : " ") + Word;
    Start = End + 1;
  }
  if (!Line.empty())
    Out += std::string(Indent, ' ') + Line + "\n";
  return Out;
}

} // namespace

std::string renderOptionList(const Options &Current) {
  std::string Out = "streamlife: options of the runtime validator (STREAMLIFE_OPTIONS=name=value:..., "
                    "or streamlife run --name value):\n";
  for (const OptionInfo &Info : optionTable()) {
    std::string Now;
#define STREAMLIFE_OPTION(Type, Name_, Default, Help)                                               \
  if (std::string_view(Info.Name) == #Name_)                                                       \
    Now = valueText(Current.Name_);
#include "config/Options.inc"
    std::string Default = defaultText(Info);
    Out += "  " + std::string(Info.Name) + "=" + Default;
    if (Now != Default)
      Out += " (now " + (Now.empty() ? std::string("empty") : Now) + ")";
    Out += "\n" + fillIndented(Info.Help, 6, 100);
  }
  return Out;
}


} // namespace rt
} // namespace streamlife
