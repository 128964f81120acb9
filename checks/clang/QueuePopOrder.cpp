//===--- QueuePopOrder.cpp - streamlife -----------------------------------===//

#include "QueuePopOrder.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

//===----------------------------------------------------------------------===//
// Which types are keepalive entries
//===----------------------------------------------------------------------===//

/// Looks through std::optional / std::shared_ptr / std::unique_ptr.
const CXXRecordDecl *recordLookingThroughWrappers(QualType T) {
  T = T.getCanonicalType().getNonReferenceType();
  const auto *Record = T->getAsCXXRecordDecl();
  if (const auto *Spec =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(Record)) {
    if (Spec->isInStdNamespace() &&
        llvm::is_contained(
            std::initializer_list<StringRef>{"optional", "shared_ptr",
                                             "unique_ptr"},
            Spec->getName()) &&
        Spec->getTemplateArgs().size() > 0 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return recordLookingThroughWrappers(Spec->getTemplateArgs()[0].getAsType());
  }
  return Record;
}

bool isOwnedBufferType(QualType T) {
  const CXXRecordDecl *Record = recordLookingThroughWrappers(T);
  if (!Record)
    return false;
  std::string Name = Record->getQualifiedNameAsString();
  return Name == "at::Tensor" || Name == "at::TensorBase" ||
         Name == "rmm::device_buffer" || Name == "rmm::device_uvector" ||
         Name == "rmm::device_scalar";
}

bool isEventType(QualType T) {
  QualType C = T.getCanonicalType().getNonReferenceType();
  if (const auto *Ptr = C->getAs<PointerType>())
    if (const auto *Pointee = Ptr->getPointeeType()->getAsRecordDecl())
      return Pointee->getName() == "CUevent_st";
  const CXXRecordDecl *Record = recordLookingThroughWrappers(T);
  if (!Record)
    return false;
  std::string Name = Record->getQualifiedNameAsString();
  return Name == "c10::cuda::CUDAEvent" || Name == "c10::Event";
}

/// A struct, std::pair or std::tuple holding an owned buffer and an event.
bool isKeepaliveEntry(QualType T) {
  const CXXRecordDecl *Record = T.getCanonicalType()->getAsCXXRecordDecl();
  if (!Record || !Record->hasDefinition())
    return false;
  bool Buffer = false, Event = false;
  auto See = [&](QualType Part) {
    Buffer |= isOwnedBufferType(Part);
    Event |= isEventType(Part);
  };
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Record);
  if (Spec && Spec->isInStdNamespace() &&
      (Spec->getName() == "pair" || Spec->getName() == "tuple")) {
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
      if (Arg.getKind() == TemplateArgument::Type)
        See(Arg.getAsType());
      else if (Arg.getKind() == TemplateArgument::Pack)
        for (const TemplateArgument &Packed : Arg.pack_elements())
          if (Packed.getKind() == TemplateArgument::Type)
            See(Packed.getAsType());
    }
  } else {
    for (const FieldDecl *Field : Record->fields())
      See(Field->getType());
  }
  return Buffer && Event;
}

/// The entry type of a container: its first template type argument.
bool holdsKeepaliveEntries(QualType Container) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Container.getCanonicalType().getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return isKeepaliveEntry(Spec->getTemplateArgs()[0].getAsType());
}

//===----------------------------------------------------------------------===//
// Naming containers, their front entry, and copies of it
//===----------------------------------------------------------------------===//

const Expr *strip(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts()->IgnoreImplicit();
    if (const auto *Call = dyn_cast<CallExpr>(Next)) {
      // std::move / std::ref of an operand is the operand.
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && Callee->isInStdNamespace() && Call->getNumArgs() == 1 &&
          Callee->getDeclName().isIdentifier() &&
          (Callee->getName() == "move" || Callee->getName() == "ref" ||
           Callee->getName() == "cref")) {
        E = Call->getArg(0);
        continue;
      }
    }
    // Copies, moves and conversions (iterator -> const_iterator).
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Next))
      if (Construct->getNumArgs() == 1) {
        E = Construct->getArg(0);
        continue;
      }
    return Next;
  }
  return E;
}

