//===--- ApiModel.cpp - streamlife ----------------------------------------===//

#include "ApiModel.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

/// Shorthands for the table rows below.
ApiSignature alloc(int Buf, int Stream) {
  ApiSignature S{OpKind::Allocate};
  S.Buffer = Buf;
  S.Stream = Stream;
  return S;
}
ApiSignature use(int Buf, int Buf2, int Stream) {
  ApiSignature S{OpKind::Use};
  S.Buffer = Buf;
  S.Buffer2 = Buf2;
  S.Stream = Stream;
  return S;
}
ApiSignature launch(int ArgsArray, int Stream) {
  ApiSignature S{OpKind::Use};
  S.ArgsArray = ArgsArray;
  S.Stream = Stream;
  return S;
}
ApiSignature release(int Buf, int Stream) {
  ApiSignature S{Stream < 0 ? OpKind::ReleaseSync : OpKind::Release};
  S.Buffer = Buf;
  S.Stream = Stream;
  return S;
}
ApiSignature record(int Event, int Stream) {
  ApiSignature S{OpKind::RecordEvent};
  S.Event = Event;
  S.Stream = Stream;
  return S;
}
ApiSignature waitEvent(int Stream, int Event) {
  ApiSignature S{OpKind::StreamWaitEvent};
  S.Stream = Stream;
  S.Event = Event;
  return S;
}
ApiSignature syncStream(int Stream) {
  ApiSignature S{OpKind::SyncStream};
  S.Stream = Stream;
  return S;
}
ApiSignature syncEvent(int Event) {
  ApiSignature S{OpKind::SyncEvent};
  S.Event = Event;
  return S;
}
ApiSignature syncDevice() { return ApiSignature{OpKind::SyncDevice}; }
ApiSignature createStream(int Stream, int Flags) {
  ApiSignature S{OpKind::CreateStream};
  S.Stream = Stream;
  S.Flags = Flags;
  return S;
}

bool isPointeeRecordNamed(QualType T, llvm::StringRef Name) {
  T = T.getCanonicalType();
  if (const auto *Ptr = T->getAs<PointerType>())
    if (const auto *Record = Ptr->getPointeeType()->getAsRecordDecl())
      return Record->getName() == Name;
  return false;
}

} // namespace

