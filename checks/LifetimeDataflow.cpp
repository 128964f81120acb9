//===--- LifetimeDataflow.cpp - streamlife --------------------------------===//
//
// Forward dataflow over clang::CFG. The transfer function knows stream order
// only through ApiModel operations:
//
//   Allocate(b, A)       b starts a new lifetime on A; the allocation itself is
//                        work on A that other streams must be ordered after.
//   Use(b, S)            adds a pending consumer use (S, site) to b.
//   RecordEvent(e, S)    e now covers every piece of work ordered before S.
//   StreamWaitEvent(R,e) work covered by e is ordered before R's later work.
//   Sync*                the host waited: covered work is complete.
//   Release(b, R)        every pending use on another stream must be ordered
//                        before R, else free-before-wait.
//
// Legacy default stream semantics: an operation on the legacy stream waits
// for earlier work on every blocking stream, and later work on blocking
// streams waits for it.
//
//===----------------------------------------------------------------------===//

#include "LifetimeDataflow.h"
#include "LifetimeState.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <map>
#include <memory>

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

//===----------------------------------------------------------------------===//
// Naming buffers, streams and events
//===----------------------------------------------------------------------===//

bool isPointeeRecordNamed(QualType T, llvm::StringRef Name) {
  T = T.getCanonicalType();
  if (const auto *Ptr = T->getAs<PointerType>())
    if (const auto *Record = Ptr->getPointeeType()->getAsRecordDecl())
      return Record->getName() == Name;
  return false;
}
bool isEventType(QualType T) { return isPointeeRecordNamed(T, "CUevent_st"); }
bool isStreamType(QualType T) { return isPointeeRecordNamed(T, "CUstream_st"); }

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
    if (BaseKey && !BaseKey->Member && BaseKey->Index < 0)
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
    if (BaseKey && !BaseKey->Member && BaseKey->Index < 0)
      return EntityKey{BaseKey->Base, nullptr,
                       Index.Val.getInt().getExtValue()};
  }
  return std::nullopt;
}

/// The stream an expression denotes; nothing when it cannot be told (a call
/// result, a non-constant subscript, ...). Unknown streams make the analysis
/// skip the operation rather than guess.
std::optional<StreamId> resolveStream(const Expr *E, ASTContext &Ctx,
                                      unsigned Depth = 0) {
  if (!E)
    return std::nullopt;
  const Expr *Bare = E->IgnoreParenCasts();
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(Bare))
    return StreamId::legacy();
  if (const auto *Literal = dyn_cast<IntegerLiteral>(Bare)) {
    // cudaStreamLegacy and CU_STREAM_LEGACY are ((cudaStream_t)0x1);
    // cudaStreamPerThread and CU_STREAM_PER_THREAD are ((cudaStream_t)0x2).
    uint64_t Value = Literal->getValue().getZExtValue();
    if (Value == 0 || Value == 1)
      return StreamId::legacy();
    if (Value == 2)
      return StreamId::perThread();
    return std::nullopt;
  }
  if (!E->isValueDependent() &&
      E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return StreamId::legacy();
  // A local copy of another named stream (`cudaStream_t s = this->stream;`)
  // is that stream: two names for one queue must not look like two queues.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Bare))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Var->isLocalVarDecl() && Var->getInit() && Depth < 4 &&
          isStreamType(Var->getType()))
        if (std::optional<StreamId> Init =
                resolveStream(Var->getInit(), Ctx, Depth + 1);
            Init && Init->Kind == StreamId::Named)
          return Init;
  if (std::optional<EntityKey> Key = resolveEntity(E, Ctx))
    return StreamId{StreamId::Named, *Key};
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

//===----------------------------------------------------------------------===//
// Summaries of functions defined in the translation unit
//===----------------------------------------------------------------------===//

/// An operand of a summarised operation: a parameter of the summarised
/// function, or a fixed special stream.
struct SummaryOperand {
  int Param = -1;
  std::optional<StreamId> Fixed;
  bool valid() const { return Param >= 0 || Fixed.has_value(); }
};

struct SummaryOp {
  OpKind Kind;
  llvm::SmallVector<unsigned, 2> BufferParams;
  SummaryOperand Stream;
  int EventParam = -1;
  /// An event local to the summarised function (its own record-then-wait
  /// hand-off): the callee's variable names it in every caller.
  const VarDecl *LocalEvent = nullptr;
};

/// What a function does, in source order, to the buffers, streams and
/// events its caller passes in. Conditional operations are taken as done:
/// a use under a branch still warns, a sync under a branch still counts.
struct FunctionSummary {
  std::vector<SummaryOp> Ops;
};

/// Operand expressions of an operation, before they are resolved in the
/// context of the function being analysed.
struct OperandExprs {
  OpKind Kind;
  llvm::SmallVector<const Expr *, 4> Buffers;
  bool KernelArguments = false; ///< Buffers are kernel arguments.
  const Expr *Stream = nullptr;
  std::optional<StreamId> FixedStream;
  const Expr *Event = nullptr;
  std::optional<EntityKey> FixedEvent;
  std::optional<bool> NonBlocking; ///< CreateStream only.
};

