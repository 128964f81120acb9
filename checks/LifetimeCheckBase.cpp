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
  const std::tuple<OpKind, StringRef, StringRef> UserRows[] = {
      {OpKind::Allocate, "AllocateFunctions", AllocateFunctions},
      {OpKind::Use, "UseFunctions", UseFunctions},
      {OpKind::Release, "ReleaseFunctions", ReleaseFunctions}};
  for (const auto &[Kind, Option, Spec] : UserRows)
    if (!Model.addUserFunctions(Kind, Spec))
      configurationDiag("invalid entry in option '%0' of check '%1': expected "
                        "'name:buffer-argument:stream-argument' entries "
                        "separated by ';'")
          << Option << Name;
  // Fork/join wrappers: "name:waiting-stream-argument:waited-streams-argument"
  // (cudf::detail::join_streams is built in).
  if (!Model.addUserFunctions(OpKind::StreamWaitStreams, StreamWaitFunctions))
    configurationDiag("invalid entry in option '%0' of check '%1': expected "
                      "'name:waiting-stream-argument:waited-streams-argument' "
                      "entries separated by ';'")
        << "StreamWaitFunctions" << Name;
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
}

void LifetimeCheckBase::onEndOfTranslationUnit() {
  clearLifetimeAnalysisCache();
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
