//===--- ClangOperations.cpp - streamlife ---------------------------------===//
//
// FunctionLowering, calls: a call the ApiModel classifies becomes its
// operation with operands resolved to names; a call to a function defined
// in this translation unit becomes an ir::Call (the core applies the
// callee's summary); calls on PyTorch and RMM objects without a row are
// tensor operations on the current stream, owners that end (reset,
// release) or stores into containers.
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"
#include "clang/AST/ExprCXX.h"
#include <functional>

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

namespace {

std::optional<bool> nonBlockingFlag(const ApiOperation &Op, ASTContext &Ctx) {
  if (!Op.Flags)
    return false; // cudaStreamCreate: cudaStreamDefault
  Expr::EvalResult Value;
  if (Op.Flags->isValueDependent() || !Op.Flags->EvaluateAsInt(Value, Ctx))
    return std::nullopt;
  // cudaStreamNonBlocking and CU_STREAM_NON_BLOCKING are both 0x1.
  return (Value.Val.getInt().getZExtValue() & 1) != 0;
}

} // namespace

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
    I.Stream = TU.defaultStream();
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

//===----------------------------------------------------------------------===//
// PyTorch and RMM objects: tensor operations on the current stream, owners
// that end (reset, release), stores into containers
//===----------------------------------------------------------------------===//

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

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
