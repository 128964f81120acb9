//===--- ClangStructOperands.cpp - streamlife -----------------------------===//
//
// The buffers of a copy or set whose operands are fields of a parameter
// struct (cudaMemcpy3DAsync's cudaMemcpy3DParms, cuMemcpy2DAsync's
// CUDA_MEMCPY2D, cudaMemset3DAsync's cudaPitchedPtr): what the struct holds
// when the call runs. The struct is set up by straight-line code just
// before the call in the same function, so each field holds what its
// initializer or the latest assignment to it before the call in the source
// gave it (a struct reused for a second copy holds the second copy's
// buffers there); a struct made in place (`make_cudaPitchedPtr(buf, ...)`)
// holds its pointer arguments. A struct the function did not make (a
// parameter, a member) holds what its maker put there: nothing here.
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

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

/// The field path of an access into \p Var (`p.srcPtr.ptr`: "srcPtr.ptr"),
/// or nothing when \p Access is not a field of \p Var.
std::optional<std::string> fieldPath(const Expr *Access, const VarDecl *Var) {
  const Expr *E = bare(Access);
  std::string Path;
  while (const auto *M = dyn_cast_or_null<MemberExpr>(E)) {
    std::string Name = M->getMemberDecl()->getNameAsString();
    Path = Path.empty() ? Name : Name + "." + Path;
    E = bare(M->getBase());
  }
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  if (Path.empty() || !Ref || Ref->getDecl() != Var)
    return std::nullopt;
  return Path;
}

/// What each field of a struct holds: the values given to a field path,
/// the latest assignment replacing what the path, its parts and its
/// enclosing fields were given before.
class FieldValues {
public:
  void assign(const std::string &Path, const Expr *Value) {
    for (auto It = Fields.begin(); It != Fields.end();) {
      llvm::StringRef Old = It->first;
      // "" is the whole struct (`pitched = make_cudaPitchedPtr(...)`).
      bool Covered = Old.empty() || Path.empty() || Old == Path ||
                     Old.starts_with(Path + ".") ||
                     llvm::StringRef(Path).starts_with(Old.str() + ".");
      It = Covered ? Fields.erase(It) : std::next(It);
    }
    valuesOf(Value, Fields[Path]);
  }
  /// The fields of an initializer list, by their declaration order.
  void initialize(const std::string &Prefix, const InitListExpr *List,
                  const RecordDecl *Record) {
    if (!Record || List->getNumInits() == 0)
      return;
    unsigned Index = 0;
    for (const FieldDecl *Field : Record->fields()) {
      if (Index >= List->getNumInits())
        break;
      const Expr *Init = bare(List->getInit(Index++));
      std::string Path = Prefix.empty()
                             ? Field->getNameAsString()
                             : Prefix + "." + Field->getNameAsString();
      if (const auto *Nested = dyn_cast<InitListExpr>(Init))
        initialize(Path, Nested, Field->getType()->getAsRecordDecl());
      else
        assign(Path, Init);
    }
  }
  void values(llvm::SmallVectorImpl<const Expr *> &Out) const {
    for (const auto &[Path, Values] : Fields)
      Out.append(Values.begin(), Values.end());
  }

private:
  std::map<std::string, llvm::SmallVector<const Expr *, 2>> Fields;
};

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
  FieldValues Fields;
  if (const Expr *Init = bare(Var->getInit())) {
    if (const auto *List = dyn_cast<InitListExpr>(Init))
      Fields.initialize("", List, Var->getType()->getAsRecordDecl());
    else
      Fields.assign("", Init); // `= make_cudaPitchedPtr(buf, ...)`
  }
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  if (Body) {
    // The assignments to its fields before the call, in source order.
    const SourceManager &SM = Ctx.getSourceManager();
    std::vector<std::pair<const Expr *, std::pair<std::string, const Expr *>>>
        Before;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      const Expr *Target = nullptr, *Value = nullptr;
      if (const auto *Assign = dyn_cast<BinaryOperator>(S);
          Assign && Assign->getOpcode() == BO_Assign) {
        Target = Assign->getLHS();
        Value = Assign->getRHS();
      }
      // `p.srcPtr = make_cudaPitchedPtr(...)` is a C++ copy assignment.
      if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S);
          Operator && Operator->getOperator() == OO_Equal &&
          Operator->getNumArgs() == 2) {
        Target = Operator->getArg(0);
        Value = Operator->getArg(1);
      }
      if (Target)
        if (std::optional<std::string> Path = fieldPath(Target, Var))
          if (SM.isBeforeInTranslationUnit(S->getEndLoc(),
                                           Call->getBeginLoc()))
            Before.push_back({cast<Expr>(S), {*Path, Value}});
      for (const Stmt *Child : S->children())
        Walk(Child);
    };
    Walk(Body);
    std::stable_sort(Before.begin(), Before.end(),
                     [&](const auto &A, const auto &B) {
                       return SM.isBeforeInTranslationUnit(
                           A.first->getBeginLoc(), B.first->getBeginLoc());
                     });
    for (const auto &[At, Assignment] : Before)
      Fields.assign(Assignment.first, Assignment.second);
  }
  Fields.values(Out);
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
