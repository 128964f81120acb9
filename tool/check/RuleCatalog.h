//===- RuleCatalog.h - what each streamlife check is about -----*- C++ -*-===//
//
// The descriptions a SARIF consumer (GitHub code scanning, an IDE) shows next
// to a rule id, from the checks' one catalog (checks/core/Rules.inc). Rule ids
// are the check names, so they stay stable across runs and versions; a check
// the catalog does not know (clang-diagnostic-error) still gets a rule, with
// a generic description.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_RULECATALOG_H
#define STREAMLIFE_TOOL_CHECK_RULECATALOG_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace streamlife::check {

struct RuleDescription {
  std::string FriendlyName; ///< Pascal case: "FreeBeforeWait"
  std::string ShortDescription;
  std::string FullDescription;
  std::string HelpUri;
};

RuleDescription describeRule(llvm::StringRef CheckName);

/// The project's home page, or empty.
llvm::StringRef projectUrl();

} // namespace streamlife::check

#endif
