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
      StreamWaitFunctions(Options.getLocalOrGlobal("StreamWaitFunctions", "")),
      StreamForkFunctions(Options.getLocalOrGlobal("StreamForkFunctions", "")) {
  const std::tuple<OpKind, StringRef> UserRows[] = {
      {OpKind::Allocate, AllocateFunctions},
      {OpKind::Use, UseFunctions},
      {OpKind::Release, ReleaseFunctions},
      // Fork/join wrappers: "name:waiting-stream-argument:
      // waited-streams-argument" (cudf::detail::join_streams is built in).
      {OpKind::StreamWaitStreams, StreamWaitFunctions},
      // "name:waited-stream-argument": the streams it returns wait on that
      // stream (cudf::detail::fork_streams is built in).
      {OpKind::ForkStreams, StreamForkFunctions}};
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
  Options.store(Opts, "StreamForkFunctions", StreamForkFunctions);
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
  TranslationUnitIR &Unit = translationUnitIR(*Result.Context, Model, this);
  Context = Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  if (!SM.isInMainFile(SM.getExpansionLoc(Function->getLocation()))) {
    // A function of a header: its definition comes before the main file's
    // functions that call it, so whether they reach it is known only at
    // the end (see onEndOfTranslationUnit).
    Deferred.push_back(Function);
    return;
  }
  reportFindings(*Function, Unit, Unit.analyze(Function));
  reportOptionProblems(Model.takeOptionProblems());
}

void LifetimeCheckBase::onEndOfTranslationUnit() {
  // The functions of (non-system) headers are analysed, and their findings
  // reported, when the main file's functions reach them through calls (their
  // summaries were computed for those calls) or when they make stream
  // operations themselves (a helper nothing in this file calls yet). The
  // others, the bulk of a library's headers (about 4,000 functions lowered
  // per PyTorch translation unit when all were analysed), cannot have a
  // finding of their own: no stream operation happens in them or in what
  // they call from this file.
  TranslationUnitIR *Unit =
      Context && !Deferred.empty() ? existingTranslationUnitIR(*Context, Model)
                                   : nullptr;
  if (Unit) {
    std::vector<bool> Done(Deferred.size());
    for (size_t I = 0; I < Deferred.size(); ++I)
      if (!Unit->reached(Deferred[I]) && Unit->hasDirectOperation(Deferred[I])) {
        reportFindings(*Deferred[I], *Unit, Unit->analyze(Deferred[I]));
        Done[I] = true;
      }
    // Analysing those lowered their callees: reached too now. Everything
    // reached is lowered already; the analysis only picks its findings.
    for (size_t I = 0; I < Deferred.size(); ++I)
      if (!Done[I] && Unit->reached(Deferred[I]))
        reportFindings(*Deferred[I], *Unit, Unit->analyze(Deferred[I]));
  }
  Deferred.clear();
  Context = nullptr;
  reportOptionProblems(Model.takeOptionProblems());
  releaseLifetimeAnalysisCache(this);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
