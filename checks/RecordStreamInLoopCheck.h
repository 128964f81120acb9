//===--- RecordStreamInLoopCheck.h - streamlife ----------------*- C++ -*-===//

#ifndef STREAMLIFE_CHECKS_RECORD_STREAM_IN_LOOP_CHECK_H
#define STREAMLIFE_CHECKS_RECORD_STREAM_IN_LOOP_CHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/StringSet.h"

#include <memory>

namespace clang {
namespace tidy {
namespace streamlife {

class RecordStreamCallGraph;

/// Finds `at::Tensor::record_stream` and the caching allocator's
/// `recordStream` called inside a loop body, where they make buffer reuse
/// depend on the allocator polling events instead of on stream order, and a
/// loop's calls of functions that reach one (core/RecordStreamReach.h). A
/// one-off hand-off outside loops is fine. Needs no dataflow.
///
/// For the user-facing documentation see checks/README.md,
/// streamlife-record-stream-in-loop.
class RecordStreamInLoopCheck : public ClangTidyCheck {
public:
  RecordStreamInLoopCheck(StringRef Name, ClangTidyContext *Context);
  ~RecordStreamInLoopCheck() override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;

private:
  /// Extra fully qualified names, ';'-separated, that hand a buffer to the
  /// allocator like record_stream.
  const StringRef RecordStreamFunctions;
  /// Qualified names (without the leading '::') of the hand-off calls.
  llvm::StringSet<> Functions;
  /// The unit's function bodies, read as loops' calls reach them.
  std::unique_ptr<RecordStreamCallGraph> Graph;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_RECORD_STREAM_IN_LOOP_CHECK_H