/// The declaration naming a container: a variable or a field.
const ValueDecl *containerKey(const Expr *E) {
  E = strip(E);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(Ref->getDecl());
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return dyn_cast<FieldDecl>(Member->getMemberDecl());
  return nullptr;
}

bool isZero(const Expr *E, ASTContext &Ctx) {
  Expr::EvalResult Result;
  return !E->isValueDependent() && E->EvaluateAsInt(Result, Ctx) &&
         Result.Val.getInt() == 0;
}

/// For `C.front()`, `C[0]`, `C.at(0)`, `*C.begin()`: the container C.
const ValueDecl *frontEntryOf(const Expr *E, ASTContext &Ctx) {
  E = strip(E);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (!Method || !Method->getDeclName().isIdentifier())
      return nullptr;
    if (Method->getName() == "front" ||
        (Method->getName() == "at" && Call->getNumArgs() == 1 &&
         isZero(Call->getArg(0), Ctx)))
      return containerKey(Call->getImplicitObjectArgument());
    return nullptr;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
        isZero(Op->getArg(1), Ctx))
      return containerKey(Op->getArg(0));
    if (Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
      if (const auto *Begin = dyn_cast<CXXMemberCallExpr>(strip(Op->getArg(0))))
        if (Begin->getMethodDecl() &&
            Begin->getMethodDecl()->getDeclName().isIdentifier() &&
            Begin->getMethodDecl()->getName() == "begin")
          return containerKey(Begin->getImplicitObjectArgument());
  }
  return nullptr;
}

/// Local variables holding (a copy of, or a reference to) the front entry
/// of a container or a part of it, taken before a pop.
using AliasMap = llvm::DenseMap<const VarDecl *, const ValueDecl *>;

/// For an event operand: the container whose front entry it belongs to
/// (`C.front().ev`, `std::get<1>(C.front())`, `C.front().second`, or a
/// local copy of one of them).
const ValueDecl *entryOwningEvent(const Expr *E, ASTContext &Ctx,
                                  const AliasMap &Aliases) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = strip(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        return Aliases.lookup(Var);
      return nullptr;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(E)) {
      if (!isa<FieldDecl>(Member->getMemberDecl()))
        return nullptr;
      E = Member->getBase();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && Callee->isInStdNamespace() &&
          Callee->getDeclName().isIdentifier() && Callee->getName() == "get" &&
          Call->getNumArgs() == 1) {
        E = Call->getArg(0);
        continue;
      }
    }
    return frontEntryOf(E, Ctx);
  }
  return nullptr;
}

class AliasCollector : public RecursiveASTVisitor<AliasCollector> {
public:
  AliasCollector(ASTContext &Ctx, AliasMap &Aliases)
      : Ctx(Ctx), Aliases(Aliases) {}
  bool VisitVarDecl(VarDecl *Var) {
    if (Var->isLocalVarDecl() && Var->getInit())
      if (const ValueDecl *C = entryOwningEvent(Var->getInit(), Ctx, Aliases))
        Aliases[Var] = C;
    return true;
  }

private:
  ASTContext &Ctx;
  AliasMap &Aliases;
};

//===----------------------------------------------------------------------===//
// What a call does to the state
//===----------------------------------------------------------------------===//

enum class Effect { None, WaitEntry, SyncAll, Pop };

struct CallEffect {
  Effect Kind = Effect::None;
  const ValueDecl *Container = nullptr;
};

StringRef calleeName(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getDeclName().isIdentifier())
    return {};
  return Callee->getName();
}

