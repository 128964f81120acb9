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
  if (Model.holdsStreams(Type)) {
    // `auto streams = fork_streams(s, n)`: the variable denotes the
    // streams the call returned (and names them in sentences).
    EntityKey Key;
    Key.Temporary = valueCall(RHS);
    auto Returned = Key.Temporary ? Names.find(Key) : Names.end();
    if (Returned == Names.end())
      return;
    ir::NameInfo &Info = TU.mutableModule().Names[Returned->second];
    if (Info.Spelling.empty())
      Info.Spelling = TU.module().name(Target).Spelling;
    ir::Inst &Bind = emit(ir::OpKind::Bind, Site->getBeginLoc());
    Bind.Names = {Target, Returned->second};
    Bind.Value = ir::ValueKind::Stream;
    return;
  }
  if (isEntries(Target)) {
    // `q.back().params = t`: one more entry's buffer, not a rebinding of
    // all of them.
    storeInto(Target, RHS, Site->getBeginLoc());
    return;
  }
  ir::Inst &I = emit(ir::OpKind::Bind, Site->getBeginLoc());
  bool Event = Model.holdsEvent(Type);
  I.Value = Event ? ir::ValueKind::Event : ir::ValueKind::Buffer;
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
    // Moving out of an entry leaves the entry's buffer with its last owner
    // (the release comes when that goes): a copy for the analysis.
    if (!FromTemporary && Source != NoId && IsMove && !isEntryPart(Source) &&
        !Event)
      I.Kind = ir::OpKind::Move;
  }
  I.Names.push_back(Source);
  // `auto &dst = v[i]`, `Tensor t = v.back()`: one entry, as `v[*]` is.
  if (Source != NoId && isEntries(Source))
    TU.mutableModule().Names[Target].OneEntry = true;
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
      if (!lowerEntryCopy(Var, Var->getType(), Var->getInit(), Decls))
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
    // A returned event carries its record (and what it covers) to the
    // caller's value.
    if (Model.holdsEvent(Function->getReturnType()))
      I.Value = ir::ValueKind::Event;
  }
}

void FunctionLowering::lowerScopeEnd(const VarDecl *Var, SourceLocation Loc,
                                     bool Destructor) {
  std::optional<ClassKind> Class = Model.classOf(Var->getType());
  if (Destructor && Class == ClassKind::StreamGuard) {
    emit(ir::OpKind::PopCurrentStream, Loc);
    return;
  }
  // A struct's owned fields (`oldest.params`) end with it.
  if (!Var->getType()->isReferenceType())
    for (auto It = Names.lower_bound(EntityKey{Var});
         It != Names.end() && It->first.Base == Var; ++It)
      if (It->first.Member && It->first.plain() &&
          Model.holdsOwnedBuffer(It->first.Member->getType())) {
        ir::Inst &I = emit(ir::OpKind::Kill, Loc);
        I.Names.push_back(It->second);
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
  std::vector<UndefinedEdge> Undefined;
  // Entry side first (the builder numbers blocks from the exit back): a
  // declaration is named before the scope ends that forget it, also when
  // they lie in a later block (the join after an `if`).
  for (const CFGBlock *Block : llvm::reverse(*Graph)) {
    if (std::optional<UndefinedEdge> Edge = undefinedEdge(*Block))
      Undefined.push_back(*Edge);
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
  // The edges where a tested owner holds nothing get a block of their own
  // that forgets it (appended: the CFG's block ids stay the IR's).
  for (const UndefinedEdge &Edge : Undefined) {
    auto &Succs = Out.Blocks[Edge.From].Succs;
    auto Target = llvm::find(Succs, Edge.To);
    if (Target == Succs.end() || llvm::count(Succs, Edge.To) != 1)
      continue; // both branches lead to one block: nothing to tell apart
    *Target = static_cast<unsigned>(Out.Blocks.size());
    ir::Block Split;
    Split.Succs.push_back(Edge.To);
    ir::Inst Forget{ir::OpKind::Forget};
    Forget.Site = TU.site(Edge.Loc);
    Forget.Names.push_back(Edge.Owner);
    Split.Insts.push_back(std::move(Forget));
    Out.Blocks.push_back(std::move(Split));
  }
  return std::move(Out);
}

std::optional<FunctionLowering::UndefinedEdge>
FunctionLowering::undefinedEdge(const CFGBlock &Block) {
  // `if (t.defined())`, `while (!t.defined())`, `t.defined() && ...`: the
  // branch on which t is undefined. The join of the paths (a keepalive
  // assigned in an earlier iteration) says t may hold an object there; it
  // holds none, so rebinding t on that path releases nothing.
  const Stmt *Condition = Block.getTerminatorCondition();
  if (!Condition || Block.succ_size() != 2)
    return std::nullopt;
  const Expr *Test = dyn_cast<Expr>(Condition);
  bool Negated = false;
  while (Test) {
    Test = Test->IgnoreParenImpCasts();
    const auto *Not = dyn_cast<UnaryOperator>(Test);
    if (!Not || Not->getOpcode() != UO_LNot)
      break;
    Negated = !Negated;
    Test = Not->getSubExpr();
  }
  const auto *Query = dyn_cast_or_null<CXXMemberCallExpr>(Test);
  if (!Query || !Model.isDefinedQuery(Query))
    return std::nullopt;
  NameId Owner = entity(Query->getImplicitObjectArgument());
  // The false branch of `t.defined()`, the true one of `!t.defined()`.
  const CFGBlock *To = *(Block.succ_begin() + (Negated ? 0 : 1));
  if (Owner == NoId || !To)
    return std::nullopt;
  return UndefinedEdge{Block.getBlockID(), To->getBlockID(), Owner,
                       Query->getBeginLoc()};
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