OperandExprs fromApiOperation(const ApiOperation &Op, ASTContext &Ctx) {
  OperandExprs Exprs{Op.Kind};
  Exprs.Buffers.append(Op.Buffers.begin(), Op.Buffers.end());
  Exprs.KernelArguments = isa<CUDAKernelCallExpr>(Op.Call);
  Exprs.Stream = Op.Stream;
  if (Op.StreamDefaulted)
    Exprs.FixedStream = StreamId::legacy();
  Exprs.Event = Op.Event;
  if (Op.Kind == OpKind::CreateStream)
    Exprs.NonBlocking = nonBlockingFlag(Op, Ctx);
  return Exprs;
}

/// A function defined in this translation unit, outside system headers,
/// that the analysis follows through a summary.
const FunctionDecl *summarizableCallee(const CallExpr *Call,
                                       const ApiModel &Model, ASTContext &Ctx) {
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

class SummaryCache;

/// Builds the summary of one function by walking its body in source order.
class SummaryBuilder : public RecursiveASTVisitor<SummaryBuilder> {
public:
  SummaryBuilder(const FunctionDecl *Function, ASTContext &Ctx,
                 const ApiModel &Model, SummaryCache &Cache)
      : Function(Function), Ctx(Ctx), Model(Model), Cache(Cache) {}

  FunctionSummary build() {
    TraverseStmt(Function->getBody());
    return std::move(Summary);
  }

  // Lambdas run when called, not where they are written.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call);

private:
  int paramIndex(const Expr *E) const {
    if (!E)
      return -1;
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
    const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    if (!Param || Param->getDeclContext() != Function)
      return -1;
    return Param->getFunctionScopeIndex();
  }
  /// A plain local variable of the summarised function (not static).
  const VarDecl *localVariable(const Expr *E) const {
    if (!E)
      return nullptr;
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || !Var->isLocalVarDecl() || Var->isStaticLocal() ||
        Var->getDeclContext() != Function)
      return nullptr;
    return Var;
  }
  SummaryOperand streamOperand(const Expr *E,
                               std::optional<StreamId> Fixed) const {
    SummaryOperand Operand;
    if (Fixed) {
      Operand.Fixed = Fixed;
      return Operand;
    }
    std::optional<StreamId> Stream = resolveStream(E, Ctx);
    if (Stream && Stream->Kind != StreamId::Named)
      Operand.Fixed = Stream;
    else
      Operand.Param = paramIndex(E);
    return Operand;
  }
  void addOperation(const OperandExprs &Exprs);

  const FunctionDecl *Function;
  ASTContext &Ctx;
  const ApiModel &Model;
  SummaryCache &Cache;
  FunctionSummary Summary;
};

/// Summaries and analysis results of one translation unit.
class SummaryCache {
public:
  const FunctionSummary &summaryOf(const FunctionDecl *Function,
                                   ASTContext &Ctx, const ApiModel &Model) {
    auto [It, Inserted] = Summaries.try_emplace(Function);
    if (Inserted) {
      // A recursive call sees the empty summary inserted above.
      FunctionSummary Built =
          SummaryBuilder(Function, Ctx, Model, *this).build();
      Summaries[Function] = std::move(Built);
      return Summaries[Function];
    }
    return It->second;
  }

private:
  std::map<const FunctionDecl *, FunctionSummary> Summaries;
};

void SummaryBuilder::addOperation(const OperandExprs &Exprs) {
  SummaryOp Op{Exprs.Kind};
  switch (Exprs.Kind) {
  case OpKind::Allocate:
  case OpKind::Release:
  case OpKind::ReleaseSync:
  case OpKind::Use:
  case OpKind::RecordStream:
    for (const Expr *Operand : Exprs.Buffers) {
      llvm::SmallVector<const Expr *, 4> Named;
      if (Exprs.Kind == OpKind::Allocate)
        Named.push_back(Operand);
      else
        collectBufferExprs(Operand, Named);
      for (const Expr *E : Named)
        if (int Index = paramIndex(E); Index >= 0)
          Op.BufferParams.push_back(Index);
    }
    if (Op.BufferParams.empty())
      return;
    break;
  case OpKind::RecordEvent:
  case OpKind::StreamWaitEvent:
  case OpKind::SyncEvent:
    Op.EventParam = paramIndex(Exprs.Event);
    Op.LocalEvent = Exprs.FixedEvent
                        ? dyn_cast_or_null<VarDecl>(Exprs.FixedEvent->Base)
                        : localVariable(Exprs.Event);
    if (Op.EventParam < 0 && !Op.LocalEvent)
      return;
    break;
  case OpKind::SyncStream:
  case OpKind::SyncDevice:
    break;
  case OpKind::CreateStream:
    return; // Streams created inside a helper stay inside it.
  }
  if (Exprs.Kind != OpKind::SyncDevice && Exprs.Kind != OpKind::ReleaseSync &&
      Exprs.Kind != OpKind::SyncEvent) {
    Op.Stream = streamOperand(Exprs.Stream, Exprs.FixedStream);
    if (!Op.Stream.valid())
      return;
  }
  Summary.Ops.push_back(std::move(Op));
}

