//===- Suppressions.cpp - parsing and matching suppression rules ----------===//
#include "config/Suppressions.h"

#include "support/InputFile.h"

#include <fnmatch.h>

#include <cerrno>
#include <cstring>

namespace streamlife {
namespace rt {

namespace {

constexpr std::string_view KindNames[] = {"unsafe-free", "reuse-race", "use-before-alloc", "use-after-free", "*"};

std::string_view trim(std::string_view S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\t'))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == ' ' || S.back() == '\t' || S.back() == '\r'))
    S.remove_suffix(1);
  return S;
}

bool matches(const std::string &Pattern, std::string_view Text) {
  return fnmatch(Pattern.c_str(), std::string(Text).c_str(), 0) == 0;
}

} // namespace

bool Suppressions::load(const std::string &Path, std::string &Error) {
  // A regular file of bounded size: /dev/zero, a FIFO or a directory named
  // here (through STREAMLIFE_OPTIONS, in every process of the program) must
  // neither exhaust the program's memory nor pass as an empty rule file.
  std::string Text, Why;
  if (!readInputFile(Path, SuppressionsFileLimit, Text, Why)) {
    Error = "cannot read suppressions file '" + Path + "': " + Why;
    return false;
  }
  return parse(Text, Path, Error);
}

bool Suppressions::parse(std::string_view Text, const std::string &Source, std::string &Error) {
  std::size_t LineNo = 0;
  while (!Text.empty()) {
    std::size_t End = Text.find('\n');
    std::string_view Line = trim(Text.substr(0, End));
    Text = End == std::string_view::npos ? std::string_view() : Text.substr(End + 1);
    ++LineNo;
    if (Line.empty() || Line.front() == '#')
      continue;
    std::string Where = Source + ":" + std::to_string(LineNo);
    std::size_t C1 = Line.find(':');
    std::size_t C2 = C1 == std::string_view::npos ? C1 : Line.find(':', C1 + 1);
    if (C2 == std::string_view::npos) {
      Error = Where + ": expected KIND:FIELD:PATTERN, got '" + std::string(Line) + "'";
      return false;
    }
    Rule R;
    R.Kind = std::string(trim(Line.substr(0, C1)));
    std::string_view Field = trim(Line.substr(C1 + 1, C2 - C1 - 1));
    R.Pattern = std::string(trim(Line.substr(C2 + 1)));
    R.Origin = Where;
    bool KnownKind = false;
    for (std::string_view K : KindNames)
      KnownKind |= R.Kind == K;
    if (!KnownKind) {
      Error = Where + ": unknown finding kind '" + R.Kind +
              "' (unsafe-free, reuse-race, use-before-alloc, use-after-free or *)";
      return false;
    }
    if (Field == "kernel")
      R.Where = Field::Kernel;
    else if (Field == "frame")
      R.Where = Field::Frame;
    else {
      Error = Where + ": unknown field '" + std::string(Field) + "' (kernel or frame)";
      return false;
    }
    if (R.Pattern.empty()) {
      Error = Where + ": empty pattern";
      return false;
    }
    Rules.push_back(std::move(R));
  }
  return true;
}

bool Suppressions::needsFrames() const {
  for (const Rule &R : Rules)
    if (R.Where == Field::Frame)
      return true;
  return false;
}

const Suppressions::Rule *Suppressions::match(const FindingView &F) {
  for (Rule &R : Rules) {
    if (R.Kind != "*" && R.Kind != F.Kind)
      continue;
    const std::vector<std::string_view> &Texts = R.Where == Field::Kernel ? F.Names : F.Frames;
    for (std::string_view T : Texts)
      if (matches(R.Pattern, T)) {
        ++R.Hits;
        return &R;
      }
  }
  return nullptr;
}

bool Suppressions::anyHits() const {
  for (const Rule &R : Rules)
    if (R.Hits)
      return true;
  return false;
}

void Suppressions::printCounts(std::FILE *Out) const {
  for (const Rule &R : Rules)
    if (R.Hits)
      std::fprintf(Out, "streamlife: suppressed %zu finding%s with rule '%s:%s:%s' (%s)\n", R.Hits,
                   R.Hits == 1 ? "" : "s", R.Kind.c_str(), R.Where == Field::Kernel ? "kernel" : "frame",
                   R.Pattern.c_str(), R.Origin.c_str());
}

} // namespace rt
} // namespace streamlife
