//===--- ClangLowering.cpp - streamlife -----------------------------------===//
//
// Lowering clang::CFG into the stream-operation IR (see ClangLowering.h).
//
// Each CFG block becomes an IR block with the same successors. Elements:
//   - calls the ApiModel classifies (and constructor calls with a row)
//     become their operation, operands resolved to names;
//   - calls to functions defined in this translation unit become Call
//     instructions (the core applies the callee's summary);
//   - assignments and initialisations become Bind (events and buffers;
//     local stream copies are resolved here instead, as part 1 did);
//   - `return e` binds the function's return name;
//   - destructors and lifetime ends become Kill (an owned object's last
//     owner going releases it) or, for a guard, a pop of the current stream.
//
// Names are resolved the way use-after-move names a moved object: by
// declaration (`p`, `obj.p`, `this->p`, `arr[2]`, `*out`).
//
//===----------------------------------------------------------------------===//

#include "ClangLowering.h"
#include <functional>
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include <map>
#include <tuple>

namespace clang {
namespace tidy {
namespace streamlife {

using ir::NameId;
using ir::NoId;
using ir::StreamRef;

namespace {

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

std::optional<EntityKey> resolveEntity(const Expr *E, ASTContext &Ctx) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl, FieldDecl, BindingDecl>(Ref->getDecl()))
      return EntityKey{Ref->getDecl()};
    return std::nullopt;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (!isa<FieldDecl, VarDecl>(Member->getMemberDecl()))
      return std::nullopt;
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(Base))
      return EntityKey{nullptr, Member->getMemberDecl()};
    std::optional<EntityKey> BaseKey = resolveEntity(Base, Ctx);
    if (BaseKey && !BaseKey->Member && BaseKey->Index < 0 && !BaseKey->Deref &&
        !BaseKey->Temporary)
      return EntityKey{BaseKey->Base, Member->getMemberDecl()};
    return std::nullopt;
  }
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
    // Only constant subscripts name one element: bufs[0] and bufs[1] are
    // two buffers, bufs[i] is unknown.
    Expr::EvalResult Index;
    if (Subscript->getIdx()->isValueDependent() ||
        !Subscript->getIdx()->EvaluateAsInt(Index, Ctx))
      return std::nullopt;
    std::optional<EntityKey> BaseKey = resolveEntity(Subscript->getBase(), Ctx);
    if (BaseKey && !BaseKey->Member && BaseKey->Index < 0 && !BaseKey->Deref &&
        !BaseKey->Temporary)
      return EntityKey{BaseKey->Base, nullptr,
                       Index.Val.getInt().getExtValue()};
    return std::nullopt;
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    // `*out` for an out parameter (or any pointer variable).
    if (Unary->getOpcode() == UO_Deref) {
      const auto *Ref =
          dyn_cast<DeclRefExpr>(Unary->getSubExpr()->IgnoreParenCasts());
      if (Ref && isa<VarDecl>(Ref->getDecl()))
        return EntityKey{Ref->getDecl(), nullptr, -1, /*Deref=*/true};
    }
  }
  return std::nullopt;
}

/// The expressions naming the buffers an operand refers to: looks through
/// pointer arithmetic, `&p[i]`, and `void *args[] = {&a, &b}` kernel
/// parameter arrays.
void collectBufferExprs(const Expr *E,
                        llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!E)
    return;
  E = E->IgnoreParenCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && Var->getType()->isArrayType() && Var->getInit()) {
      if (const auto *Init =
              dyn_cast<InitListExpr>(Var->getInit()->IgnoreImplicit())) {
        for (const Expr *Slot : Init->inits()) {
          const auto *Addr = dyn_cast<UnaryOperator>(Slot->IgnoreParenCasts());
          if (Addr && Addr->getOpcode() == UO_AddrOf)
            collectBufferExprs(Addr->getSubExpr(), Out);
        }
        return;
      }
    }
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isAdditiveOp()) {
      if (Binary->getLHS()->getType()->isPointerType())
        collectBufferExprs(Binary->getLHS(), Out);
      else if (Binary->getRHS()->getType()->isPointerType())
        collectBufferExprs(Binary->getRHS(), Out);
      return;
    }
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    if (Unary->getOpcode() == UO_AddrOf)
      if (const auto *Subscript =
              dyn_cast<ArraySubscriptExpr>(Unary->getSubExpr()->IgnoreParens()))
        if (Subscript->getBase()->getType()->isPointerType())
          return collectBufferExprs(Subscript->getBase(), Out);
  }
  Out.push_back(E);
}

