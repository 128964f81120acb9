//===- Suppressions.h - rules that silence known findings -------*- C++ -*-===//
//
// Like the sanitizers' suppression files: one rule per line,
//
//   KIND:FIELD:PATTERN      # comment
//
//   KIND     a finding kind (unsafe-free, reuse-race, use-before-alloc,
//            use-after-free) or '*'
//   FIELD    'kernel': the name of any operation in the finding (the kernel,
//            "cuMemFreeAsync", "ncclAllReduce", ... of the access, release and
//            allocation); 'frame': any frame of their stacks, as printed
//            ("function (module+0x...)"), searched 32 frames deep
//   PATTERN  a shell glob (fnmatch: '*', '?', '[...]'), matched against the
//            whole text, so it usually starts and ends with '*'
//
// Blank lines and lines starting with '#' are ignored. A finding matched by a
// rule is not printed, not counted in the summary and not written to the JSON
// report; at exit each rule that matched prints how many findings it
// suppressed, so a suppression never hides silently.
//
// This file knows nothing about the engine: a finding is seen as its kind's
// name plus the operation names and frames (FindingView), so the launcher can
// validate a file without the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CONFIG_SUPPRESSIONS_H
#define STREAMLIFE_RT_CONFIG_SUPPRESSIONS_H

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace streamlife {
namespace rt {

/// How deep 'frame' rules look into each stack.
constexpr int SuppressionFrameDepth = 32;

struct FindingView {
  std::string_view Kind;                ///< "unsafe-free", ...
  std::vector<std::string_view> Names;  ///< operation names of every site
  std::vector<std::string_view> Frames; ///< frames of every site
};

class Suppressions {
public:
  enum class Field { Kernel, Frame };
  struct Rule {
    std::string Kind; ///< a kind name or "*"
    Field Where = Field::Kernel;
    std::string Pattern;
    std::string Origin; ///< "file:line", for the counts
    std::size_t Hits = 0;
  };

  /// Reads rules from Path; false (Error says why, in one line) when the file
  /// cannot be read or a line is malformed.
  bool load(const std::string &Path, std::string &Error);
  /// Parses rules from Text; Source names it in messages.
  bool parse(std::string_view Text, const std::string &Source, std::string &Error);

  bool empty() const { return Rules.empty(); }
  bool needsFrames() const;
  /// The first rule that matches F (its count goes up), or null.
  const Rule *match(const FindingView &F);
  /// True when some rule suppressed something (printCounts has a line to print).
  bool anyHits() const;
  /// "streamlife: suppressed N finding(s) with rule 'KIND:FIELD:PATTERN' (file:line)"
  /// for every rule that matched.
  void printCounts(std::FILE *Out) const;
  const std::vector<Rule> &rules() const { return Rules; }

private:
  std::vector<Rule> Rules;
};

} // namespace rt
} // namespace streamlife

#endif