bool SummaryBuilder::VisitCallExpr(CallExpr *Call) {
  if (std::optional<ApiOperation> Op = Model.classify(Call)) {
    addOperation(fromApiOperation(*Op, Ctx));
    return true;
  }
  const FunctionDecl *Callee = summarizableCallee(Call, Model, Ctx);
  if (!Callee || Callee == Function)
    return true;
  // Re-express the callee's operations over this function's parameters.
  for (const SummaryOp &Inner : Cache.summaryOf(Callee, Ctx, Model).Ops) {
    OperandExprs Exprs{Inner.Kind};
    auto Arg = [&](int Index) -> const Expr * {
      return Index >= 0 && static_cast<unsigned>(Index) < Call->getNumArgs()
                 ? Call->getArg(Index)
                 : nullptr;
    };
    for (unsigned Index : Inner.BufferParams)
      if (const Expr *E = Arg(Index))
        Exprs.Buffers.push_back(E);
    Exprs.Stream = Arg(Inner.Stream.Param);
    Exprs.FixedStream = Inner.Stream.Fixed;
    Exprs.Event = Arg(Inner.EventParam);
    if (Inner.LocalEvent)
      Exprs.FixedEvent = EntityKey{Inner.LocalEvent};
    addOperation(Exprs);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The per-function analysis
//===----------------------------------------------------------------------===//

/// An operation with its operands resolved to entities of the analysed
/// function.
struct ResolvedOp {
  OpKind Kind;
  const Stmt *Site = nullptr;
  llvm::SmallVector<EntityKey, 2> Buffers;
  std::optional<StreamId> Stream; ///< Unknown when it could not be told.
  std::optional<EntityKey> Event;
  std::optional<bool> NonBlocking;
};

class FunctionAnalyzer {
public:
  FunctionAnalyzer(ASTContext &Ctx, const ApiModel &Model, SummaryCache &Cache,
                   FunctionFindings &Out)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Model(Model), Cache(Cache),
        Out(Out) {}

  void run(const FunctionDecl *Function);

private:
  // Resolution.
  ResolvedOp resolve(const OperandExprs &Exprs, const Stmt *Site);
  std::optional<StreamId> stream(const Expr *E);
  std::optional<EntityKey> entity(const Expr *E);
  NamedStream named(const StreamId &S) const;
  std::string named(const EntityKey &K) const;

  // Transfer.
  void transfer(const Stmt *S, LifetimeState &State);
  void transferCall(const CallExpr *Call, LifetimeState &State);
  void transferAssignment(const EntityKey &Target, QualType Type,
                          const Expr *RHS, LifetimeState &State);
  void apply(const ResolvedOp &Op, LifetimeState &State);
  void applyUse(const ResolvedOp &Op, LifetimeState &State);
  void applyRelease(const ResolvedOp &Op, LifetimeState &State);
  void applyWait(const ResolvedOp &Op, LifetimeState &State);

  // Stream-order queries.
  bool isBlocking(const StreamId &S, const LifetimeState &State) const;
  bool orderedBefore(const StreamId &WorkStream, const WorkFacts &Facts,
                     const StreamId &Later, const LifetimeState &State) const;
  template <typename Fn> void forEachWork(LifetimeState &State, Fn Callback);
  void legacyStreamOperation(LifetimeState &State);

  bool before(const Stmt *A, const Stmt *B) const {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const ApiModel &Model;
  SummaryCache &Cache;
  FunctionFindings &Out;
  const FunctionDecl *Current = nullptr;

  /// Findings are only emitted in the final pass over the fixpoint.
  bool Reporting = false;
  std::map<EntityKey, std::string> EntityNames;
  std::map<StreamId, std::string> StreamNames;
  /// The name a buffer had where it was allocated (it may be released
  /// through another variable after `keep = cur`).
  std::map<const Stmt *, std::string> AllocatedNames;
  std::map<std::pair<const Stmt *, EntityKey>, size_t> FreeBeforeWaitIndex;
  std::set<std::pair<const Stmt *, EntityKey>> MissingEventSeen;
  std::set<std::pair<const Stmt *, EntityKey>> UseBeforeAllocSeen;
  /// Late waits by release site, merged into the findings at the end.
  std::map<const Stmt *, std::vector<std::pair<const Stmt *, NamedStream>>>
      LateWaits;
  /// Waits on events recorded before a use, by use site: (wait, waiting
  /// stream, event).
  struct StaleWait {
    const Stmt *WaitSite;
    StreamId Waiter;
    std::string Event;
  };
  std::map<const Stmt *, std::vector<StaleWait>> StaleWaits;
  std::map<const Stmt *, StreamId> ReleaseStreams;
};

std::optional<EntityKey> FunctionAnalyzer::entity(const Expr *E) {
  std::optional<EntityKey> Key = resolveEntity(E, Ctx);
  if (Key && !EntityNames.count(*Key))
    EntityNames[*Key] = sourceText(E->IgnoreParenCasts(), Ctx);
  return Key;
}

std::optional<StreamId> FunctionAnalyzer::stream(const Expr *E) {
  std::optional<StreamId> S = resolveStream(E, Ctx);
  if (S && !StreamNames.count(*S))
    StreamNames[*S] = sourceText(E->IgnoreParenImpCasts(), Ctx);
  return S;
}

NamedStream FunctionAnalyzer::named(const StreamId &S) const {
  if (S.Kind == StreamId::LegacyDefault)
    return {"", /*IsLegacyDefault=*/true};
  if (S.Kind == StreamId::PerThread)
    return {"cudaStreamPerThread", false};
  auto It = StreamNames.find(S);
  return {It != StreamNames.end() ? It->second : "<stream>", false};
}

std::string FunctionAnalyzer::named(const EntityKey &K) const {
  auto It = EntityNames.find(K);
  return It != EntityNames.end() ? It->second : "<buffer>";
}

ResolvedOp FunctionAnalyzer::resolve(const OperandExprs &Exprs,
                                     const Stmt *Site) {
  ResolvedOp Op{Exprs.Kind, Site};
  for (const Expr *Operand : Exprs.Buffers) {
    if (Exprs.Kind == OpKind::Allocate) {
      if (std::optional<EntityKey> Key = entity(addressee(Operand)))
        Op.Buffers.push_back(*Key);
      continue;
    }
    if (Exprs.Kind == OpKind::CreateStream)
      continue;
    llvm::SmallVector<const Expr *, 4> Named;
    collectBufferExprs(Operand, Named);
    for (const Expr *E : Named) {
      // Scalars passed to kernels are values, not buffers.
      if (Exprs.KernelArguments && !E->getType()->isPointerType())
        continue;
      if (std::optional<EntityKey> Key = entity(E))
        Op.Buffers.push_back(*Key);
    }
  }
  if (Exprs.Kind == OpKind::CreateStream) {
    if (const Expr *Created = addressee(Exprs.Stream))
      Op.Stream = stream(Created);
  } else if (Exprs.FixedStream) {
    Op.Stream = Exprs.FixedStream;
  } else {
    Op.Stream = stream(Exprs.Stream);
  }
  if (Exprs.FixedEvent)
    Op.Event = Exprs.FixedEvent;
  else if (Exprs.Event)
    Op.Event = entity(Exprs.Event);
  Op.NonBlocking = Exprs.NonBlocking;
  return Op;
}

bool FunctionAnalyzer::isBlocking(const StreamId &S,
                                  const LifetimeState &State) const {
  if (S.Kind != StreamId::Named)
    return true; // The per-thread stream also syncs with the legacy stream.
  auto It = State.NonBlockingStreams.find(S.Key);
  return It == State.NonBlockingStreams.end() || !It->second;
}

bool FunctionAnalyzer::orderedBefore(const StreamId &WorkStream,
                                     const WorkFacts &Facts,
                                     const StreamId &Later,
                                     const LifetimeState &State) const {
  if (WorkStream == Later || Facts.OrderedStreams.count(Later))
    return true;
  // The legacy stream waits for earlier work on blocking streams, and
  // blocking streams wait for earlier work on the legacy stream.
  bool LaterBlocking = isBlocking(Later, State);
  if (Later.Kind == StreamId::LegacyDefault && isBlocking(WorkStream, State))
    return true;
  if (WorkStream.Kind == StreamId::LegacyDefault && LaterBlocking)
    return true;
  return Facts.OrderedByLegacyStream && LaterBlocking;
}

template <typename Fn>
void FunctionAnalyzer::forEachWork(LifetimeState &State, Fn Callback) {
  for (auto &[Key, Buffer] : State.Buffers) {
    for (auto &[Use, Facts] : Buffer.PendingUses)
      Callback(Use.Stream, Facts);
    if (Buffer.AllocPending && Buffer.AllocStream)
      Callback(*Buffer.AllocStream, Buffer.AllocFacts);
  }
}

void FunctionAnalyzer::legacyStreamOperation(LifetimeState &State) {
  forEachWork(State, [&](const StreamId &WorkStream, WorkFacts &Facts) {
    if (isBlocking(WorkStream, State))
      Facts.OrderedByLegacyStream = true;
  });
}

void FunctionAnalyzer::applyUse(const ResolvedOp &Op, LifetimeState &State) {
  const StreamId &S = *Op.Stream;
  for (const EntityKey &Key : Op.Buffers) {
    BufferState &Buffer = State.Buffers[Key];
    if (Buffer.AllocSite && Buffer.AllocPending && Buffer.AllocStream &&
        !orderedBefore(*Buffer.AllocStream, Buffer.AllocFacts, S, State)) {
      if (Reporting && UseBeforeAllocSeen.insert({Op.Site, Key}).second)
        Out.UseBeforeAlloc.push_back(
            {Op.Site, named(Key), named(S), Buffer.AllocSite,
             AllocatedNames[Buffer.AllocSite], named(*Buffer.AllocStream)});
      // Warn at the first unordered use only.
      Buffer.AllocFacts.OrderedStreams.insert({S, Op.Site});
    }
    Buffer.PendingUses[UseKey{S, Op.Site}] = WorkFacts();
  }
}

void FunctionAnalyzer::applyRelease(const ResolvedOp &Op,
                                    LifetimeState &State) {
  for (const EntityKey &Key : Op.Buffers) {
    BufferState &Buffer = State.Buffers[Key];
    if (Op.Stream) {
      const StreamId &R = *Op.Stream;
      FreeBeforeWaitFinding Finding;
      for (const auto &[Use, Facts] : Buffer.PendingUses) {
        if (orderedBefore(Use.Stream, Facts, R, State))
          continue;
        Buffer.RacyReleases.insert({Op.Site, R, Use.Stream});
        FreeBeforeWaitFinding::RacingUse Racing{
            Use.Site, named(Use.Stream), Facts.FromEarlierIteration, {}};
        for (const auto &[Waiter, WaitSite] : Facts.OrderedStreams)
          Racing.WrongStreamWaits.push_back({WaitSite, named(Waiter)});
        Finding.Uses.push_back(std::move(Racing));
      }
      if (Reporting && !Finding.Uses.empty()) {
        std::sort(Finding.Uses.begin(), Finding.Uses.end(),
                  [&](const auto &A, const auto &B) {
                    return before(A.Site, B.Site);
                  });
        Finding.ReleaseSite = Op.Site;
        ReleaseStreams[Op.Site] = R;
        Finding.Buffer = named(Key);
        Finding.ReleaseStream = named(R);
        if (Buffer.AllocSite && Buffer.AllocStream) {
          Finding.AllocSite = Buffer.AllocSite;
          Finding.AllocName = AllocatedNames[Buffer.AllocSite];
          Finding.AllocStream = named(*Buffer.AllocStream);
        }
        auto [It, Inserted] = FreeBeforeWaitIndex.insert(
            {{Op.Site, Key}, Out.FreeBeforeWait.size()});
        if (Inserted)
          Out.FreeBeforeWait.push_back(std::move(Finding));
      }
    }
    // The lifetime ends; what raced has been reported at this release.
    Buffer.PendingUses.clear();
    Buffer.AllocPending = false;
    Buffer.ReleaseSite = Op.Site;
  }
}

void FunctionAnalyzer::applyWait(const ResolvedOp &Op, LifetimeState &State) {
  const StreamId &R = *Op.Stream;
  const EntityKey &Event = *Op.Event;
  forEachWork(State, [&](const StreamId &, WorkFacts &Facts) {
    if (Facts.CoveringEvents.count(Event))
      Facts.OrderedStreams.insert({R, Op.Site});
  });
  auto Recorded = State.Events.find(Event);
  if (Recorded == State.Events.end()) {
    // The event was recorded where this function cannot see it (by the
    // caller, or by an opaque function): in doubt, take the wait to order
    // everything before it rather than warn about code that may be right.
    forEachWork(State, [&](const StreamId &, WorkFacts &Facts) {
      Facts.OrderedStreams.insert({R, Op.Site});
    });
    return;
  }
  if (!Recorded->second.Stream)
    return;
  const StreamId &Consumer = *Recorded->second.Stream;
  for (auto &[Key, Buffer] : State.Buffers) {
    // A late wait: the release stream waits for the consumer only after it
    // released the buffer.
    for (const RacyRelease &Racy : Buffer.RacyReleases)
      if (Reporting && Racy.ReleaseStream == R && Racy.UseStream == Consumer) {
        auto &Waits = LateWaits[Racy.ReleaseSite];
        if (std::find_if(Waits.begin(), Waits.end(), [&](const auto &W) {
              return W.first == Op.Site;
            }) == Waits.end())
          Waits.push_back({Op.Site, named(R)});
      }
    // A stale event: the waiting stream waits on an event the consumer
    // recorded before (or without) its last use of the buffer.
    if (R == Consumer)
      continue;
    const Stmt *LastUse = nullptr;
    for (const auto &[Use, Facts] : Buffer.PendingUses) {
      if (Use.Stream != Consumer || Facts.CoveringEvents.count(Event) ||
          orderedBefore(Use.Stream, Facts, R, State))
        continue;
      if (Reporting)
        StaleWaits[Use.Site].push_back({Op.Site, R, named(Event)});
      if (!LastUse || before(LastUse, Use.Site))
        LastUse = Use.Site;
    }
    // Reported when the waiting stream is the allocation stream, the one
    // whose later allocations reuse the block.
    if (LastUse && Buffer.AllocStream && *Buffer.AllocStream == R &&
        Reporting && MissingEventSeen.insert({Op.Site, Key}).second)
      Out.MissingConsumerEvent.push_back(
          {Op.Site, named(R), named(Event), named(Consumer), named(Key),
           Recorded->second.RecordSite, LastUse});
  }
}

void FunctionAnalyzer::apply(const ResolvedOp &Op, LifetimeState &State) {
  // An operation whose stream is unknown is skipped: guessing would warn
  // about code that may well be right.
  bool NeedsStream = Op.Kind != OpKind::SyncDevice &&
                     Op.Kind != OpKind::ReleaseSync &&
                     Op.Kind != OpKind::SyncEvent && Op.Kind != OpKind::Release;
  if (NeedsStream && !Op.Stream)
    return;
  bool EnqueuesWork = Op.Kind == OpKind::Use || Op.Kind == OpKind::Allocate ||
                      Op.Kind == OpKind::Release ||
                      Op.Kind == OpKind::RecordEvent ||
                      Op.Kind == OpKind::StreamWaitEvent;
  if (EnqueuesWork && Op.Stream && Op.Stream->Kind == StreamId::LegacyDefault)
    legacyStreamOperation(State);

  switch (Op.Kind) {
  case OpKind::Allocate:
    for (const EntityKey &Key : Op.Buffers) {
      BufferState Fresh;
      Fresh.AllocSite = Op.Site;
      Fresh.AllocStream = Op.Stream;
      Fresh.AllocPending = true;
      Fresh.RacyReleases = State.Buffers[Key].RacyReleases;
      AllocatedNames.try_emplace(Op.Site, named(Key));
      State.Buffers[Key] = std::move(Fresh);
    }
    break;
  case OpKind::Use:
    applyUse(Op, State);
    break;
  case OpKind::RecordEvent: {
    if (!Op.Event)
      break;
    const StreamId &S = *Op.Stream;
    State.Events[*Op.Event] = EventState{S, Op.Site};
    forEachWork(State, [&](const StreamId &WorkStream, WorkFacts &Facts) {
      if (orderedBefore(WorkStream, Facts, S, State))
        Facts.CoveringEvents.insert(*Op.Event);
      else
        Facts.CoveringEvents.erase(*Op.Event);
    });
    break;
  }
  case OpKind::StreamWaitEvent:
    if (Op.Event) {
      applyWait(Op, State);
    } else {
      // An event we cannot name (`events[i]`): in doubt, the wait orders
      // everything enqueued so far before the waiting stream.
      forEachWork(State, [&](const StreamId &, WorkFacts &Facts) {
        Facts.OrderedStreams.insert({*Op.Stream, Op.Site});
      });
    }
    break;
  case OpKind::SyncStream:
    for (auto &[Key, Buffer] : State.Buffers) {
      for (auto It = Buffer.PendingUses.begin();
           It != Buffer.PendingUses.end();)
        It = orderedBefore(It->first.Stream, It->second, *Op.Stream, State)
                 ? Buffer.PendingUses.erase(It)
                 : std::next(It);
      if (Buffer.AllocPending && Buffer.AllocStream &&
          orderedBefore(*Buffer.AllocStream, Buffer.AllocFacts, *Op.Stream,
                        State))
        Buffer.AllocPending = false;
    }
    break;
  case OpKind::SyncEvent:
    if (!Op.Event) {
      // An event we cannot name: in doubt, the host waited for everything.
      ResolvedOp Sync{OpKind::SyncDevice, Op.Site};
      apply(Sync, State);
      break;
    }
    for (auto &[Key, Buffer] : State.Buffers) {
      for (auto It = Buffer.PendingUses.begin();
           It != Buffer.PendingUses.end();)
        It = It->second.CoveringEvents.count(*Op.Event)
                 ? Buffer.PendingUses.erase(It)
                 : std::next(It);
      if (Buffer.AllocFacts.CoveringEvents.count(*Op.Event))
        Buffer.AllocPending = false;
    }
    break;
  case OpKind::SyncDevice:
    for (auto &[Key, Buffer] : State.Buffers) {
      Buffer.PendingUses.clear();
      Buffer.AllocPending = false;
    }
    break;
  case OpKind::Release:
    applyRelease(Op, State);
    break;
  case OpKind::ReleaseSync: {
    // cudaFree / cuMemFree synchronize the device before releasing.
    ResolvedOp Sync{OpKind::SyncDevice, Op.Site};
    apply(Sync, State);
    for (const EntityKey &Key : Op.Buffers)
      State.Buffers[Key].ReleaseSite = Op.Site;
    break;
  }
  case OpKind::RecordStream:
    // The caching allocator now holds the block until that stream's work
    // completes, so the use no longer races with the release.
    for (const EntityKey &Key : Op.Buffers) {
      auto Found = State.Buffers.find(Key);
      if (Found == State.Buffers.end())
        continue;
      auto &Uses = Found->second.PendingUses;
      for (auto It = Uses.begin(); It != Uses.end();)
        It = It->first.Stream == *Op.Stream ? Uses.erase(It) : std::next(It);
    }
    break;
  case OpKind::CreateStream:
    if (Op.Stream && Op.Stream->Kind == StreamId::Named) {
      if (Op.NonBlocking)
        State.NonBlockingStreams[Op.Stream->Key] = *Op.NonBlocking;
      else
        State.NonBlockingStreams.erase(Op.Stream->Key);
    }
    break;
  }
}

void FunctionAnalyzer::transferAssignment(const EntityKey &Target,
                                          QualType Type, const Expr *RHS,
                                          LifetimeState &State) {
  std::optional<EntityKey> Source =
      RHS ? resolveEntity(RHS, Ctx) : std::nullopt;
  if (isEventType(Type)) {
    // Events are handles: the copy denotes the same recorded point.
    bool Known = Source && State.Events.count(*Source);
    if (Known)
      State.Events[Target] = State.Events[*Source];
    else
      State.Events.erase(Target);
    forEachWork(State, [&](const StreamId &, WorkFacts &Facts) {
      if (Known && Facts.CoveringEvents.count(*Source))
        Facts.CoveringEvents.insert(Target);
      else
        Facts.CoveringEvents.erase(Target);
    });
    return;
  }
  if (isStreamType(Type))
    return;
  if (Source && State.Buffers.count(*Source)) {
    EntityNames.try_emplace(*Source, sourceText(RHS->IgnoreParenCasts(), Ctx));
    BufferState Copy = State.Buffers[*Source];
    State.Buffers[Target] = std::move(Copy);
  } else {
    State.Buffers.erase(Target);
  }
}

void FunctionAnalyzer::transferCall(const CallExpr *Call,
                                    LifetimeState &State) {
  if (std::optional<ApiOperation> Op = Model.classify(Call)) {
    apply(resolve(fromApiOperation(*Op, Ctx), Call), State);
    return;
  }
  const FunctionDecl *Callee = summarizableCallee(Call, Model, Ctx);
  if (!Callee || Callee == Current)
    return;
  for (const SummaryOp &Summarized : Cache.summaryOf(Callee, Ctx, Model).Ops) {
    auto Arg = [&](int Index) -> const Expr * {
      return Index >= 0 && static_cast<unsigned>(Index) < Call->getNumArgs()
                 ? Call->getArg(Index)
                 : nullptr;
    };
    OperandExprs Exprs{Summarized.Kind};
    for (unsigned Index : Summarized.BufferParams)
      if (const Expr *E = Arg(Index))
        Exprs.Buffers.push_back(E);
    Exprs.Stream = Arg(Summarized.Stream.Param);
    Exprs.FixedStream = Summarized.Stream.Fixed;
    Exprs.Event = Arg(Summarized.EventParam);
    if (Summarized.LocalEvent) {
      Exprs.FixedEvent = EntityKey{Summarized.LocalEvent};
      EntityNames.try_emplace(*Exprs.FixedEvent,
                              Summarized.LocalEvent->getName().str());
    }
    apply(resolve(Exprs, Call), State);
  }
}

void FunctionAnalyzer::transfer(const Stmt *S, LifetimeState &State) {
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    transferCall(Call, State);
    return;
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
    if (Binary->getOpcode() == BO_Assign)
      if (std::optional<EntityKey> Target = entity(Binary->getLHS()))
        transferAssignment(*Target, Binary->getLHS()->getType(),
                           Binary->getRHS(), State);
    return;
  }
  if (const auto *Decls = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : Decls->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var || !Var->hasInit() || Var->getType()->isArrayType())
        continue;
      // An initialisation is an assignment to the new variable.
      EntityNames.try_emplace(EntityKey{Var}, Var->getName().str());
      transferAssignment(EntityKey{Var}, Var->getType(), Var->getInit(), State);
    }
  }
}

