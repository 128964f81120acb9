//===--- LifetimeCheckBase.cpp - streamlife -------------------------------===//

#include "LifetimeCheckBase.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang {
namespace tidy {
namespace streamlife {

LifetimeCheckBase::LifetimeCheckBase(StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      AllocateFunctions(Options.getLocalOrGlobal("AllocateFunctions", "")),
      UseFunctions(Options.getLocalOrGlobal("UseFunctions", "")),
      ReleaseFunctions(Options.getLocalOrGlobal("ReleaseFunctions", "")) {
  const std::pair<OpKind, StringRef> UserRows[] = {
      {OpKind::Allocate, AllocateFunctions},
      {OpKind::Use, UseFunctions},
      {OpKind::Release, ReleaseFunctions}};
  for (const auto &[Kind, Spec] : UserRows)
    if (!Model.addUserFunctions(Kind, Spec))
      configurationDiag("invalid entry in '%0': expected "
                        "'name:buffer-argument:stream-argument'")
          << Spec;
}

void LifetimeCheckBase::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "AllocateFunctions", AllocateFunctions);
  Options.store(Opts, "UseFunctions", UseFunctions);
  Options.store(Opts, "ReleaseFunctions", ReleaseFunctions);
}

void LifetimeCheckBase::registerMatchers(MatchFinder *Finder) {
  // Templated bodies are skipped: their calls are not resolved yet.
  Finder->addMatcher(functionDecl(isDefinition(), hasBody(stmt()),
                                  unless(isExpansionInSystemHeader()),
                                  unless(ast_matchers::isTemplateInstantiation()))
                         .bind("function"),
                     this);
}

void LifetimeCheckBase::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  if (!Function || Function->isTemplated() || Function->isDependentContext())
    return;
  reportFindings(analyzeFunction(Function, *Result.Context, Model));
}

void LifetimeCheckBase::onEndOfTranslationUnit() {
  clearLifetimeAnalysisCache();
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