/// For Allocate: the buffer whose address is passed (`&p`, `(void **)&p`).
const Expr *addressee(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *Addr = dyn_cast<UnaryOperator>(E->IgnoreParenCasts());
  if (Addr && Addr->getOpcode() == UO_AddrOf)
    return Addr->getSubExpr();
  return nullptr;
}

std::optional<bool> nonBlockingFlag(const ApiOperation &Op, ASTContext &Ctx) {
  if (!Op.Flags)
    return false; // cudaStreamCreate: cudaStreamDefault
  Expr::EvalResult Value;
  if (Op.Flags->isValueDependent() || !Op.Flags->EvaluateAsInt(Value, Ctx))
    return std::nullopt;
  // cudaStreamNonBlocking and CU_STREAM_NON_BLOCKING are both 0x1.
  return (Value.Val.getInt().getZExtValue() & 1) != 0;
}

std::string sourceText(const Expr *E, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = CharSourceRange::getTokenRange(E->getSourceRange());
  Range = Lexer::makeFileCharRange(Range, SM, Ctx.getLangOpts());
  if (Range.isInvalid()) {
    // A macro argument spelled inside the macro: fall back to the spelling.
    Range = CharSourceRange::getTokenRange(SM.getSpellingLoc(E->getBeginLoc()),
                                           SM.getSpellingLoc(E->getEndLoc()));
  }
  return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
}

