//===--- ClangStatements.cpp - streamlife ---------------------------------===//
//
// FunctionLowering, statements and the CFG walk. Each CFG block becomes an
// IR block with the same successors. Assignments and initialisations become
// Bind (events and buffers; local stream copies are resolved by stream()
// instead), `return e` binds the function's return name, and destructors
// and lifetime ends become Kill (an owned object's last owner going
// releases it) or, for a guard, a pop of the current stream.
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

void FunctionLowering::lowerAssignment(NameId Target, QualType Type,
                                       const Expr *RHS, const Stmt *Site) {
  if (Model.isStreamType(Type))
    return; // local stream copies are resolved by stream()
  ir::Inst &I = emit(ir::OpKind::Bind, Site->getBeginLoc());
  I.Value = Model.isEventType(Type) ? ir::ValueKind::Event
                                    : ir::ValueKind::Buffer;
  I.Names.push_back(Target);
  NameId Source = NoId;
  bool FromTemporary = false;
  if (const Expr *Call = valueCall(RHS)) {
    EntityKey Key;
    Key.Temporary = Call;
    if (Names.count(Key)) {
      Source = Names[Key];
      FromTemporary = true;
    }
  }
  // `keep = w`, `Tensor keep(w)`, `owner = std::move(w)`: the copy shares
  // w's object, the move takes it.
  bool IsMove = false;
  if (Source == NoId && RHS) {
    const Expr *From = RHS->IgnoreImplicit()->IgnoreParenCasts();
    for (unsigned Depth = 0; Depth < 4; ++Depth) {
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(From);
          Construct && Construct->getNumArgs() == 1 &&
          Construct->getConstructor()->isCopyOrMoveConstructor()) {
        IsMove |= Construct->getConstructor()->isMoveConstructor();
        From = Construct->getArg(0)->IgnoreImplicit()->IgnoreParenCasts();
        continue;
      }
      if (const auto *Call = dyn_cast<CallExpr>(From);
          Call && Call->isCallToStdMove() && Call->getNumArgs() == 1) {
        IsMove = true;
        From = Call->getArg(0)->IgnoreImplicit()->IgnoreParenCasts();
        continue;
      }
      break;
    }
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Site);
        Operator && Operator->getNumArgs() == 2 &&
        isa<CXXMethodDecl>(Operator->getDirectCallee()) &&
        cast<CXXMethodDecl>(Operator->getDirectCallee())
            ->isMoveAssignmentOperator())
      IsMove = true;
    Source = valueName(From);
    if (!FromTemporary && Source != NoId && IsMove &&
        !Model.isEventType(Type))
      I.Kind = ir::OpKind::Move;
  }
  I.Names.push_back(Source);
  if (FromTemporary) {
    // The temporary's value now lives in the target only.
    ir::Inst &Kill = emit(ir::OpKind::Kill, Site->getBeginLoc());
    Kill.Names.push_back(Source);
  }
}

void FunctionLowering::lowerStmt(const Stmt *S) {
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    lowerCall(Call);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(S)) {
    if (std::optional<ApiOperation> Op = Model.classify(Construct))
      lowerOperation(*Op, Construct);
    return;
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
    if (Binary->getOpcode() == BO_Assign)
      if (NameId Target = entity(Binary->getLHS()); Target != NoId)
        lowerAssignment(Target, Binary->getLHS()->getType(), Binary->getRHS(),
                        Binary);
    return;
  }
  if (const auto *Decls = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : Decls->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var || !Var->hasInit() || Var->getType()->isArrayType())
        continue;
      // An initialisation is an assignment to the new variable.
      lowerAssignment(variable(Var), Var->getType(), Var->getInit(), Decls);
    }
    return;
  }
  if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    const Expr *Value = Return->getRetValue();
    if (!Value || Out.Return == NoId)
      return;
    NameId Source = NoId;
    if (const Expr *Call = valueCall(Value)) {
      EntityKey Key;
      Key.Temporary = Call;
      if (Names.count(Key))
        Source = Names[Key];
    }
    if (Source == NoId) {
      // `return out;` is a move construction from `out` (C++17 elides
      // only for prvalues).
      const Expr *From = Value->IgnoreImplicit()->IgnoreParenCasts();
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(From);
          Construct && Construct->getNumArgs() == 1 &&
          Construct->getConstructor()->isCopyOrMoveConstructor())
        From = Construct->getArg(0);
      Source = valueName(From);
    }
    ir::Inst &I = emit(ir::OpKind::Bind, Return->getBeginLoc());
    I.Names.push_back(Out.Return);
    I.Names.push_back(Source);
  }
}

