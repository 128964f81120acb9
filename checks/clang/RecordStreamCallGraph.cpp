//===--- RecordStreamCallGraph.cpp - streamlife ---------------------------===//

#include "RecordStreamCallGraph.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

namespace clang {
namespace tidy {
namespace streamlife {

bool isRecordStreamCall(const CallExpr *Call,
                        const llvm::StringSet<> &Functions) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getDeclName().isIdentifier() &&
         Functions.count(Callee->getQualifiedNameAsString());
}

std::string recordedBuffer(const CallExpr *Call, const SourceManager &SM,
                           const LangOptions &LangOpts) {
  const Expr *Buffer = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Buffer = Member->getImplicitObjectArgument();
  else if (Call->getNumArgs() > 0)
    Buffer = Call->getArg(0);
  if (!Buffer)
    return "<buffer>";
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(
          Buffer->IgnoreParenImpCasts()->getSourceRange()),
      SM, LangOpts);
  StringRef Text = Lexer::getSourceText(Range, SM, LangOpts);
  return Text.empty() ? "<buffer>" : Text.str();
}

const FunctionDecl *
RecordStreamCallGraph::definedCallee(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isRecordStreamCall(Call, Functions))
    return nullptr;
  const FunctionDecl *Definition = Callee->getDefinition();
  if (!Definition || !Definition->hasBody() ||
      SM.isInSystemHeader(Definition->getLocation()))
    return nullptr;
  return Definition;
}

namespace {

/// One function body: its record_stream calls and its calls of functions
/// the unit defines, each told whether a loop of the body runs it. Lambdas
/// and blocks are written in the body but run elsewhere: not read.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
  using Base = RecursiveASTVisitor<BodyScan>;

public:
  BodyScan(const RecordStreamCallGraph &Graph,
           const llvm::StringSet<> &Functions, const SourceManager &SM,
           const LangOptions &LangOpts, RecordStreamCallGraph::Scanned &Out)
      : Graph(Graph), Functions(Functions), SM(SM), LangOpts(LangOpts),
        Out(Out) {}

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseBlockExpr(BlockExpr *) { return true; }
  bool TraverseForStmt(ForStmt *S) { return inLoop([&] { return Base::TraverseForStmt(S); }); }
  bool TraverseWhileStmt(WhileStmt *S) { return inLoop([&] { return Base::TraverseWhileStmt(S); }); }
  bool TraverseDoStmt(DoStmt *S) { return inLoop([&] { return Base::TraverseDoStmt(S); }); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return inLoop([&] { return Base::TraverseCXXForRangeStmt(S); });
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (isRecordStreamCall(Call, Functions)) {
      if (Loops > 0)
        Out.RecordsInLoop = true;
      else if (!Out.Record)
        Out.Record = core::RecordStreamCall<SourceLocation>{
            Call->getBeginLoc(), recordedBuffer(Call, SM, LangOpts)};
    } else if (const FunctionDecl *Callee = Graph.definedCallee(Call)) {
      Out.Calls.push_back({Callee, Call->getBeginLoc(), Loops > 0});
    }
    return true;
  }

private:
  template <typename Traverse> bool inLoop(Traverse T) {
    ++Loops;
    bool Continue = T();
    --Loops;
    return Continue;
  }

  const RecordStreamCallGraph &Graph;
  const llvm::StringSet<> &Functions;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  RecordStreamCallGraph::Scanned &Out;
  unsigned Loops = 0;
};

} // namespace

const RecordStreamCallGraph::Scanned &RecordStreamCallGraph::scan(Node F) {
  std::unique_ptr<Scanned> &Entry = Bodies[F];
  if (Entry)
    return *Entry;
  auto Body = std::make_unique<Scanned>();
  BodyScan(*this, Functions, SM, LangOpts, *Body)
      .TraverseStmt(F->getBody());
  Entry = std::move(Body);
  return *Entry;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