ApiModel::ApiModel() {
  // --- CUDA runtime API ------------------------------------------------------
  add("cudaMallocAsync", alloc(0, 2));
  add("cudaMallocFromPoolAsync", alloc(0, 3));
  add("cudaFreeAsync", release(0, 1));
  add("cudaFree", release(0, -1)); // synchronous: implicit device sync
  add("cudaMemcpyAsync", use(0, 1, 4));
  add("cudaMemcpy2DAsync", use(0, 2, 7));
  add("cudaMemcpy3DAsync", use(-1, -1, 1));     // operands inside a struct
  add("cudaMemcpy3DPeerAsync", use(-1, -1, 1)); // operands inside a struct
  add("cudaMemcpyPeerAsync", use(0, 2, 5));
  add("cudaMemcpyToSymbolAsync", use(1, -1, 5));
  add("cudaMemcpyFromSymbolAsync", use(0, -1, 5));
  add("cudaMemcpy2DToArrayAsync", use(3, -1, 8));
  add("cudaMemcpy2DFromArrayAsync", use(0, -1, 8));
  add("cudaMemcpyToArrayAsync", use(3, -1, 6));
  add("cudaMemcpyFromArrayAsync", use(0, -1, 6));
  add("cudaMemsetAsync", use(0, -1, 3));
  add("cudaMemset2DAsync", use(0, -1, 5));
  add("cudaMemset3DAsync", use(-1, -1, 3)); // operand inside a struct
  add("cudaLaunchKernel", launch(3, 5));
  add("cudaLaunchCooperativeKernel", launch(3, 5));
  add("cudaEventRecord", record(0, 1));
  add("cudaEventRecordWithFlags", record(0, 1));
  add("cudaStreamWaitEvent", waitEvent(0, 1));
  add("cudaStreamSynchronize", syncStream(0));
  add("cudaEventSynchronize", syncEvent(0));
  add("cudaDeviceSynchronize", syncDevice());
  add("cudaThreadSynchronize", syncDevice());
  add("cudaStreamCreate", createStream(0, -1));
  add("cudaStreamCreateWithFlags", createStream(0, 1));
  add("cudaStreamCreateWithPriority", createStream(0, 1));

  // --- CUDA driver API -------------------------------------------------------
  add("cuMemAllocAsync", alloc(0, 2));
  add("cuMemAllocFromPoolAsync", alloc(0, 3));
  add("cuMemFreeAsync", release(0, 1));
  add("cuMemFree", release(0, -1)); // synchronous: implicit device sync
  add("cuMemcpyAsync", use(0, 1, 3));
  add("cuMemcpyHtoDAsync", use(0, 1, 3));
  add("cuMemcpyDtoHAsync", use(0, 1, 3));
  add("cuMemcpyDtoDAsync", use(0, 1, 3));
  add("cuMemcpyPeerAsync", use(0, 2, 5));
  add("cuMemcpy2DAsync", use(-1, -1, 1));     // operands inside a struct
  add("cuMemcpy3DAsync", use(-1, -1, 1));     // operands inside a struct
  add("cuMemcpy3DPeerAsync", use(-1, -1, 1)); // operands inside a struct
  add("cuMemsetD8Async", use(0, -1, 3));
  add("cuMemsetD16Async", use(0, -1, 3));
  add("cuMemsetD32Async", use(0, -1, 3));
  add("cuMemsetD2D8Async", use(0, -1, 5));
  add("cuMemsetD2D16Async", use(0, -1, 5));
  add("cuMemsetD2D32Async", use(0, -1, 5));
  add("cuLaunchKernel", launch(9, 8));
  add("cuLaunchCooperativeKernel", launch(9, 8));
  add("cuEventRecord", record(0, 1));
  add("cuEventRecordWithFlags", record(0, 1));
  add("cuStreamWaitEvent", waitEvent(0, 1));
  add("cuStreamSynchronize", syncStream(0));
  add("cuEventSynchronize", syncEvent(0));
  add("cuCtxSynchronize", syncDevice());
  add("cuStreamCreate", createStream(0, 1));
  add("cuStreamCreateWithPriority", createStream(0, 1));

  // --- PyTorch caching allocator hand-off
  // --------------------------------------
  ApiSignature TensorRecord{OpKind::RecordStream};
  TensorRecord.Buffer = Operand::thisObject();
  TensorRecord.Stream = 0;
  add("at::Tensor::record_stream", TensorRecord);
  ApiSignature AllocatorRecord{OpKind::RecordStream};
  AllocatorRecord.Buffer = 0;
  AllocatorRecord.Stream = 1;
  add("c10::cuda::CUDACachingAllocator::recordStream", AllocatorRecord);
}

void ApiModel::add(llvm::StringRef Name, ApiSignature Sig) {
  Table[Name] = Sig;
  llvm::raw_string_ostream OS(Fingerprint);
  OS << Name << ':' << static_cast<int>(Sig.Kind);
  for (const Operand &O : {Sig.Buffer, Sig.Buffer2, Sig.Stream, Sig.Event,
                           Sig.Flags, Sig.ArgsArray})
    OS << ':' << static_cast<int>(O.Role) << '.' << O.Index;
  OS << ';';
}

