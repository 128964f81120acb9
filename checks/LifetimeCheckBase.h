//===--- LifetimeCheckBase.h - streamlife -----------------------*- C++ -*-===//
//
// What the three dataflow checks share: the options that extend the API
// model, the matcher for function definitions, and the call into the cached
// per-function analysis. Each check only picks its findings.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_LIFETIMECHECKBASE_H
#define STREAMLIFE_CHECKS_LIFETIMECHECKBASE_H

#include "ApiModel.h"
#include "ClangLowering.h"
#include "Findings.h"
#include "clang-tidy/ClangTidyCheck.h"

namespace clang {
namespace tidy {
namespace streamlife {

class LifetimeCheckBase : public ClangTidyCheck {
public:
  LifetimeCheckBase(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus || LangOpts.C99;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onEndOfTranslationUnit() override;

protected:
  /// Emits the findings of one function that belong to this check.
  /// \p Function is the analysed definition (fix-its are planned in its
  /// body).
  virtual void reportFindings(const FunctionDecl &Function,
                              const TranslationUnitIR &Unit,
                              const core::FunctionFindings &Findings) = 0;

private:
  /// Functions defined outside the main file (in headers), analysed at the
  /// end of the translation unit when reached (see onEndOfTranslationUnit).
  std::vector<const FunctionDecl *> Deferred;
  ASTContext *Context = nullptr;
  /// Configuration errors for option entries the model cannot use.
  void reportOptionProblems(const std::vector<OptionProblem> &Problems);
  /// User rows for the API model: "name:buffer-arg:stream-arg;..." with
  /// 0-based argument positions and -1 for "none".
  const StringRef AllocateFunctions;
  const StringRef UseFunctions;
  const StringRef ReleaseFunctions;
  /// Fork/join wrappers: joins "name:waiting-stream-arg:waited-streams-arg;
  /// ...", forks "name:waited-stream-arg;..." (the streams they return).
  const StringRef StreamWaitFunctions;
  const StringRef StreamForkFunctions;
  ApiModel Model;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_LIFETIMECHECKBASE_H
