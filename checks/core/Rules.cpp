//===--- Rules.cpp - streamlife -------------------------------------------===//

#include "Rules.h"

namespace streamlife {
namespace core {
namespace {

const RuleInfo Table[] = {
#define STREAMLIFE_RULE(Id, Name, Summary, Description)                        \
  {Rule::Id, Name, Summary, Description},
#include "Rules.inc"
};

} // namespace

llvm::ArrayRef<RuleInfo> rules() { return Table; }

const RuleInfo &ruleInfo(Rule R) { return Table[static_cast<size_t>(R)]; }

std::optional<Rule> ruleNamed(llvm::StringRef Name) {
  for (const RuleInfo &Info : Table)
    if (Info.Name == Name)
      return Info.Id;
  return std::nullopt;
}

} // namespace core
} // namespace streamlife