/// The call or construction an initialiser / right-hand side evaluates to,
/// through the temporaries and conversions around it.
const Expr *valueCall(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreImplicit()->IgnoreParenCasts();
  if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
    E = Bind->getSubExpr()->IgnoreParenCasts();
  if (isa<CallExpr, CXXConstructExpr>(E))
    return E;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Lowering one function
//===----------------------------------------------------------------------===//

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

NameId FunctionLowering::name(const EntityKey &Key,
                              llvm::function_ref<std::string()> Spell) {
  auto [It, Inserted] = Names.try_emplace(Key, NoId);
  if (!Inserted)
    return It->second;
  ir::NameInfo Info{Spell(), Id, NoId};
  if (Key.Deref) {
    EntityKey Pointer{Key.Base};
    Info.PointeeOf = name(Pointer, [&] { return Key.Base->getName().str(); });
  }
  It->second = TU.mutableModule().addName(std::move(Info));
  return It->second;
}

NameId FunctionLowering::entity(const Expr *E) {
  std::optional<EntityKey> Key = resolveEntity(E, Ctx);
  if (!Key)
    return NoId;
  return name(*Key, [&] { return sourceText(E->IgnoreParenCasts(), Ctx); });
}

NameId FunctionLowering::temporary(const Expr *E) {
  EntityKey Key;
  Key.Temporary = E;
  return name(Key, [] { return std::string(); }); // unnamed (see NameInfo)
}

NameId FunctionLowering::variable(const VarDecl *Var) {
  return name(EntityKey{Var}, [&] { return Var->getName().str(); });
}

StreamRef FunctionLowering::stream(const Expr *E, unsigned Depth) {
  if (!E)
    return StreamRef::unknown();
  const Expr *Bare = E->IgnoreParenCasts();
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(Bare))
    return StreamRef::legacy();
  if (const auto *Literal = dyn_cast<IntegerLiteral>(Bare)) {
    // cudaStreamLegacy and CU_STREAM_LEGACY are ((cudaStream_t)0x1);
    // cudaStreamPerThread and CU_STREAM_PER_THREAD are ((cudaStream_t)0x2).
    uint64_t Value = Literal->getValue().getZExtValue();
    if (Value == 0 || Value == 1)
      return StreamRef::legacy();
    if (Value == 2)
      return StreamRef::perThread();
    return StreamRef::unknown();
  }
  if (!E->isValueDependent() &&
      E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return StreamRef::legacy();
  // A stream object converted to its handle (`operator cudaStream_t()`,
  // `.stream()`, rmm's `.value()` / `.view()`) of a class with a Stream row
  // is that object's stream.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Bare)) {
    const Expr *Object = Member->getImplicitObjectArgument();
    const auto *Method = Member->getMethodDecl();
    if (Object && Method && Model.classOf(Object->getType()) == ClassKind::Stream &&
        (isa<CXXConversionDecl>(Method) ||
         (Method->getDeclName().isIdentifier() &&
          (Method->getName() == "stream" || Method->getName() == "value" ||
           Method->getName() == "view"))))
      return stream(Object, Depth);
  }
  if (const auto *Call = dyn_cast<CallExpr>(Bare)) {
    // getCurrentCUDAStream(), getDefaultCUDAStream().
    if (std::optional<StreamSource> Source = Model.streamSource(Call))
      return *Source == StreamSource::Current ? StreamRef::current()
                                              : StreamRef::legacy();
    // An element of a container of streams (`streams[i]`,
    // `streams.at(i)`): the container stands for all of its streams.
    const Expr *Container = nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      Container = Op->getArg(0);
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
             Member && Member->getMethodDecl() &&
             Member->getMethodDecl()->getDeclName().isIdentifier() &&
             llvm::is_contained(std::initializer_list<StringRef>{
                                    "at", "front", "back"},
                                Member->getMethodDecl()->getName()))
      Container = Member->getImplicitObjectArgument();
    if (Container && Model.isStreamType(Call->getType()))
      if (NameId N = entity(Container); N != NoId)
        return StreamRef::named(N);
  }
  // A copy or conversion of a stream object (`CUDAStream s` passed by
  // value, `cuda_stream_view(handle)`, a span over a vector of streams).
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Bare))
    if (Construct->getNumArgs() >= 1 && Depth < 8 &&
        (Construct->getNumArgs() == 1 ||
         isa<CXXDefaultArgExpr>(Construct->getArg(1))))
      return stream(Construct->getArg(0), Depth + 1);
  // A local copy of another named stream (`cudaStream_t s = this->stream;`)
  // is that stream: two names for one queue must not look like two queues.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Bare))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Var->isLocalVarDecl() && Var->getInit() && Depth < 4 &&
          Model.isStreamType(Var->getType())) {
        StreamRef Init = stream(Var->getInit(), Depth + 1);
        // `auto s = getCurrentCUDAStream();` is taken as the current
        // stream where s is used (code rarely switches in between).
        if (Init.Kind == StreamRef::Named || Init.Kind == StreamRef::Current ||
            Init.Kind == StreamRef::LegacyDefault)
          return Init;
      }
  NameId N = entity(E);
  return N == NoId ? StreamRef::unknown() : StreamRef::named(N);
}

