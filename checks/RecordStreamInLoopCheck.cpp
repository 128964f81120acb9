//===--- RecordStreamInLoopCheck.cpp - streamlife --------------------------===//

#include "RecordStreamInLoopCheck.h"
#include "LifetimeReporter.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

/// The innermost loop around \p Call whose body (condition or increment)
/// runs once per iteration, looking no further than the enclosing function,
/// lambda or block: a lambda written in a loop is not called by the loop.
const Stmt *enclosingLoop(const Stmt *Call, ASTContext &Ctx) {
  DynTypedNode Child = DynTypedNode::create(*Call);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Child);
    if (Parents.empty())
      return nullptr;
    const DynTypedNode &Parent = Parents[0];
    if (Parent.get<LambdaExpr>() || Parent.get<BlockExpr>() ||
        Parent.get<FunctionDecl>() || Parent.get<ObjCMethodDecl>())
      return nullptr;
    const Stmt *ChildStmt = Child.get<Stmt>();
    if (const auto *For = Parent.get<ForStmt>()) {
      if (ChildStmt != For->getInit()) // The init runs once.
        return For;
    } else if (const auto *RangeFor = Parent.get<CXXForRangeStmt>()) {
      if (ChildStmt == RangeFor->getBody())
        return RangeFor;
    } else if (const auto *While = Parent.get<WhileStmt>()) {
      return While;
    } else if (const auto *Do = Parent.get<DoStmt>()) {
      return Do;
    }
    Child = Parent;
  }
}

} // namespace

RecordStreamInLoopCheck::RecordStreamInLoopCheck(StringRef Name,
                                                 ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      RecordStreamFunctions(
          Options.get("RecordStreamFunctions", "")) {
  Functions = {"::at::Tensor::record_stream", "::at::TensorBase::record_stream",
               "::at::record_stream",
               "::c10::cuda::CUDACachingAllocator::recordStream",
               "::c10::cuda::CUDACachingAllocator::CUDAAllocator::recordStream"};
  llvm::SmallVector<StringRef, 4> Extra;
  RecordStreamFunctions.split(Extra, ';', -1, false);
  for (StringRef Name : Extra) {
    Name = Name.trim();
    Functions.push_back(Name.starts_with("::") ? Name.str()
                                               : ("::" + Name).str());
  }
}

void RecordStreamInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "RecordStreamFunctions", RecordStreamFunctions);
}

void RecordStreamInLoopCheck::registerMatchers(MatchFinder *Finder) {
  std::vector<StringRef> Names(Functions.begin(), Functions.end());
  auto Loop = stmt(anyOf(forStmt(), whileStmt(), doStmt(), cxxForRangeStmt()));
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName(Names))), hasAncestor(Loop),
               unless(isExpansionInSystemHeader()))
          .bind("call"),
      this);
}

void RecordStreamInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  const Stmt *Loop = enclosingLoop(Call, *Result.Context);
  if (!Loop)
    return;
  // The buffer: the tensor a member call is made on, else the first argument.
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
    StringRef Text = Lexer::getSourceText(Range, *Result.SourceManager,
                                          getLangOpts());
    if (!Text.empty())
      Name = Text.str();
  }
  LifetimeReporter(*this).reportRecordStreamInLoop(Call, Name, Loop);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
