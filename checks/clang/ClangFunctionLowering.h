//===--- ClangFunctionLowering.h - streamlife -------------------*- C++ -*-===//
//
// Private to the clang lowering (ClangEntities.cpp, ClangOperations.cpp,
// ClangStatements.cpp, TranslationUnitIR.cpp): how a clang expression names
// an entity, and FunctionLowering, which lowers one function's clang::CFG.
// ClangLowering.h is the interface; nothing else includes this header.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_CLANGFUNCTIONLOWERING_H
#define STREAMLIFE_CHECKS_CLANG_CLANGFUNCTIONLOWERING_H

#include "ClangLowering.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

using ir::NameId;
using ir::NoId;
using ir::StreamRef;

//===----------------------------------------------------------------------===//
// Entities (ClangEntities.cpp)
//===----------------------------------------------------------------------===//

/// A name in clang terms: a declaration, a member of it, a constant
/// element, or the pointee of a pointer (`*out`).
struct EntityKey {
  const ValueDecl *Base = nullptr;
  const ValueDecl *Member = nullptr;
  int64_t Index = -1;
  bool Deref = false;
  /// The value of a call or construction (before it is bound to a name).
  const Expr *Temporary = nullptr;

  friend bool operator<(const EntityKey &A, const EntityKey &B) {
    return std::tie(A.Base, A.Member, A.Index, A.Deref, A.Temporary) <
           std::tie(B.Base, B.Member, B.Index, B.Deref, B.Temporary);
  }
};

/// The entity \p E names: `p`, `obj.p`, `this->p`, `arr[2]`, `*out`.
std::optional<EntityKey> resolveEntity(const Expr *E, ASTContext &Ctx);
/// The expressions naming the buffers an operand refers to: looks through
/// pointer arithmetic, `&p[i]`, and `void *args[] = {&a, &b}` kernel
/// parameter arrays.
void collectBufferExprs(const Expr *E,
                        llvm::SmallVectorImpl<const Expr *> &Out);
/// For Allocate: the buffer whose address is passed (`&p`, `(void **)&p`).
const Expr *addressee(const Expr *E);
/// The source text of \p E (its spelling inside a macro).
std::string sourceText(const Expr *E, ASTContext &Ctx);
/// The call or construction an initialiser / right-hand side evaluates to,
/// through the temporaries and conversions around it.
const Expr *valueCall(const Expr *E);

//===----------------------------------------------------------------------===//
// Lowering one function
//===----------------------------------------------------------------------===//

/// Lowers one function: names and streams (ClangEntities.cpp), calls and
/// the model's operations (ClangOperations.cpp), statements, scope ends and
/// the CFG walk (ClangStatements.cpp).
class FunctionLowering {
public:
  FunctionLowering(TranslationUnitIR &TU, const FunctionDecl *Function,
                   ir::FunctionId Id)
      : TU(TU), Ctx(TU.context()), Model(TU.model()), Function(Function),
        Id(Id) {}

  ir::Function lower();

private:
  // Names.
  NameId name(const EntityKey &Key, llvm::function_ref<std::string()> Spell);
  NameId entity(const Expr *E);
  NameId temporary(const Expr *E);
  NameId variable(const VarDecl *Var);
  StreamRef stream(const Expr *E, unsigned Depth = 0);

  // Elements.
  void lowerStmt(const Stmt *S);
  void lowerCall(const CallExpr *Call);
  void lowerOperation(const ApiOperation &Op, const Expr *Site);
  void lowerSummarizedCall(const CallExpr *Call, const FunctionDecl *Callee);
  void lowerAssignment(NameId Target, QualType Type, const Expr *RHS,
                       const Stmt *Site);
  void lowerScopeEnd(const VarDecl *Var, SourceLocation Loc, bool Destructor);
  // PyTorch / RMM objects (see the section below).
  bool lowerObjectCall(const CallExpr *Call);
  void lowerTensorOp(const CallExpr *Call, TensorOpKind Kind);
  NameId valueName(const Expr *E);
  const Expr *throughAccessor(const Expr *E) const;

  ir::Inst &emit(ir::OpKind Kind, SourceLocation Loc) {
    ir::Inst I{Kind};
    I.Site = TU.site(Loc);
    Current->Insts.push_back(std::move(I));
    return Current->Insts.back();
  }

  TranslationUnitIR &TU;
  ASTContext &Ctx;
  const ApiModel &Model;
  const FunctionDecl *Function;
  ir::FunctionId Id;
  ir::Function Out;
  ir::Block *Current = nullptr;
  std::map<EntityKey, NameId> Names;
};

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_CLANGFUNCTIONLOWERING_H
