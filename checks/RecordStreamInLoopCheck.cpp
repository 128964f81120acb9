//===--- RecordStreamInLoopCheck.cpp - streamlife
//--------------------------===//

#include "RecordStreamInLoopCheck.h"
#include "LifetimeReporter.h"
#include "RecordStreamCallGraph.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

/// Finds the hand-off calls a loop runs on every iteration, and its calls
/// of functions the unit defines (which may reach one): its body, and the
/// condition and increment of a for loop. It stops at nested loops (they
/// report their own calls, against the innermost loop) and at lambdas and
/// blocks (written in the loop, but not run by it).
class LoopBodyScan : public RecursiveASTVisitor<LoopBodyScan> {
public:
  LoopBodyScan(const llvm::StringSet<> &Functions,
               const RecordStreamCallGraph &Graph)
      : Functions(Functions), Graph(Graph) {}

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseBlockExpr(BlockExpr *) { return true; }
  bool TraverseForStmt(ForStmt *) { return true; }
  bool TraverseWhileStmt(WhileStmt *) { return true; }
  bool TraverseDoStmt(DoStmt *) { return true; }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *) { return true; }

  bool VisitCallExpr(CallExpr *Call) {
    if (isRecordStreamCall(Call, Functions))
      Found.push_back(Call);
    else if (const FunctionDecl *Callee = Graph.definedCallee(Call))
      Called.push_back({Call, Callee});
    return true;
  }

  std::vector<const CallExpr *> Found;
  std::vector<std::pair<const CallExpr *, const FunctionDecl *>> Called;

private:
  const llvm::StringSet<> &Functions;
  const RecordStreamCallGraph &Graph;
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

RecordStreamInLoopCheck::~RecordStreamInLoopCheck() = default;

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

void RecordStreamInLoopCheck::onStartOfTranslationUnit() { Graph.reset(); }

void RecordStreamInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  if (!Graph)
    Graph = std::make_unique<RecordStreamCallGraph>(
        Functions, *Result.SourceManager, getLangOpts());
  LoopBodyScan Scan(Functions, *Graph);
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
  for (const CallExpr *Call : Scan.Found)
    reportRecordStreamInLoop(
        *this, Call, recordedBuffer(Call, *Result.SourceManager, getLangOpts()),
        Loop);
  for (const auto &[Call, Callee] : Scan.Called)
    if (auto Reach = core::reachRecordStream(*Graph, Callee))
      reportRecordStreamInLoopThroughCall(*this, Call, Loop, *Reach);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
