//===--- Rules.h - streamlife -----------------------------------*- C++ -*-===//
//
// The rule catalog: the static checks as values (Rule) with their names and
// descriptions, read from the one table in Rules.inc.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CORE_RULES_H
#define STREAMLIFE_CHECKS_CORE_RULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace streamlife {
namespace core {

enum class Rule : uint8_t {
#define STREAMLIFE_RULE(Id, Name, Summary, Description) Id,
#include "Rules.inc"
};

struct RuleInfo {
  Rule Id;
  llvm::StringLiteral Name;        ///< "streamlife-free-before-wait"
  llvm::StringLiteral Summary;     ///< one line
  llvm::StringLiteral Description; ///< what it finds and what to do
};

/// Every rule, in the table's order.
llvm::ArrayRef<RuleInfo> rules();
const RuleInfo &ruleInfo(Rule R);
inline llvm::StringRef ruleName(Rule R) { return ruleInfo(R).Name; }
/// The rule of a check name, if it is one of ours.
std::optional<Rule> ruleNamed(llvm::StringRef Name);

} // namespace core
} // namespace streamlife

#endif // STREAMLIFE_CHECKS_CORE_RULES_H