void FunctionLowering::lowerOperation(const ApiOperation &Op,
                                      const Expr *Site) {
  using ir::OpKind;
  ir::OpKind Kind = OpKind::Use;
  switch (Op.Kind) {
  case streamlife::OpKind::Allocate: Kind = OpKind::Allocate; break;
  case streamlife::OpKind::Use: Kind = OpKind::Use; break;
  case streamlife::OpKind::RecordEvent: Kind = OpKind::RecordEvent; break;
  case streamlife::OpKind::StreamWaitEvent: Kind = OpKind::WaitEvent; break;
  case streamlife::OpKind::SyncStream: Kind = OpKind::SyncStream; break;
  case streamlife::OpKind::SyncEvent: Kind = OpKind::SyncEvent; break;
  case streamlife::OpKind::SyncDevice: Kind = OpKind::SyncDevice; break;
  case streamlife::OpKind::Release: Kind = OpKind::Release; break;
  case streamlife::OpKind::ReleaseSync: Kind = OpKind::ReleaseSync; break;
  case streamlife::OpKind::RecordStream: Kind = OpKind::RecordStream; break;
  case streamlife::OpKind::CreateStream: Kind = OpKind::CreateStream; break;
  case streamlife::OpKind::PushCurrentStream:
    Kind = OpKind::PushCurrentStream;
    break;
  case streamlife::OpKind::SetReleaseStream:
    Kind = OpKind::SetReleaseStream;
    break;
  case streamlife::OpKind::StreamWaitStreams:
    Kind = OpKind::WaitStream;
    break;
  case streamlife::OpKind::SetCurrentStream:
    // Replaces the innermost current stream: a pop, then a push (so that a
    // loop of setCurrentCUDAStream calls does not grow the stack).
    emit(OpKind::PopCurrentStream, Site->getBeginLoc());
    Kind = OpKind::PushCurrentStream;
    break;
  }
  ir::Inst I{Kind};
  I.Site = TU.site(Site->getBeginLoc());
  bool KernelArguments = isa<CUDAKernelCallExpr>(Op.Call);
  if (Op.BufferIsResult)
    I.Names.push_back(temporary(Op.Call));
  for (const Expr *Operand : Op.Buffers) {
    if (Kind == OpKind::Allocate) {
      // `&p` names p; an out parameter `out` names `*out`.
      if (const Expr *Target = addressee(Operand)) {
        if (NameId N = entity(Target); N != NoId)
          I.Names.push_back(N);
      } else if (std::optional<EntityKey> Pointer =
                     resolveEntity(Operand, Ctx);
                 Pointer && !Pointer->Member && Pointer->Index < 0 &&
                 !Pointer->Deref && !Pointer->Temporary &&
                 Operand->getType()->isPointerType()) {
        EntityKey Pointee = *Pointer;
        Pointee.Deref = true;
        I.Names.push_back(name(Pointee, [&] {
          return "*" + sourceText(Operand->IgnoreParenCasts(), Ctx);
        }));
      }
      continue;
    }
    if (Kind == OpKind::CreateStream)
      continue;
    llvm::SmallVector<const Expr *, 4> Named;
    collectBufferExprs(Operand, Named);
    for (const Expr *E : Named) {
      // `t.data_ptr<float>()`, `v.data()`: the owned buffer itself.
      const Expr *Owner = throughAccessor(E);
      // Scalars passed to kernels are values, not buffers.
      if (KernelArguments && !E->getType()->isPointerType() && Owner == E)
        continue;
      if (NameId N = valueName(Owner); N != NoId)
        I.Names.push_back(N);
    }
  }
  if (Kind == OpKind::CreateStream) {
    if (const Expr *Created = addressee(Op.Stream))
      I.Stream = stream(Created);
    I.NonBlocking = nonBlockingFlag(Op, Ctx);
  } else if (Op.StreamIsCurrent) {
    I.Stream = StreamRef::current();
  } else if (Op.StreamDefaulted) {
    I.Stream = StreamRef::legacy();
  } else if (Op.Stream) {
    I.Stream = stream(Op.Stream);
  }
  if (Op.Event)
    I.Event = entity(Op.Event);
  if (Kind == OpKind::WaitStream) {
    I.Stream2 = stream(Op.Stream2);
    if (!I.Stream.known() || !I.Stream2.known())
      return;
  }
  if (Kind == OpKind::Allocate && !I.Names.empty()) {
    // An allocation that writes an owned object is released by its last
    // owner; everything else needs an explicit release.
    if (Op.BufferIsResult &&
        (Model.classOf(Op.Call->getType()) == ClassKind::OwnedBuffer ||
         (isa<CXXConstructExpr>(Op.Call) &&
          Model.classOf(cast<CXXConstructExpr>(Op.Call)
                            ->getConstructor()
                            ->getThisType()
                            ->getPointeeType()) == ClassKind::OwnedBuffer)))
      I.Own = ir::Ownership::Owned;
  }
  if ((Kind == OpKind::Allocate || Kind == OpKind::Use ||
       Kind == OpKind::Release || Kind == OpKind::ReleaseSync ||
       Kind == OpKind::RecordStream || Kind == OpKind::SetReleaseStream) &&
      I.Names.empty())
    return; // no buffer the analysis can name
  Current->Insts.push_back(std::move(I));
}

