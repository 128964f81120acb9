//===--- ClangStructOperands.cpp - streamlife -----------------------------===//
//
// The buffers of a copy or set whose operands are fields of a parameter
// struct (cudaMemcpy3DAsync's cudaMemcpy3DParms, cuMemcpy2DAsync's
// CUDA_MEMCPY2D, cudaMemset3DAsync's cudaPitchedPtr): what the struct holds
// when the call runs. The struct is set up by straight-line code just
// before the call in the same function, so the fields are read from its
// initializer and from the assignments to it that come before the call in
// the source; a struct made in place (`make_cudaPitchedPtr(buf, ...)`)
// holds its pointer arguments. A struct the function did not make (a
// parameter, a member) holds what its maker put there: nothing here.
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

namespace {

/// \p E without parentheses, implicit nodes and the copies of a struct
/// passed or initialised by value.
const Expr *bare(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
    const auto *Copy = dyn_cast<CXXConstructExpr>(E);
    if (!Copy || Copy->getNumArgs() != 1 ||
        !Copy->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = Copy->getArg(0);
  }
  return E;
}

/// The values a struct value expression holds, appended to \p Out: the
/// pointer arguments of a call that makes it (`make_cudaPitchedPtr(p, ...)`),
/// the fields of an initializer list, or the value itself.
void valuesOf(const Expr *Value, llvm::SmallVectorImpl<const Expr *> &Out) {
  Value = bare(Value);
  if (!Value)
    return;
  if (const auto *List = dyn_cast<InitListExpr>(Value)) {
    for (const Expr *Field : List->inits())
      valuesOf(Field, Out);
    return;
  }
  if (const auto *Designated = dyn_cast<DesignatedInitExpr>(Value))
    return valuesOf(Designated->getInit(), Out);
  if (const auto *Call = dyn_cast<CallExpr>(Value);
      Call && Value->getType()->isRecordType()) {
    for (const Expr *Arg : Call->arguments())
      if (bare(Arg)->getType()->isPointerType())
        Out.push_back(Arg);
    return;
  }
  if (Value->getType()->isRecordType())
    return; // another struct's value: not followed
  Out.push_back(Value);
}

/// The local struct variable a field access `v.a.b` (or `v->a`) is part of.
const VarDecl *baseVariable(const Expr *Access) {
  const Expr *E = bare(Access);
  bool Member = false;
  while (const auto *M = dyn_cast_or_null<MemberExpr>(E)) {
    Member = true;
    E = bare(M->getBase());
  }
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  return Member && Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

} // namespace

void structFieldValues(const Expr *Operand, const Expr *Call,
                       const FunctionDecl *Function, ASTContext &Ctx,
                       llvm::SmallVectorImpl<const Expr *> &Out) {
  const Expr *E = bare(Operand);
  if (const auto *Address = dyn_cast_or_null<UnaryOperator>(E);
      Address && Address->getOpcode() == UO_AddrOf)
    E = bare(Address->getSubExpr());
  if (!E)
    return;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  if (!Ref) {
    valuesOf(E, Out); // made in place
    return;
  }
  const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
  if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) ||
      !Var->getType()->isRecordType())
    return;
  if (Var->getInit())
    valuesOf(Var->getInit(), Out);
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  if (!Body)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Assign = dyn_cast<BinaryOperator>(S);
        Assign && Assign->getOpcode() == BO_Assign &&
        baseVariable(Assign->getLHS()) == Var &&
        SM.isBeforeInTranslationUnit(Assign->getEndLoc(), Call->getBeginLoc()))
      valuesOf(Assign->getRHS(), Out);
    // `p.srcPtr = make_cudaPitchedPtr(...)` is a C++ copy assignment.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S);
        Operator && Operator->getOperator() == OO_Equal &&
        Operator->getNumArgs() == 2 &&
        baseVariable(Operator->getArg(0)) == Var &&
        SM.isBeforeInTranslationUnit(Operator->getEndLoc(),
                                     Call->getBeginLoc()))
      valuesOf(Operator->getArg(1), Out);
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Body);
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