void FunctionAnalyzer::run(const FunctionDecl *Function) {
  Current = Function;
  CFG::BuildOptions Options;
  Options.AddImplicitDtors = true;
  Options.AddTemporaryDtors = true;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(Function, Function->getBody(), &Ctx, Options);
  if (!Graph)
    return;

  // Reverse post-order: a predecessor with a later (or equal) position
  // reaches a block through a loop back edge.
  // (A hand-written DFS: CFG successor lists hold null entries for edges
  // the builder proved unreachable, which llvm's graph iterators follow.)
  std::vector<const CFGBlock *> Order;
  {
    llvm::DenseSet<const CFGBlock *> Seen;
    std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>>
        Stack;
    Seen.insert(&Graph->getEntry());
    Stack.push_back({&Graph->getEntry(), Graph->getEntry().succ_begin()});
    while (!Stack.empty()) {
      auto &[Block, Next] = Stack.back();
      if (Next == Block->succ_end()) {
        Order.push_back(Block);
        Stack.pop_back();
        continue;
      }
      const CFGBlock *Succ = Next->getReachableBlock();
      ++Next;
      if (Succ && Seen.insert(Succ).second)
        Stack.push_back({Succ, Succ->succ_begin()});
    }
    std::reverse(Order.begin(), Order.end());
  }
  llvm::DenseMap<const CFGBlock *, unsigned> Position;
  for (unsigned I = 0; I < Order.size(); ++I)
    Position[Order[I]] = I;

  std::vector<LifetimeState> Exit(Graph->getNumBlockIDs());
  auto entryState = [&](const CFGBlock *Block) {
    LifetimeState In;
    if (Block == &Graph->getEntry())
      In.Reachable = true;
    // Forward edges first, so that the facts kept when paths disagree (such
    // as which allocation a note names) come from the first iteration.
    for (bool BackEdges : {false, true}) {
      for (const CFGBlock::AdjacentBlock &Pred : Block->preds()) {
        const CFGBlock *P = Pred.getReachableBlock();
        if (!P || !Position.count(P) ||
            (Position[P] >= Position[Block]) != BackEdges)
          continue;
        const LifetimeState &PredExit = Exit[P->getBlockID()];
        if (!BackEdges) {
          In.join(PredExit);
          continue;
        }
        LifetimeState Carried = PredExit;
        for (auto &[Key, Buffer] : Carried.Buffers)
          for (auto &[Use, Facts] : Buffer.PendingUses)
            Facts.FromEarlierIteration = true;
        In.join(Carried);
      }
    }
    return In;
  };
  auto transferBlock = [&](const CFGBlock *Block, LifetimeState &State) {
    if (!State.Reachable)
      return;
    for (const CFGElement &Element : *Block)
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
        transfer(S->getStmt(), State);
  };

  // Round-robin in reverse post-order until nothing changes. The lattice is
  // finite; the cap only guards against a transfer bug looping forever.
  constexpr unsigned MaxRounds = 32;
  bool Changed = true;
  for (unsigned Round = 0; Changed && Round < MaxRounds; ++Round) {
    Changed = false;
    for (const CFGBlock *Block : Order) {
      LifetimeState State = entryState(Block);
      transferBlock(Block, State);
      if (State != Exit[Block->getBlockID()]) {
        Exit[Block->getBlockID()] = std::move(State);
        Changed = true;
      }
    }
  }

  // The final pass over the fixpoint emits the findings.
  Reporting = true;
  for (const CFGBlock *Block : Order) {
    LifetimeState State = entryState(Block);
    transferBlock(Block, State);
  }
  for (FreeBeforeWaitFinding &Finding : Out.FreeBeforeWait) {
    for (FreeBeforeWaitFinding::RacingUse &Use : Finding.Uses) {
      auto Stale = StaleWaits.find(Use.Site);
      if (Stale == StaleWaits.end())
        continue;
      for (const StaleWait &Wait : Stale->second)
        if (Wait.Waiter == ReleaseStreams[Finding.ReleaseSite] &&
            std::none_of(
                Use.StaleWaits.begin(), Use.StaleWaits.end(),
                [&](const auto &W) { return W.first == Wait.WaitSite; }))
          Use.StaleWaits.push_back({Wait.WaitSite, Wait.Event});
    }
    auto Found = LateWaits.find(Finding.ReleaseSite);
    if (Found == LateWaits.end())
      continue;
    for (const auto &Wait : Found->second)
      if (before(Finding.ReleaseSite, Wait.first))
        Finding.LateWaits.push_back(Wait);
  }
}