void FunctionLowering::lowerSummarizedCall(const CallExpr *Call,
                                           const FunctionDecl *Callee) {
  ir::Inst &I = emit(ir::OpKind::Call, Call->getBeginLoc());
  I.Callee = TU.functionId(Callee);
  for (unsigned A = 0; A < Call->getNumArgs(); ++A) {
    const Expr *Arg = Call->getArg(A);
    ir::CallArg Mapped;
    if (const Expr *Target = addressee(Arg))
      Mapped.AddressOf = entity(Target);
    llvm::SmallVector<const Expr *, 2> Named;
    // A tensor passed by value is a copy of the caller's name.
    const Expr *Passed = Arg->IgnoreImplicit()->IgnoreParenCasts();
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(Passed);
        Copy && Copy->getNumArgs() == 1 &&
        Copy->getConstructor()->isCopyOrMoveConstructor())
      Passed = Copy->getArg(0);
    collectBufferExprs(Passed, Named);
    if (Named.size() == 1)
      Mapped.Value = valueName(throughAccessor(Named[0]));
    Mapped.Stream = stream(Arg);
    I.Args.push_back(Mapped);
  }
  if (!Callee->getReturnType()->isVoidType())
    I.Names.push_back(temporary(Call));
}

void FunctionLowering::lowerCall(const CallExpr *Call) {
  if (std::optional<ApiOperation> Op = Model.classify(Call)) {
    lowerOperation(*Op, Call);
    return;
  }
  // Class assignment (`w = other`, `w = at::empty(...)`) is a rebinding.
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call))
    if (Operator->getOperator() == OO_Equal && Operator->getNumArgs() == 2) {
      if (NameId Target = entity(Operator->getArg(0)); Target != NoId) {
        lowerAssignment(Target, Operator->getArg(0)->getType(),
                        Operator->getArg(1), Call);
        return;
      }
      // Stored where no name follows it (`q.back().params = t`,
      // `ring[i % N] = t`): the object escapes.
      if (Model.classOf(Operator->getArg(1)->getType()) ==
          ClassKind::OwnedBuffer) {
        if (NameId Stored = valueName(Operator->getArg(1)); Stored != NoId) {
          ir::Inst &Escape = emit(ir::OpKind::Escape, Call->getBeginLoc());
          Escape.Names.push_back(Stored);
        }
        return;
      }
    }
  if (lowerObjectCall(Call))
    return;
  if (const FunctionDecl *Callee = TU.summarizableCallee(Call))
    if (Callee != Function->getDefinition() && Callee != Function)
      lowerSummarizedCall(Call, Callee);
}

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

//===----------------------------------------------------------------------===//
// PyTorch and RMM objects: tensor operations on the current stream, owners
// that end (reset, release), stores into containers
//===----------------------------------------------------------------------===//

/// The name holding an expression's value: a named entity, or the temporary
/// a call or construction produced (`x.mul(2).add_(1)`).
NameId FunctionLowering::valueName(const Expr *E) {
  if (!E)
    return NoId;
  if (const Expr *Call = valueCall(E)) {
    EntityKey Key;
    Key.Temporary = Call;
    if (auto Known = Names.find(Key); Known != Names.end())
      return Known->second;
  }
  return entity(E);
}

const Expr *FunctionLowering::throughAccessor(const Expr *E) const {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(E->IgnoreParenCasts());
  if (Member && Model.isBufferAccessor(Member))
    return Member->getImplicitObjectArgument();
  return E;
}

