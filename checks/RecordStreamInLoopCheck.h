//===--- RecordStreamInLoopCheck.h - streamlife ----------------*- C++ -*-===//

#ifndef STREAMLIFE_CHECKS_RECORD_STREAM_IN_LOOP_CHECK_H
#define STREAMLIFE_CHECKS_RECORD_STREAM_IN_LOOP_CHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/StringSet.h"

namespace clang {
namespace tidy {
namespace streamlife {

/// Finds `at::Tensor::record_stream` and the caching allocator's
/// `recordStream` called inside a loop body, where they make buffer reuse
/// depend on the allocator polling events instead of on stream order. A
/// one-off hand-off outside loops is fine. Needs no dataflow.
///
/// For the user-facing documentation see checks/README.md,
/// streamlife-record-stream-in-loop.
class RecordStreamInLoopCheck : public ClangTidyCheck {
public:
  RecordStreamInLoopCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

private:
  /// Extra fully qualified names, ';'-separated, that hand a buffer to the
  /// allocator like record_stream.
  const StringRef RecordStreamFunctions;
  /// Qualified names (without the leading '::') of the hand-off calls.
  llvm::StringSet<> Functions;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_RECORD_STREAM_IN_LOOP_CHECK_H