void FunctionLowering::lowerScopeEnd(const VarDecl *Var, SourceLocation Loc,
                                     bool Destructor) {
  std::optional<ClassKind> Class = Model.classOf(Var->getType());
  if (Destructor && Class == ClassKind::StreamGuard) {
    emit(ir::OpKind::PopCurrentStream, Loc);
    return;
  }
  // Stream and event handles outlive their variables' scopes in part 1's
  // model (an event recorded in one iteration is waited on in the next);
  // only buffer names are forgotten.
  auto Known = Names.find(EntityKey{Var});
  if (Known == Names.end() || Model.isStreamType(Var->getType()) ||
      Model.isEventType(Var->getType()))
    return; // never named: nothing to forget
  ir::Inst &I = emit(ir::OpKind::Kill, Loc);
  I.Names.push_back(Known->second);
}

ir::Function FunctionLowering::lower() {
  Out.Name = Function->getNameAsString();
  Out.Site = TU.site(Function->getLocation());
  CFG::BuildOptions Options;
  Options.AddImplicitDtors = true;
  Options.AddTemporaryDtors = true;
  Options.AddLifetime = true;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(Function, Function->getBody(), &Ctx, Options);
  if (!Graph) {
    Out.Lowered = false;
    return std::move(Out);
  }
  for (const ParmVarDecl *Param : Function->parameters())
    Out.Params.push_back(variable(Param));
  if (!Function->getReturnType()->isVoidType())
    Out.Return = TU.mutableModule().addName({"<return>", Id, NoId});

  Out.Blocks.resize(Graph->getNumBlockIDs());
  Out.Entry = Graph->getEntry().getBlockID();
  Out.Exit = Graph->getExit().getBlockID();
  for (const CFGBlock *Block : *Graph) {
    Current = &Out.Blocks[Block->getBlockID()];
    for (const CFGBlock::AdjacentBlock &Succ : Block->succs())
      if (const CFGBlock *S = Succ.getReachableBlock())
        Current->Succs.push_back(S->getBlockID());
    for (const CFGElement &Element : *Block) {
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>()) {
        lowerStmt(S->getStmt());
      } else if (std::optional<CFGAutomaticObjDtor> Dtor =
                     Element.getAs<CFGAutomaticObjDtor>()) {
        const Stmt *Trigger = Dtor->getTriggerStmt();
        lowerScopeEnd(Dtor->getVarDecl(),
                      Trigger ? Trigger->getEndLoc() : Function->getEndLoc(),
                      /*Destructor=*/true);
      } else if (std::optional<CFGLifetimeEnds> End =
                     Element.getAs<CFGLifetimeEnds>()) {
        const Stmt *Trigger = End->getTriggerStmt();
        lowerScopeEnd(End->getVarDecl(),
                      Trigger ? Trigger->getEndLoc() : Function->getEndLoc(),
                      /*Destructor=*/false);
      } else if (std::optional<CFGTemporaryDtor> Temp =
                     Element.getAs<CFGTemporaryDtor>()) {
        const CXXBindTemporaryExpr *Bound = Temp->getBindTemporaryExpr();
        const Expr *Value = valueCall(Bound);
        EntityKey Key;
        Key.Temporary = Value;
        auto Known = Names.find(Key);
        if (Value && Known != Names.end()) {
          ir::Inst &I = emit(ir::OpKind::Kill, Bound->getEndLoc());
          I.Names.push_back(Known->second);
        }
      }
    }
  }
  return std::move(Out);
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