CallEffect classify(const CallExpr *Call, ASTContext &Ctx,
                    const AliasMap &Aliases) {
  StringRef Name = calleeName(Call);
  if (Name.empty())
    return {};
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Object = Member->getImplicitObjectArgument();
    QualType ObjectType = Object->getType();
    if (Member->getMethodDecl()->getParent()->isLambda())
      return {};
    // Event waits by an event object: CUDAEvent/c10::Event block(s),
    // synchronize().
    if ((Name == "block" || Name == "synchronize") && isEventType(ObjectType))
      if (const ValueDecl *C = entryOwningEvent(Object, Ctx, Aliases))
        return {Effect::WaitEntry, C};
    // Removing the oldest entry.
    bool RemovesFront =
        Name == "pop_front" || Name == "pop" ||
        (Name == "erase" && Call->getNumArgs() == 1 && [&] {
          const auto *Begin =
              dyn_cast<CXXMemberCallExpr>(strip(Call->getArg(0)));
          return Begin && (calleeName(Begin) == "begin" ||
                           calleeName(Begin) == "cbegin") &&
                 containerKey(Begin->getImplicitObjectArgument()) ==
                     containerKey(Object);
        }());
    if (RemovesFront && holdsKeepaliveEntries(ObjectType))
      if (const ValueDecl *C = containerKey(Object))
        return {Effect::Pop, C};
    return {};
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  std::string Qualified = Callee->getQualifiedNameAsString();
  if (Name == "cudaDeviceSynchronize" || Name == "cuCtxSynchronize" ||
      Qualified == "c10::cuda::device_synchronize")
    return {Effect::SyncAll, nullptr};
  int EventArg = llvm::StringSwitch<int>(Name)
                     .Cases({"cudaStreamWaitEvent", "cuStreamWaitEvent"}, 1)
                     .Cases({"cudaEventSynchronize", "cuEventSynchronize"}, 0)
                     .Default(-1);
  if (EventArg >= 0 && static_cast<unsigned>(EventArg) < Call->getNumArgs())
    if (const ValueDecl *C =
            entryOwningEvent(Call->getArg(EventArg), Ctx, Aliases))
      return {Effect::WaitEntry, C};
  return {};
}

/// Per container: its current front entry has been waited on (on every path).
struct State {
  llvm::DenseSet<const ValueDecl *> Waited;
  bool AllSynced = false;
  bool Reachable = false;

  void meet(const State &Other) {
    if (!Other.Reachable)
      return;
    if (!Reachable || (AllSynced && !Other.AllSynced)) {
      *this = Other;
      return;
    }
    if (Other.AllSynced)
      return;
    llvm::DenseSet<const ValueDecl *> Both;
    for (const ValueDecl *C : Waited)
      if (Other.Waited.contains(C))
        Both.insert(C);
    Waited = std::move(Both);
  }
  bool waited(const ValueDecl *C) const {
    return AllSynced || Waited.contains(C);
  }
  friend bool operator==(const State &A, const State &B) {
    return A.Reachable == B.Reachable && A.AllSynced == B.AllSynced &&
           A.Waited == B.Waited;
  }
};

class LateWaitFinder : public RecursiveASTVisitor<LateWaitFinder> {
public:
  LateWaitFinder(ASTContext &Ctx, const AliasMap &Aliases,
                 const ValueDecl *Container, SourceLocation After)
      : Ctx(Ctx), Aliases(Aliases), Container(Container), After(After) {}
  bool VisitCallExpr(CallExpr *Call) {
    if (Found || !Ctx.getSourceManager().isBeforeInTranslationUnit(
                     After, Call->getBeginLoc()))
      return true;
    // Only waits through a copy taken before the pop: `C.front()` after the
    // pop is the next entry.
    CallEffect E = classify(Call, Ctx, Aliases);
    if (E.Kind == Effect::WaitEntry && E.Container == Container &&
        !frontEntryOf(Call, Ctx))
      Found = Call;
    return true;
  }
  const Expr *Found = nullptr;

private:
  ASTContext &Ctx;
  const AliasMap &Aliases;
  const ValueDecl *Container;
  SourceLocation After;
};

bool waitsThroughAlias(const CallExpr *Call, ASTContext &Ctx,
                       const AliasMap &Aliases) {
  const Expr *Event = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Event = Member->getImplicitObjectArgument();
  else if (calleeName(Call).ends_with("StreamWaitEvent") &&
           Call->getNumArgs() > 1)
    Event = Call->getArg(1);
  else if (Call->getNumArgs() > 0)
    Event = Call->getArg(0);
  const auto *Ref = Event ? dyn_cast<DeclRefExpr>(strip(Event)) : nullptr;
  return Ref && isa<VarDecl>(Ref->getDecl()) &&
         Aliases.count(cast<VarDecl>(Ref->getDecl()));
}

} // namespace