bool ApiModel::addUserFunctions(OpKind Kind, llvm::StringRef Spec) {
  llvm::SmallVector<llvm::StringRef, 4> Entries;
  Spec.split(Entries, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  bool AllValid = true;
  for (llvm::StringRef Entry : Entries) {
    llvm::SmallVector<llvm::StringRef, 3> Fields;
    Entry.trim().split(Fields, ':');
    // Qualified names contain "::"; rejoin them: the last two fields are
    // the argument positions.
    if (Fields.size() < 3) {
      AllValid = false;
      continue;
    }
    int Buffer = -1, Stream = -1;
    if (Fields[Fields.size() - 2].trim().getAsInteger(10, Buffer) ||
        Fields.back().trim().getAsInteger(10, Stream)) {
      AllValid = false;
      continue;
    }
    llvm::StringRef Name = Entry.trim();
    Name = Name.substr(0, Name.size() - Fields.back().size() - 1);
    Name = Name.substr(0, Name.size() - Fields[Fields.size() - 2].size() - 1);
    Name.consume_front("::");
    ApiSignature Sig{Kind};
    Sig.Buffer = Buffer;
    Sig.Stream = Stream;
    if (Kind == OpKind::Release && Stream < 0)
      Sig.Kind = OpKind::ReleaseSync;
    add(Name.trim(), Sig);
  }
  return AllValid;
}

llvm::StringRef ApiModel::canonicalName(llvm::StringRef Name) {
  for (llvm::StringRef Suffix : {"_ptsz", "_ptds"})
    Name.consume_back(Suffix);
  Name.consume_back("_v2");
  Name.consume_back("_v3");
  return Name;
}

bool ApiModel::isModelled(llvm::StringRef Name) const {
  return Table.count(canonicalName(Name));
}

void ApiModel::addClass(llvm::StringRef QualifiedName, ClassKind Kind) {
  Classes[QualifiedName] = Kind;
  llvm::raw_string_ostream OS(Fingerprint);
  OS << "class " << QualifiedName << ':' << static_cast<int>(Kind) << ';';
}

std::optional<ClassKind> ApiModel::classOf(QualType T) const {
  if (Classes.empty() || T.isNull())
    return std::nullopt;
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Record = T->getAsCXXRecordDecl();
  if (!Record)
    return std::nullopt;
  auto Found = Classes.find(Record->getQualifiedNameAsString());
  if (Found == Classes.end())
    return std::nullopt;
  return Found->second;
}

bool ApiModel::isStreamType(QualType T) const {
  return isPointeeRecordNamed(T, "CUstream_st") ||
         classOf(T) == ClassKind::Stream;
}

bool ApiModel::isEventType(QualType T) const {
  return isPointeeRecordNamed(T, "CUevent_st") ||
         classOf(T) == ClassKind::Event;
}

std::optional<ApiOperation> ApiModel::classify(const CallExpr *Call) const {
  // A kernel launch: the stream is argument 3 of the configuration call
  // `__cudaPushCallConfiguration(grid, block, smem, stream)`.
  if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(Call)) {
    ApiOperation Op{OpKind::Use, Call};
    for (const Expr *Arg : Launch->arguments())
      Op.Buffers.push_back(Arg);
    const CallExpr *Config = Launch->getConfig();
    if (Config && Config->getNumArgs() > 3 &&
        !isa<CXXDefaultArgExpr>(Config->getArg(3)))
      Op.Stream = Config->getArg(3);
    else
      Op.StreamDefaulted = true;
    return Op;
  }

  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getDeclName().isIdentifier())
    return std::nullopt;
  const ApiSignature *Sig = nullptr;
  auto Found = Table.find(canonicalName(Callee->getName()));
  // The C APIs live in the global namespace (inside extern "C" blocks);
  // everything else is matched by its qualified name.
  if (Found != Table.end() &&
      Callee->getDeclContext()->getRedeclContext()->isTranslationUnit())
    Sig = &Found->second;
  if (!Sig) {
    std::string Qualified = Callee->getQualifiedNameAsString();
    auto QFound = Table.find(Qualified);
    if (QFound == Table.end())
      return std::nullopt;
    Sig = &QFound->second;
  }
  // Member calls have the object as an implicit argument that
  // CallExpr::getArg does not list.
  const Expr *Object = nullptr;
  if (const auto *MemberCall = dyn_cast<CXXMemberCallExpr>(Call))
    Object = MemberCall->getImplicitObjectArgument();
  llvm::ArrayRef<const Expr *> Args(Call->getArgs(), Call->getNumArgs());
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
      Operator && isa<CXXMethodDecl>(Callee) && Call->getNumArgs() > 0) {
    Object = Call->getArg(0);
    Args = Args.drop_front();
  }
  return bind(*Sig, Call, Callee, Args, Object);
}

