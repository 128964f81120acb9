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
  case streamlife::OpKind::ForkStreams:
    Kind = OpKind::WaitStream;
    break;
  case streamlife::OpKind::SetCurrentStream:
    // Replaces the innermost current stream: a pop, then a push (so that a
    // loop of setCurrentCUDAStream calls does not grow the stack).
    emit(OpKind::PopCurrentStream, Site->getBeginLoc());
    Kind = OpKind::PushCurrentStream;
    break;
  case streamlife::OpKind::RebindStream:
    Kind = OpKind::SetReleaseStream;
    break;
  case streamlife::OpKind::PushCurrentDevice:
    Kind = OpKind::PushCurrentStream;
    break;
  case streamlife::OpKind::SetCurrentDevice:
    emit(OpKind::PopCurrentStream, Site->getBeginLoc());
    Kind = OpKind::PushCurrentStream;
    break;
  }
  bool OfDevice = Op.Kind == streamlife::OpKind::PushCurrentDevice ||
                  Op.Kind == streamlife::OpKind::SetCurrentDevice;
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
    if (Op.BuffersInStruct) {
      llvm::SmallVector<const Expr *, 4> Fields;
      structFieldValues(Operand, Op.Call, Function, Ctx, Fields);
      for (const Expr *Field : Fields)
        collectBufferExprs(Field, Named);
    } else {
      collectBufferExprs(Operand, Named);
    }
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
  } else if (Op.Kind == streamlife::OpKind::ForkStreams) {
    // The returned streams: the call's value, until a variable takes them.
    I.Stream = StreamRef::named(temporary(Op.Call));
  } else if (Op.Stream) {
    I.Stream = OfDevice ? guardStream(Op.Stream) : stream(Op.Stream);
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
        (Model.holdsOwnedBuffer(Op.Call->getType()) ||
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
  llvm::SmallVector<NameId, 2> Rebound;
  if (Op.Kind == streamlife::OpKind::RebindStream)
    Rebound = I.Names;
  Current->Insts.push_back(std::move(I));
  // The call's value is the rebound object itself.
  if (Rebound.size() == 1) {
    ir::Inst &Move = emit(OpKind::Move, Site->getBeginLoc());
    Move.Names = {temporary(Op.Call), Rebound.front()};
  }
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
      const Expr *LHS = Operator->getArg(0);
      if (const auto *Ref = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts()))
        if (lowerEntryCopy(Ref->getDecl(), LHS->getType(), Operator->getArg(1),
                           Call))
          return;
      if (NameId Target = entity(LHS); Target != NoId) {
        lowerAssignment(Target, Operator->getArg(0)->getType(),
                        Operator->getArg(1), Call);
        return;
      }
      // Stored where no name follows it (`ring[i % N] = t` into a map, a
      // field of an unknown object): the object escapes.
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
  if (const FunctionDecl *Callee = TU.summarizableCallee(Call)) {
    if (Callee != Function->getDefinition() && Callee != Function)
      lowerSummarizedCall(Call, Callee);
    return;
  }
  lowerOpaqueStreamCall(Call);
}

void FunctionLowering::lowerOpaqueStreamCall(const CallExpr *Call) {
  // A function the analysis cannot see, handed one stream and owned
  // buffers (`source->device_read_async(offset, size, buf.data(), stream)`,
  // a launcher in another translation unit): it works on those buffers on
  // that stream. Standard functions take no stream.
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || Callee->isInStdNamespace() || isa<CUDAKernelCallExpr>(Call))
    return;
  StreamRef On;
  unsigned Streams = 0;
  llvm::SmallVector<NameId, 4> Buffers;
  // A member of an owned buffer's class (`v.set_element_async(i, x, s)`).
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    if (const Expr *Object = Member->getImplicitObjectArgument();
        Object && Model.classOf(Object->getType()) == ClassKind::OwnedBuffer)
      if (NameId N = valueName(Object); N != NoId)
        Buffers.push_back(N);
  for (const Expr *Arg : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (Model.isStreamType(Arg->getType())) {
      On = stream(Arg);
      ++Streams;
      continue;
    }
    // Through conversions to views and spans (`device_span<T>(v)`).
    const Expr *Passed = Arg;
    for (unsigned Depth = 0; Depth < 4; ++Depth) {
      Passed = Passed->IgnoreImplicit()->IgnoreParenCasts();
      const auto *Construct = dyn_cast<CXXConstructExpr>(Passed);
      if (!Construct || Construct->getNumArgs() != 1)
        break;
      Passed = Construct->getArg(0);
    }
    // An owned buffer, a view of one, or a span parameter (the caller's
    // buffer, through the summary).
    const Expr *Owner = throughAccessor(Passed);
    if (Model.classOf(Owner->getType()) != ClassKind::OwnedBuffer &&
        !isSpanParameter(Owner))
      continue;
    if (NameId N = valueName(Owner);
        N != NoId && !llvm::is_contained(Buffers, N))
      Buffers.push_back(N);
  }
  if (Streams != 1 || Buffers.empty() || !On.known())
    return;
  ir::Inst &Use = emit(ir::OpKind::Use, Call->getBeginLoc());
  Use.Names.assign(Buffers.begin(), Buffers.end());
  Use.Stream = On;
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
  // `empty_like(src, dev)`, `zeros_like(src)`: src gives the new tensor's
  // sizes, type and device only; no device work touches it.
  if (!Model.readsOperandMetadataOnly(Call)) {
    Add(Self);
    for (const Expr *Arg : Call->arguments())
      Add(Arg);
  }
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
    Use.OnOperandDevice = true;
  }
  if (Kind == TensorOpKind::Sync) {
    ir::Inst &Sync = emit(ir::OpKind::SyncStream, Loc);
    Sync.Stream = StreamRef::current();
    return;
  }
  if (Kind == TensorOpKind::Produce) {
    // Host memory (CPU, pinned) is not a stream-ordered device block; a
    // tensor on another device is allocated on that device's stream.
    TensorPlacement Where = Model.tensorPlacement(Call, Ctx);
    if (Where.Host)
      return;
    ir::Inst &Alloc = emit(ir::OpKind::Allocate, Loc);
    Alloc.Names.push_back(temporary(Call));
    Alloc.Stream = deviceStream(Where.Device);
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
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    if (ContainerOp Op = Model.containerOp(Member); Op != ContainerOp::None)
      if (lowerContainerCall(Member, Op))
        return true;
  if (Model.isContainerInsert(Call)) {
    // Stored where no name follows it (a map, a container of values the
    // model does not know): the analysis stops following the object.
    llvm::SmallVector<NameId, 2> Stored;
    for (const Expr *Arg : Call->arguments())
      collectStored(Arg, Stored, /*Events=*/nullptr);
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
