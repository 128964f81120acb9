//===--- InternalCallSites.cpp - streamlife -------------------------------===//
//
// The walk of the main file that finds the calls of its internal functions
// taking a stream (see InternalCallSites.h).
//
//===----------------------------------------------------------------------===//

#include "InternalCallSites.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

/// Records, for each indexed function, the function bodies that call it
/// directly, and whether it is referenced any other way.
class CallSiteWalk : public RecursiveASTVisitor<CallSiteWalk> {
  using Base = RecursiveASTVisitor<CallSiteWalk>;

public:
  CallSiteWalk(
      llvm::function_ref<bool(const FunctionDecl *)> Indexed,
      llvm::DenseMap<const FunctionDecl *, InternalCallSites::Calls> &ByCallee)
      : Indexed(Indexed), ByCallee(ByCallee) {}

  bool TraverseDecl(Decl *D) {
    const auto *Function = dyn_cast_or_null<FunctionDecl>(D);
    if (!Function || !Function->doesThisDeclarationHaveABody())
      return Base::TraverseDecl(D);
    const FunctionDecl *Outer = Caller;
    // A template's pattern is never lowered (its instantiations are, which
    // this walk does not visit): its calls are not seen.
    Caller = Function->isTemplated() ? nullptr : Function;
    bool Continue = Base::TraverseDecl(D);
    Caller = Outer;
    return Continue;
  }

  // A lambda's body is not lowered with the function that makes it, and it
  // may run later, under another current stream.
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    const FunctionDecl *Outer = Caller;
    Caller = nullptr;
    bool Continue = Base::TraverseLambdaExpr(Lambda);
    Caller = Outer;
    return Continue;
  }

  bool VisitCallExpr(CallExpr *Call) {
    // An operator's object is an argument of the call and no parameter of
    // the function: the arguments do not line up with the parameters.
    if (isa<CXXOperatorCallExpr, CUDAKernelCallExpr>(Call))
      return true;
    const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    if (isa<DeclRefExpr, MemberExpr>(Callee))
      CalleeRefs.insert(Callee);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    reference(Ref->getDecl(), Ref);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *Member) {
    reference(Member->getMemberDecl(), Member);
    return true;
  }
  // A call resolved only where a template is instantiated: any of the
  // overloads may be the callee.
  bool VisitOverloadExpr(OverloadExpr *Overloads) {
    for (const NamedDecl *D : Overloads->decls())
      reference(D->getUnderlyingDecl(), nullptr);
    return true;
  }

private:
  void reference(const Decl *D, const Expr *Ref) {
    const auto *Function = dyn_cast_or_null<FunctionDecl>(D);
    if (!Function || !Indexed(Function))
      return;
    InternalCallSites::Calls &Calls = ByCallee[Function->getCanonicalDecl()];
    // Visited before its callee (pre-order): a reference that is no
    // recorded callee is its address, or a call of a kind not read.
    bool Direct = Ref && CalleeRefs.erase(Ref);
    if (!Direct || !Caller) {
      Calls.Unseen = true;
      return;
    }
    if (Caller->getCanonicalDecl() != Function->getCanonicalDecl())
      Calls.Callers.push_back(Caller);
  }

  llvm::function_ref<bool(const FunctionDecl *)> Indexed;
  llvm::DenseMap<const FunctionDecl *, InternalCallSites::Calls> &ByCallee;
  /// The body being walked, null outside one that is lowered.
  const FunctionDecl *Caller = nullptr;
  llvm::SmallPtrSet<const Expr *, 8> CalleeRefs;
};

} // namespace

bool InternalCallSites::indexed(const FunctionDecl *Function) const {
  Function = Function->getCanonicalDecl();
  // Cheapest first: most functions take no stream.
  if (llvm::none_of(Function->parameters(), [&](const ParmVarDecl *Param) {
        return Model.isStreamType(Param->getType().getNonReferenceType());
      }))
    return false;
  // A virtual function is called through its base class's too.
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Function);
      Method && Method->isVirtual())
    return false;
  // Only the main file is walked. Its internal functions are called from
  // it (a header included after one could call it too: not looked for).
  const SourceManager &SM = Ctx.getSourceManager();
  if (!SM.isInMainFile(SM.getExpansionLoc(Function->getLocation())))
    return false;
  return !Function->isTemplated() && !Function->isExternallyVisible();
}

void InternalCallSites::walkMainFile() {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Indexed = [&](const FunctionDecl *F) { return indexed(F); };
  CallSiteWalk Walk(Indexed, ByCallee);
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
      Walk.TraverseDecl(D);
}

std::optional<InternalCallSites::Calls>
InternalCallSites::callsOf(const FunctionDecl *Definition) {
  if (!indexed(Definition))
    return std::nullopt;
  if (!Walked) {
    walkMainFile();
    Walked = true;
  }
  auto Found = ByCallee.find(Definition->getCanonicalDecl());
  return Found == ByCallee.end() ? Calls() : Found->second;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
