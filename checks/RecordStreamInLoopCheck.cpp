//===--- RecordStreamInLoopCheck.cpp - streamlife
//--------------------------===//

#include "RecordStreamInLoopCheck.h"
#include "LifetimeReporter.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

/// Finds the hand-off calls a loop runs on every iteration: its body, and
/// the condition and increment of a for loop. It stops at nested loops
/// (they report their own calls, against the innermost loop) and at lambdas
/// and blocks (written in the loop, but not run by it).
class LoopBodyScan : public RecursiveASTVisitor<LoopBodyScan> {
public:
  explicit LoopBodyScan(const llvm::StringSet<> &Functions)
      : Functions(Functions) {}

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseBlockExpr(BlockExpr *) { return true; }
  bool TraverseForStmt(ForStmt *) { return true; }
  bool TraverseWhileStmt(WhileStmt *) { return true; }
  bool TraverseDoStmt(DoStmt *) { return true; }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *) { return true; }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->getDeclName().isIdentifier() &&
        Functions.count(Callee->getQualifiedNameAsString()))
      Found.push_back(Call);
    return true;
  }

  std::vector<const CallExpr *> Found;

private:
  const llvm::StringSet<> &Functions;
};

} // namespace

RecordStreamInLoopCheck::RecordStreamInLoopCheck(StringRef Name,
                                                 ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      RecordStreamFunctions(Options.get("RecordStreamFunctions", "")) {
  for (StringRef Name :
       {"at::Tensor::record_stream", "at::TensorBase::record_stream",
        "at::record_stream", "c10::cuda::CUDACachingAllocator::recordStream",
        "c10::cuda::CUDACachingAllocator::CUDAAllocator::recordStream"})
    Functions.insert(Name);
  llvm::SmallVector<StringRef, 4> Extra;
  RecordStreamFunctions.split(Extra, ';', -1, false);
  for (StringRef Name : Extra) {
    Name = Name.trim();
    Name.consume_front("::");
    Functions.insert(Name);
  }
}

void RecordStreamInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "RecordStreamFunctions", RecordStreamFunctions);
}

void RecordStreamInLoopCheck::registerMatchers(MatchFinder *Finder) {
  // Loops are matched and their bodies scanned, rather than calls matched
  // and their parents walked: the parent map of a large translation unit
  // (the PyTorch headers) costs more than the whole analysis.
  Finder->addMatcher(
      stmt(anyOf(forStmt(), whileStmt(), doStmt(), cxxForRangeStmt()),
           unless(isExpansionInSystemHeader()))
          .bind("loop"),
      this);
}

void RecordStreamInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  LoopBodyScan Scan(Functions);
  if (const auto *For = dyn_cast<ForStmt>(Loop)) {
    Scan.TraverseStmt(const_cast<Expr *>(For->getCond()));
    Scan.TraverseStmt(const_cast<Expr *>(For->getInc()));
    Scan.TraverseStmt(const_cast<Stmt *>(For->getBody()));
  } else if (const auto *While = dyn_cast<WhileStmt>(Loop)) {
    Scan.TraverseStmt(const_cast<Expr *>(While->getCond()));
    Scan.TraverseStmt(const_cast<Stmt *>(While->getBody()));
  } else if (const auto *Do = dyn_cast<DoStmt>(Loop)) {
    Scan.TraverseStmt(const_cast<Stmt *>(Do->getBody()));
    Scan.TraverseStmt(const_cast<Expr *>(Do->getCond()));
  } else if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(Loop)) {
    Scan.TraverseStmt(const_cast<Stmt *>(RangeFor->getBody()));
  }
  for (const CallExpr *Call : Scan.Found) {
    // The buffer: the tensor a member call is made on, else the first
    // argument.
    const Expr *Buffer = nullptr;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      Buffer = Member->getImplicitObjectArgument();
    else if (Call->getNumArgs() > 0)
      Buffer = Call->getArg(0);
    std::string Name = "<buffer>";
    if (Buffer) {
      CharSourceRange Range = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(
              Buffer->IgnoreParenImpCasts()->getSourceRange()),
          *Result.SourceManager, getLangOpts());
      StringRef Text =
          Lexer::getSourceText(Range, *Result.SourceManager, getLangOpts());
      if (!Text.empty())
        Name = Text.str();
    }
    reportRecordStreamInLoop(*this, Call, Name, Loop);
  }
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
