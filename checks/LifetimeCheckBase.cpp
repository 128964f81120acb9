//===--- LifetimeCheckBase.cpp - streamlife -------------------------------===//

#include "LifetimeCheckBase.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include <tuple>

using namespace clang::ast_matchers;

namespace clang {
namespace tidy {
namespace streamlife {

LifetimeCheckBase::LifetimeCheckBase(StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      AllocateFunctions(Options.getLocalOrGlobal("AllocateFunctions", "")),
      UseFunctions(Options.getLocalOrGlobal("UseFunctions", "")),
      ReleaseFunctions(Options.getLocalOrGlobal("ReleaseFunctions", "")),
      StreamWaitFunctions(Options.getLocalOrGlobal("StreamWaitFunctions", "")) {
  const std::tuple<OpKind, StringRef> UserRows[] = {
      {OpKind::Allocate, AllocateFunctions},
      {OpKind::Use, UseFunctions},
      {OpKind::Release, ReleaseFunctions},
      // Fork/join wrappers: "name:waiting-stream-argument:
      // waited-streams-argument" (cudf::detail::join_streams is built in).
      {OpKind::StreamWaitStreams, StreamWaitFunctions}};
  for (const auto &[Kind, Spec] : UserRows)
    reportOptionProblems(Model.addUserFunctions(Kind, Spec));
}

void LifetimeCheckBase::reportOptionProblems(
    const std::vector<OptionProblem> &Problems) {
  // One configuration error per entry, naming it: the tool counts these as
  // input errors (exit 2), never as findings.
  for (const OptionProblem &Problem : Problems)
    configurationDiag("invalid entry '%0' in option '%1' of check '%2': %3")
        << Problem.Entry << Problem.Option << getID() << Problem.Reason;
}

void LifetimeCheckBase::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "AllocateFunctions", AllocateFunctions);
  Options.store(Opts, "UseFunctions", UseFunctions);
  Options.store(Opts, "ReleaseFunctions", ReleaseFunctions);
  Options.store(Opts, "StreamWaitFunctions", StreamWaitFunctions);
}

void LifetimeCheckBase::registerMatchers(MatchFinder *Finder) {
  // Templated bodies are skipped (their calls are not resolved yet); their
  // instantiations are analysed, and clang-tidy merges the identical
  // diagnostics of several instantiations.
  Finder->addMatcher(functionDecl(isDefinition(), hasBody(stmt()),
                                  unless(isExpansionInSystemHeader()))
                         .bind("function"),
                     this);
}

void LifetimeCheckBase::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("function");
  if (!Function || Function->isTemplated() || Function->isDependentContext())
    return;
  TranslationUnitIR &Unit = translationUnitIR(*Result.Context, Model);
  reportFindings(*Function, Unit, Unit.analyze(Function));
  reportOptionProblems(Model.takeOptionProblems());
}

void LifetimeCheckBase::onEndOfTranslationUnit() {
  reportOptionProblems(Model.takeOptionProblems());
  clearLifetimeAnalysisCache();
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