void FunctionLowering::lowerTensorOp(const CallExpr *Call, TensorOpKind Kind) {
  SourceLocation Loc = Call->getBeginLoc();
  const Expr *Self = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Self = Member->getImplicitObjectArgument();
  else if (isa<CXXOperatorCallExpr>(Call) &&
           isa<CXXMethodDecl>(Call->getDirectCallee()) && Call->getNumArgs())
    Self = Call->getArg(0);
  llvm::SmallVector<NameId, 4> Operands;
  auto Add = [&](const Expr *E) {
    if (!E || Model.classOf(E->getType()) != ClassKind::OwnedBuffer)
      return;
    if (NameId N = valueName(E); N != NoId && !llvm::is_contained(Operands, N))
      Operands.push_back(N);
  };
  Add(Self);
  for (const Expr *Arg : Call->arguments())
    Add(Arg);
  if (Kind == TensorOpKind::View) {
    // The view shares its operand's storage: one object, two names.
    NameId Base = Operands.empty() ? NoId : Operands.front();
    ir::Inst &Bind = emit(ir::OpKind::Bind, Loc);
    Bind.Names.push_back(temporary(Call));
    Bind.Names.push_back(Base);
    return;
  }
  if (!Operands.empty()) {
    ir::Inst &Use = emit(ir::OpKind::Use, Loc);
    Use.Names.assign(Operands.begin(), Operands.end());
    Use.Stream = StreamRef::current();
  }
  if (Kind == TensorOpKind::Sync) {
    ir::Inst &Sync = emit(ir::OpKind::SyncStream, Loc);
    Sync.Stream = StreamRef::current();
    return;
  }
  if (Kind == TensorOpKind::Produce) {
    ir::Inst &Alloc = emit(ir::OpKind::Allocate, Loc);
    Alloc.Names.push_back(temporary(Call));
    Alloc.Stream = StreamRef::current();
    Alloc.Own = ir::Ownership::Owned;
  }
}

/// Calls on owned objects that have no row: ATen operations, owners that
/// end, stores into containers. Returns true when the call was lowered.
bool FunctionLowering::lowerObjectCall(const CallExpr *Call) {
  if (std::optional<TensorOpKind> Kind = Model.tensorOp(Call)) {
    lowerTensorOp(Call, *Kind);
    return true;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    switch (Model.ownerEnd(Member)) {
    case ApiModel::OwnerEnd::Reset:
      if (NameId N = entity(Member->getImplicitObjectArgument()); N != NoId) {
        ir::Inst &Kill = emit(ir::OpKind::Kill, Call->getBeginLoc());
        Kill.Names.push_back(N);
      }
      return true;
    case ApiModel::OwnerEnd::MoveOut:
      if (NameId N = entity(Member->getImplicitObjectArgument()); N != NoId) {
        // The moved-out buffer, when dropped, is released as `v.release()`.
        NameId Out = temporary(Call);
        if (TU.mutableModule().Names[Out].Spelling.empty())
          TU.mutableModule().Names[Out].Spelling = sourceText(Call, Ctx);
        ir::Inst &Move = emit(ir::OpKind::Move, Call->getBeginLoc());
        Move.Names.push_back(Out);
        Move.Names.push_back(N);
      }
      return true;
    case ApiModel::OwnerEnd::None:
      break;
    }
  }
  if (Model.isContainerInsert(Call)) {
    // The container keeps the object alive: the analysis stops following
    // it (keepalive queues are checked by QueuePopOrder).
    llvm::SmallVector<NameId, 2> Stored;
    std::function<void(const Expr *)> Collect = [&](const Expr *E) {
      if (!E)
        return;
      // Temporaries, casts and bindings can nest in any order
      // (`Entry{t, e}` is a cast of a bound init list).
      for (const Expr *Prev = nullptr; Prev != E;) {
        Prev = E;
        E = E->IgnoreImplicit()->IgnoreParenCasts();
      }
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
        for (const Expr *Arg : Construct->arguments())
          Collect(Arg);
        return;
      }
      if (const auto *Init = dyn_cast<InitListExpr>(E)) {
        for (const Expr *Arg : Init->inits())
          Collect(Arg);
        return;
      }
      if (const auto *Call = dyn_cast<CallExpr>(E); Call && Call->isCallToStdMove())
        return Collect(Call->getArg(0));
      if (Model.classOf(E->getType()) == ClassKind::OwnedBuffer)
        if (NameId N = valueName(E); N != NoId)
          Stored.push_back(N);
    };
    for (const Expr *Arg : Call->arguments())
      Collect(Arg);
    if (!Stored.empty()) {
      ir::Inst &Escape = emit(ir::OpKind::Escape, Call->getBeginLoc());
      Escape.Names.assign(Stored.begin(), Stored.end());
    }
    return true;
  }
  return false;
}