/// Cheap pre-filter: only functions that call a modelled API, launch a
/// kernel, or call a summarised function with operations are analysed.
class RelevanceScan : public RecursiveASTVisitor<RelevanceScan> {
public:
  RelevanceScan(const FunctionDecl *Function, ASTContext &Ctx,
                const ApiModel &Model, SummaryCache &Cache)
      : Function(Function), Ctx(Ctx), Model(Model), Cache(Cache) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (isa<CUDAKernelCallExpr>(Call) || Model.classify(Call)) {
      Relevant = true;
      return false;
    }
    const FunctionDecl *Callee = summarizableCallee(Call, Model, Ctx);
    if (Callee && Callee != Function &&
        !Cache.summaryOf(Callee, Ctx, Model).Ops.empty()) {
      Relevant = true;
      return false;
    }
    return true;
  }
  bool Relevant = false;

private:
  const FunctionDecl *Function;
  ASTContext &Ctx;
  const ApiModel &Model;
  SummaryCache &Cache;
};

/// Everything cached for one translation unit and one model configuration.
struct TranslationUnitCache {
  SummaryCache Summaries;
  std::map<const FunctionDecl *, FunctionFindings> Results;
};

struct GlobalCache {
  const ASTContext *Context = nullptr;
  std::map<std::string, TranslationUnitCache> ByModel;
};

GlobalCache &globalCache() {
  static GlobalCache Cache;
  return Cache;
}

} // namespace

const FunctionFindings &analyzeFunction(const FunctionDecl *Function,
                                        ASTContext &Context,
                                        const ApiModel &Model) {
  GlobalCache &Global = globalCache();
  if (Global.Context != &Context) {
    Global.ByModel.clear();
    Global.Context = &Context;
  }
  TranslationUnitCache &Unit = Global.ByModel[Model.fingerprint()];
  auto [It, Inserted] = Unit.Results.try_emplace(Function);
  if (!Inserted)
    return It->second;
  FunctionFindings &Findings = It->second;
  if (!Function->hasBody() || Function->isTemplated() ||
      Context.getDiagnostics().hasUncompilableErrorOccurred())
    return Findings;
  RelevanceScan Scan(Function, Context, Model, Unit.Summaries);
  Scan.TraverseStmt(Function->getBody());
  if (!Scan.Relevant)
    return Findings;
  FunctionAnalyzer(Context, Model, Unit.Summaries, Findings).run(Function);
  return Findings;
}

void clearLifetimeAnalysisCache() {
  GlobalCache &Global = globalCache();
  Global.ByModel.clear();
  Global.Context = nullptr;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
