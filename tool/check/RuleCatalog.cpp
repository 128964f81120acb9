//===- RuleCatalog.cpp - what each streamlife check is about --------------===//
#include "RuleCatalog.h"

#include "Rules.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#ifndef STREAMLIFE_PROJECT_URL
#define STREAMLIFE_PROJECT_URL ""
#endif
#ifndef STREAMLIFE_CHECK_DOCS_URL
#define STREAMLIFE_CHECK_DOCS_URL ""
#endif

namespace streamlife::check {
namespace {

/// "streamlife-free-before-wait" -> "FreeBeforeWait".
std::string friendlyName(llvm::StringRef CheckName) {
  CheckName.consume_front("streamlife-");
  llvm::SmallVector<llvm::StringRef, 8> Words;
  CheckName.split(Words, '-', -1, /*KeepEmpty=*/false);
  std::string Name;
  for (llvm::StringRef Word : Words)
    Name += (llvm::Twine(llvm::toUpper(Word.front())) + Word.drop_front()).str();
  return Name;
}

} // namespace

llvm::StringRef projectUrl() { return STREAMLIFE_PROJECT_URL; }

RuleDescription describeRule(llvm::StringRef CheckName) {
  RuleDescription Result;
  Result.FriendlyName = friendlyName(CheckName);
  llvm::StringRef DocsUrl = STREAMLIFE_CHECK_DOCS_URL;
  if (!DocsUrl.empty())
    Result.HelpUri = (DocsUrl + CheckName + ".md").str();
  if (std::optional<core::Rule> Rule = core::ruleNamed(CheckName)) {
    const core::RuleInfo &Info = core::ruleInfo(*Rule);
    Result.ShortDescription = Info.Summary.str();
    Result.FullDescription = Info.Description.str();
    return Result;
  }
  Result.ShortDescription = ("streamlife check " + llvm::Twine(CheckName)).str();
  Result.FullDescription = Result.ShortDescription;
  return Result;
}

} // namespace streamlife::check