/// Cheap pre-filter: only functions that call a modelled API, launch a
/// kernel, construct a modelled object or call a function of this
/// translation unit are lowered.
class RelevanceScan : public RecursiveASTVisitor<RelevanceScan> {
public:
  RelevanceScan(const TranslationUnitIR &TU, const FunctionDecl *Function,
                bool CountCallees)
      : TU(TU), Function(Function), CountCallees(CountCallees) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (isa<CUDAKernelCallExpr>(Call) || TU.model().classify(Call) ||
        TU.model().tensorOp(Call)) {
      Relevant = true;
      return false;
    }
    if (!CountCallees)
      return true;
    const FunctionDecl *Callee = TU.summarizableCallee(Call);
    if (Callee && Callee != Function) {
      Relevant = true;
      return false;
    }
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    if (TU.model().classify(Construct)) {
      Relevant = true;
      return false;
    }
    return true;
  }
  bool Relevant = false;

private:
  const TranslationUnitIR &TU;
  const FunctionDecl *Function;
  bool CountCallees;
};

} // namespace

//===----------------------------------------------------------------------===//
// TranslationUnitIR
//===----------------------------------------------------------------------===//

TranslationUnitIR::TranslationUnitIR(ASTContext &Ctx, const ApiModel &Model)
    : Ctx(Ctx), Model(Model), Engine(std::make_unique<core::Analyzer>(M)) {}

TranslationUnitIR::~TranslationUnitIR() = default;

SourceLocation TranslationUnitIR::location(ir::SiteId Site) const {
  return Site < SiteLocations.size() ? SiteLocations[Site] : SourceLocation();
}

ir::SiteId TranslationUnitIR::site(SourceLocation Loc) {
  auto [It, Inserted] = SiteIds.try_emplace(Loc, 0);
  if (!Inserted)
    return It->second;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Expansion = SM.getExpansionLoc(Loc);
  ir::Site S;
  if (Expansion.isValid()) {
    std::pair<FileID, unsigned> Decomposed = SM.getDecomposedLoc(Expansion);
    S.Line = SM.getLineNumber(Decomposed.first, Decomposed.second);
    S.Column = SM.getColumnNumber(Decomposed.first, Decomposed.second);
    if (OptionalFileEntryRef File = SM.getFileEntryRefForID(Decomposed.first))
      S.File = File->getName().str();
    // Sites are compared within one function; the file's id keeps sites of
    // different files apart, the offset orders sites within a file.
    S.Order = (static_cast<uint64_t>(Decomposed.first.getHashValue()) << 32) |
              Decomposed.second;
  }
  It->second = M.addSite(std::move(S));
  SiteLocations.push_back(Loc);
  assert(SiteLocations.size() == M.Sites.size() && "site tables out of step");
  return It->second;
}

const FunctionDecl *
TranslationUnitIR::summarizableCallee(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isa<CUDAKernelCallExpr>(Call))
    return nullptr;
  const FunctionDecl *Definition = nullptr;
  if (!Callee->hasBody(Definition) || !Definition)
    return nullptr;
  if (Definition->isTemplated() ||
      Ctx.getSourceManager().isInSystemHeader(Definition->getLocation()))
    return nullptr;
  if (Callee->getDeclName().isIdentifier() &&
      Model.isModelled(Callee->getName()))
    return nullptr;
  return Definition;
}

ir::FunctionId TranslationUnitIR::functionId(const FunctionDecl *Definition) {
  auto [It, Inserted] = FunctionIds.try_emplace(Definition, 0);
  if (!Inserted)
    return It->second;
  M.Functions.emplace_back();
  M.Functions.back().Lowered = false; // until lowerPending() gets to it
  M.Functions.back().Name = Definition->getNameAsString();
  It->second = static_cast<ir::FunctionId>(M.Functions.size() - 1);
  Decls.push_back(Definition);
  Pending.push_back(It->second);
  return It->second;
}