std::vector<QueuePopFinding> findUnorderedQueuePops(const FunctionDecl *F,
                                                    ASTContext &Ctx) {
  std::vector<QueuePopFinding> Findings;
  if (!F || !F->hasBody())
    return Findings;
  // Cheap pre-check: no pop of a keepalive container, no analysis.
  AliasMap Aliases;
  AliasCollector(Ctx, Aliases).TraverseStmt(F->getBody());
  struct PopScan : RecursiveASTVisitor<PopScan> {
    ASTContext &Ctx;
    const AliasMap &Aliases;
    bool Any = false;
    PopScan(ASTContext &Ctx, const AliasMap &Aliases)
        : Ctx(Ctx), Aliases(Aliases) {}
    bool VisitCallExpr(CallExpr *Call) {
      Any |= classify(Call, Ctx, Aliases).Kind == Effect::Pop;
      return !Any;
    }
  } Scan(Ctx, Aliases);
  Scan.TraverseStmt(F->getBody());
  if (!Scan.Any)
    return Findings;

  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(F, F->getBody(), &Ctx, Options);
  if (!Graph)
    return Findings;

  PostOrderCFGView Order(Graph.get());
  std::vector<State> Exit(Graph->getNumBlockIDs());
  auto entryState = [&](const CFGBlock *Block) {
    State In;
    if (Block == &Graph->getEntry()) {
      In.Reachable = true;
      return In;
    }
    for (const CFGBlock::AdjacentBlock &Pred : Block->preds())
      if (const CFGBlock *P = Pred.getReachableBlock())
        In.meet(Exit[P->getBlockID()]);
    return In;
  };
  auto transferBlock = [&](const CFGBlock *Block, State &S,
                           std::vector<const CallExpr *> *UnorderedPops) {
    if (!S.Reachable)
      return;
    for (const CFGElement &Element : *Block) {
      std::optional<CFGStmt> Stmt = Element.getAs<CFGStmt>();
      const auto *Call = Stmt ? dyn_cast<CallExpr>(Stmt->getStmt()) : nullptr;
      if (!Call)
        continue;
      CallEffect E = classify(Call, Ctx, Aliases);
      switch (E.Kind) {
      case Effect::None:
        break;
      case Effect::SyncAll:
        S.AllSynced = true;
        break;
      case Effect::WaitEntry:
        S.Waited.insert(E.Container);
        break;
      case Effect::Pop:
        if (!S.waited(E.Container) && UnorderedPops)
          UnorderedPops->push_back(Call);
        // The next entry is now the front, and nobody waited on it yet.
        if (S.AllSynced) {
          // A device sync completed every entry, the new front included.
          break;
        }
        S.Waited.erase(E.Container);
        break;
      }
    }
  };

  // Forward, in reverse post-order, to a fixpoint. The state is a set of
  // containers that only shrinks at joins, so this converges quickly; the
  // cap guards against a bug, and a function that hits it is not reported.
  constexpr unsigned MaxRounds = 16;
  bool Changed = true;
  unsigned Round = 0;
  for (; Changed && Round < MaxRounds; ++Round) {
    Changed = false;
    for (const CFGBlock *Block : Order) {
      State S = entryState(Block);
      transferBlock(Block, S, nullptr);
      if (!(S == Exit[Block->getBlockID()])) {
        Exit[Block->getBlockID()] = std::move(S);
        Changed = true;
      }
    }
  }
  if (Changed)
    return Findings;

  std::vector<const CallExpr *> Pops;
  for (const CFGBlock *Block : Order) {
    State S = entryState(Block);
    transferBlock(Block, S, &Pops);
  }
  llvm::DenseSet<const CallExpr *> Seen;
  for (const CallExpr *Pop : Pops) {
    if (!Seen.insert(Pop).second)
      continue;
    QueuePopFinding Finding;
    Finding.Pop = Pop;
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Pop->getSourceRange()),
        Ctx.getSourceManager(), Ctx.getLangOpts());
    Finding.PopText =
        Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts())
            .str();
    const ValueDecl *Container = classify(Pop, Ctx, Aliases).Container;
    LateWaitFinder Late(Ctx, Aliases, Container, Pop->getEndLoc());
    Late.TraverseStmt(F->getBody());
    if (Late.Found && waitsThroughAlias(cast<CallExpr>(Late.Found), Ctx,
                                        Aliases))
      Finding.LateWait = Late.Found;
    Findings.push_back(std::move(Finding));
  }
  return Findings;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