std::optional<ApiOperation>
ApiModel::classify(const CXXConstructExpr *Construct) const {
  const CXXConstructorDecl *Ctor = Construct->getConstructor();
  if (!Ctor || Table.empty())
    return std::nullopt;
  auto Found = Table.find(Ctor->getQualifiedNameAsString());
  if (Found == Table.end())
    return std::nullopt;
  llvm::ArrayRef<const Expr *> Args(Construct->getArgs(),
                                    Construct->getNumArgs());
  return bind(Found->second, Construct, Ctor, Args, Construct);
}

std::optional<ApiOperation> ApiModel::bind(const ApiSignature &Sig,
                                           const Expr *Call,
                                           const FunctionDecl *Callee,
                                           llvm::ArrayRef<const Expr *> Args,
                                           const Expr *Object) const {
  auto argument = [&](int Index) -> const Expr * {
    if (Index < 0 || static_cast<size_t>(Index) >= Args.size())
      return nullptr;
    return Args[Index];
  };
  ApiOperation Op{Sig.Kind, Call};
  auto operand = [&](const Operand &O) -> const Expr * {
    switch (O.Role) {
    case Operand::Arg:
      return argument(O.Index);
    case Operand::This:
      return Object;
    case Operand::Return:
      return Call;
    case Operand::None:
    case Operand::CurrentStream:
      return nullptr;
    }
    return nullptr;
  };
  for (const Operand *B : {&Sig.Buffer, &Sig.Buffer2, &Sig.ArgsArray}) {
    if (B->Role == Operand::Return ||
        (B->Role == Operand::This && Object == Call)) {
      Op.BufferIsResult = true;
      continue;
    }
    if (const Expr *E = operand(*B))
      Op.Buffers.push_back(E);
  }
  Operand Stream = Sig.Stream;
  // Match the declaration, not the name: an overload may put the stream
  // elsewhere (cuda_runtime.h's C++ `cudaMallocAsync(&p, size, pool,
  // stream)` has the pool where the C API has the stream). When the row's
  // position holds a parameter of another known type and the declaration
  // has exactly one stream parameter, that parameter is the stream.
  if (Stream.Role == Operand::Arg && Callee &&
      static_cast<unsigned>(Stream.Index) < Callee->getNumParams()) {
    QualType AtRow = Callee->getParamDecl(Stream.Index)->getType();
    bool KnownOther = !isStreamType(AtRow) && !AtRow->isDependentType() &&
                      (AtRow->isPointerType() || AtRow->isIntegerType());
    if (KnownOther) {
      int StreamParam = -1, Count = 0;
      for (unsigned P = 0; P < Callee->getNumParams(); ++P)
        if (isStreamType(Callee->getParamDecl(P)->getType())) {
          StreamParam = static_cast<int>(P);
          ++Count;
        }
      if (Count == 1 && Sig.Kind != OpKind::CreateStream)
        Stream = StreamParam;
    }
  }
  switch (Stream.Role) {
  case Operand::CurrentStream:
    Op.StreamIsCurrent = true;
    break;
  case Operand::None:
    break;
  default: {
    const Expr *S = operand(Stream);
    if (!S || isa<CXXDefaultArgExpr>(S))
      Op.StreamDefaulted = true;
    else
      Op.Stream = S;
  }
  }
  Op.Event = operand(Sig.Event);
  Op.Flags = operand(Sig.Flags);
  if (Op.Flags && isa<CXXDefaultArgExpr>(Op.Flags))
    Op.Flags = nullptr;
  return Op;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