bool TranslationUnitIR::relevant(const FunctionDecl *Function,
                                 bool CountCallees) const {
  RelevanceScan Scan(*this, Function, CountCallees);
  Scan.TraverseStmt(Function->getBody());
  return Scan.Relevant;
}

bool TranslationUnitIR::reached(const FunctionDecl *Function) const {
  const FunctionDecl *Definition = Function->getDefinition();
  return Definition && FunctionIds.count(Definition);
}

bool TranslationUnitIR::hasDirectOperation(const FunctionDecl *Function) const {
  const FunctionDecl *Definition = Function->getDefinition();
  if (!Definition || !Definition->hasBody())
    return false;
  // Cached: each check with this model asks about the same functions.
  auto [It, Inserted] = Direct.try_emplace(Definition, false);
  if (Inserted)
    It->second = relevant(Definition, /*CountCallees=*/false);
  return It->second;
}

void TranslationUnitIR::lowerPending() {
  // A worklist, not recursion: lowering a function registers its callees.
  while (!Pending.empty()) {
    ir::FunctionId Id = Pending.back();
    Pending.pop_back();
    const FunctionDecl *Function = Decls[Id];
    if (!Function->hasBody() || Function->isTemplated() ||
        !relevant(Function))
      continue; // stays Lowered = false: calls to it do nothing
    ir::Function Lowered = FunctionLowering(*this, Function, Id).lower();
    // For developers of the lowering: STREAMLIFE_DEBUG_IR=1 prints every
    // function's IR as it is lowered (the unit tests' dump format).
    static const bool DebugIR = std::getenv("STREAMLIFE_DEBUG_IR") != nullptr;
    if (DebugIR)
      llvm::errs() << ir::dump(M, Lowered) << "\n";
    M.Functions[Id] = std::move(Lowered);
  }
}

const core::FunctionFindings &
TranslationUnitIR::analyze(const FunctionDecl *Function) {
  if (!Function->hasBody() || Function->isTemplated() ||
      Ctx.getDiagnostics().hasUncompilableErrorOccurred())
    return None;
  const FunctionDecl *Definition = Function->getDefinition();
  if (!Definition)
    return None;
  if (!FunctionIds.count(Definition) && !relevant(Definition))
    return None;
  ir::FunctionId Id = functionId(Definition);
  lowerPending();
  return Engine->findings(Id);
}

//===----------------------------------------------------------------------===//
// The per-translation-unit cache
//===----------------------------------------------------------------------===//

namespace {
struct GlobalCache {
  const ASTContext *Context = nullptr;
  std::map<std::string, std::unique_ptr<TranslationUnitIR>> ByModel;
  llvm::SmallPtrSet<const void *, 4> Users;
};
GlobalCache &globalCache() {
  static GlobalCache Cache;
  return Cache;
}
} // namespace

TranslationUnitIR &translationUnitIR(ASTContext &Ctx, const ApiModel &Model,
                                     const void *User) {
  GlobalCache &Global = globalCache();
  if (Global.Context != &Ctx) {
    Global.ByModel.clear();
    Global.Users.clear();
    Global.Context = &Ctx;
  }
  if (User)
    Global.Users.insert(User);
  std::unique_ptr<TranslationUnitIR> &Unit =
      Global.ByModel[Model.fingerprint()];
  if (!Unit)
    Unit = std::make_unique<TranslationUnitIR>(Ctx, Model);
  return *Unit;
}

TranslationUnitIR *existingTranslationUnitIR(const ASTContext &Ctx,
                                             const ApiModel &Model) {
  GlobalCache &Global = globalCache();
  if (Global.Context != &Ctx)
    return nullptr;
  auto Found = Global.ByModel.find(Model.fingerprint());
  return Found == Global.ByModel.end() ? nullptr : Found->second.get();
}

void releaseLifetimeAnalysisCache(const void *User) {
  GlobalCache &Global = globalCache();
  Global.Users.erase(User);
  if (Global.Users.empty())
    clearLifetimeAnalysisCache();
}

void clearLifetimeAnalysisCache() {
  GlobalCache &Global = globalCache();
  Global.ByModel.clear();
  Global.Users.clear();
  Global.Context = nullptr;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
