//===--- ApiModel.cpp - streamlife ----------------------------------------===//

#include "ApiModel.h"
#include <utility>
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
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
/// A copy or set whose buffers are the fields of a parameter struct.
ApiSignature useStruct(int Struct, int Stream) {
  ApiSignature S = use(Struct, -1, Stream);
  S.BufferInStruct = true;
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

/// The name a function's row is keyed by: its qualified name, with members
/// of class template specializations (`rmm::device_uvector<float>::data`)
/// named by their pattern (`rmm::device_uvector::data`).
std::string tableName(const FunctionDecl *F) {
  const auto *Method = dyn_cast<CXXMethodDecl>(F);
  if (!Method)
    return F->getQualifiedNameAsString();
  const CXXRecordDecl *Parent = Method->getParent();
  std::string Class = Parent->getQualifiedNameAsString();
  std::string Plain = Parent->getNameAsString();
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Parent)) {
    Class = Spec->getSpecializedTemplate()->getQualifiedNameAsString();
    Plain = Spec->getSpecializedTemplate()->getNameAsString();
  }
  // A constructor's name prints with the template arguments; use the
  // class's plain name.
  std::string Member = isa<CXXConstructorDecl>(Method)
                           ? Plain
                           : Method->getNameAsString();
  return Class + "::" + Member;
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
  add("cudaMemcpy3DAsync", useStruct(0, 1));
  add("cudaMemcpy3DPeerAsync", useStruct(0, 1));
  add("cudaMemcpyPeerAsync", use(0, 2, 5));
  add("cudaMemcpyToSymbolAsync", use(1, -1, 5));
  add("cudaMemcpyFromSymbolAsync", use(0, -1, 5));
  add("cudaMemcpy2DToArrayAsync", use(3, -1, 8));
  add("cudaMemcpy2DFromArrayAsync", use(0, -1, 8));
  add("cudaMemcpyToArrayAsync", use(3, -1, 6));
  add("cudaMemcpyFromArrayAsync", use(0, -1, 6));
  add("cudaMemsetAsync", use(0, -1, 3));
  add("cudaMemset2DAsync", use(0, -1, 5));
  add("cudaMemset3DAsync", useStruct(0, 3));
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
  add("cuMemcpy2DAsync", useStruct(0, 1));
  add("cuMemcpy3DAsync", useStruct(0, 1));
  add("cuMemcpy3DPeerAsync", useStruct(0, 1));
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

  addTorchRows();
  addRmmRows();
}

void ApiModel::add(llvm::StringRef Name, ApiSignature Sig) {
  Table[Name] = Sig;
  llvm::raw_string_ostream OS(Fingerprint);
  OS << Name << ':' << static_cast<int>(Sig.Kind) << ':'
     << Sig.MissingStreamIsCurrent;
  for (const Operand &O : {Sig.Buffer, Sig.Buffer2, Sig.Stream, Sig.Event,
                           Sig.Flags, Sig.ArgsArray, Sig.Stream2})
    OS << ':' << static_cast<int>(O.Role) << '.' << O.Index;
  OS << ';';
}

llvm::StringRef ApiModel::optionName(OpKind Kind) {
  switch (Kind) {
  case OpKind::Allocate:
    return "AllocateFunctions";
  case OpKind::Use:
    return "UseFunctions";
  case OpKind::Release:
  case OpKind::ReleaseSync:
    return "ReleaseFunctions";
  case OpKind::StreamWaitStreams:
    return "StreamWaitFunctions";
  case OpKind::ForkStreams:
    return "StreamForkFunctions";
  default:
    return "";
  }
}

std::vector<OptionProblem> ApiModel::addUserFunctions(OpKind Kind,
                                                      llvm::StringRef Spec) {
  llvm::SmallVector<llvm::StringRef, 4> Entries;
  Spec.split(Entries, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<OptionProblem> Problems;
  bool Waits = Kind == OpKind::StreamWaitStreams;
  // A fork names one position: the stream its returned streams wait for.
  bool Forks = Kind == OpKind::ForkStreams;
  llvm::StringRef Shape =
      Forks ? "expected 'name:waited-stream-argument'"
      : Waits
          ? "expected 'name:waiting-stream-argument:waited-streams-argument'"
          : "expected 'name:buffer-argument:stream-argument'";
  for (llvm::StringRef Entry : Entries) {
    Entry = Entry.trim();
    if (Entry.empty())
      continue;
    auto Reject = [&](const llvm::Twine &Reason) {
      Problems.push_back({optionName(Kind), Entry.str(), Reason.str()});
    };
    llvm::SmallVector<llvm::StringRef, 3> Fields;
    Entry.split(Fields, ':');
    // Qualified names contain "::"; rejoin them: the last two fields are
    // the argument positions.
    size_t Positions = Forks ? 1 : 2;
    if (Fields.size() < Positions + 1) {
      Reject(Shape);
      continue;
    }
    int First = -1, Second = 0;
    if (Fields[Fields.size() - Positions].trim().getAsInteger(10, First) ||
        (!Forks && Fields.back().trim().getAsInteger(10, Second))) {
      Reject(Shape + " with integer argument positions");
      continue;
    }
    llvm::StringRef Name = Entry;
    for (size_t P = 0; P < Positions; ++P)
      Name = Name.substr(
          0, Name.size() - Fields[Fields.size() - 1 - P].size() - 1);
    Name.consume_front("::");
    Name = Name.trim();
    if (Name.empty()) {
      Reject(Shape + ": the function name is empty");
      continue;
    }
    // Positions count from 0. The buffer (or the waiting stream) must be
    // an argument; the second position may be -1: no stream (a release
    // after a device sync, a use on the legacy default stream).
    int SecondMin = Waits ? 0 : -1;
    if (First < 0) {
      Reject("argument " + llvm::Twine(First) + " is out of range: " +
             (Forks   ? "the waited stream"
              : Waits ? "the waiting stream"
                      : "the buffer") +
             " is an argument position, 0 or more");
      continue;
    }
    if (Second < SecondMin) {
      Reject("argument " + llvm::Twine(Second) + " is out of range: " +
             (Waits ? "the waited streams are an argument position, 0 or more"
                    : "the stream is an argument position, or -1 for none"));
      continue;
    }
    if (First > MaxArgumentIndex || Second > MaxArgumentIndex) {
      Reject("argument " + llvm::Twine(std::max(First, Second)) +
             " is out of range: positions go up to " +
             llvm::Twine(MaxArgumentIndex));
      continue;
    }
    ApiSignature Sig{Kind};
    Sig.Buffer = First;
    Sig.Stream = Second;
    if (Waits) {
      Sig.Buffer = Operand();
      Sig.Stream = First;
      Sig.Stream2 = Second;
    }
    if (Forks) {
      Sig.Buffer = Operand();
      Sig.Stream = Operand::returnValue();
      Sig.Stream2 = First;
    }
    if (Kind == OpKind::Release && Second < 0)
      Sig.Kind = OpKind::ReleaseSync;
    Sig.UserEntry = Entry.str();
    if (auto Builtin = Table.find(Name);
        Builtin != Table.end() && Builtin->second.UserEntry.empty())
      Replaced.try_emplace(Name, Builtin->second);
    add(Name, Sig);
  }
  return Problems;
}

bool ApiModel::fitsCallee(const ApiSignature &Sig,
                          const FunctionDecl *Callee) const {
  if (Sig.UserEntry.empty() || !Callee || Callee->isVariadic())
    return true;
  unsigned Params = Callee->getNumParams();
  for (const Operand *O : {&Sig.Buffer, &Sig.Buffer2, &Sig.Stream, &Sig.Event,
                           &Sig.Flags, &Sig.ArgsArray, &Sig.Stream2}) {
    if (O->Role != Operand::Arg || static_cast<unsigned>(O->Index) < Params)
      continue;
    if (ReportedEntries.insert(Sig.UserEntry).second)
      OptionProblems.push_back(
          {optionName(Sig.Kind), Sig.UserEntry,
           "argument " + std::to_string(O->Index) + " is out of range: '" +
               Callee->getQualifiedNameAsString() + "' has " +
               std::to_string(Params) +
               (Params == 1 ? " parameter" : " parameters") +
               " (positions count from 0)"});
    return false;
  }
  return true;
}

std::vector<OptionProblem> ApiModel::takeOptionProblems() const {
  return std::exchange(OptionProblems, {});
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

std::optional<StreamSource>
ApiModel::streamSource(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || StreamSources.empty())
    return std::nullopt;
  auto Found = StreamSources.find(tableName(Callee));
  if (Found == StreamSources.end())
    return std::nullopt;
  // `getCurrentCUDAStream(device)` names another device's current stream:
  // only the default argument is this device's.
  for (const Expr *Arg : Call->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      return std::nullopt;
  return Found->second;
}

const Expr *ApiModel::streamSourceDevice(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || StreamSources.empty() || Call->getNumArgs() == 0 ||
      isa<CXXDefaultArgExpr>(Call->getArg(0)))
    return nullptr;
  auto Found = StreamSources.find(tableName(Callee));
  if (Found == StreamSources.end() || Found->second != StreamSource::Current)
    return nullptr;
  return Call->getArg(0);
}

bool ApiModel::isBufferAccessor(const CXXMemberCallExpr *Call) const {
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || classOf(Call->getImplicitObjectArgument()->getType()) !=
                     ClassKind::OwnedBuffer)
    return false;
  // A conversion to a view of the storage (rmm's device_uvector
  // `operator cuda::std::span<T>()`).
  if (isa<CXXConversionDecl>(Method))
    return true;
  return isAccessorName(Method);
}

bool ApiModel::isAccessorName(const CXXMethodDecl *Method) const {
  return Method && Method->getDeclName().isIdentifier() &&
         BufferAccessors.contains(Method->getName());
}

const Expr *ApiModel::storageDataOwner(const CXXMemberCallExpr *Call) const {
  if (!isAccessorName(Call->getMethodDecl()))
    return nullptr;
  const auto *Storage = dyn_cast<CXXMemberCallExpr>(
      Call->getImplicitObjectArgument()->IgnoreParenCasts());
  const CXXMethodDecl *Method = Storage ? Storage->getMethodDecl() : nullptr;
  if (!Method || !Method->getDeclName().isIdentifier() ||
      Method->getName() != "storage" ||
      classOf(Storage->getImplicitObjectArgument()->getType()) !=
          ClassKind::OwnedBuffer)
    return nullptr;
  return Storage->getImplicitObjectArgument();
}

std::optional<TensorOpKind> ApiModel::tensorOp(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || TensorMetadata.empty())
    return std::nullopt;
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  bool OnTensor = Method && classOf(Method->getThisType()->getPointeeType()) ==
                                ClassKind::OwnedBuffer &&
                  Method->getParent()->getQualifiedNameAsString().rfind(
                      "at::", 0) == 0;
  bool AtenFunction = false;
  if (!Method) {
    const DeclContext *Ctx = Callee->getDeclContext()->getEnclosingNamespaceContext();
    const auto *NS = dyn_cast<NamespaceDecl>(Ctx);
    // ATen's operators live in namespace `at` itself (at::empty, at::add,
    // at::operator+); at::cuda, at::native, ... are not tensor ops.
    AtenFunction = NS && NS->getName() == "at" &&
                   NS->getParent()->getRedeclContext()->isTranslationUnit();
  }
  if (!OnTensor && !AtenFunction)
    return std::nullopt;
  if (isa<CXXConstructorDecl, CXXDestructorDecl, CXXConversionDecl>(Callee))
    return std::nullopt;
  std::string Name = Callee->getDeclName().isIdentifier()
                         ? Callee->getName().str()
                         : Callee->getNameAsString();
  if (Callee->getOverloadedOperator() == OO_Equal ||
      TensorMetadata.contains(Name) || llvm::StringRef(Name).starts_with("is_") ||
      llvm::StringRef(Name).starts_with("sym_") ||
      llvm::StringRef(Name).starts_with("_"))
    return std::nullopt;
  if (TensorSyncs.contains(Name))
    return TensorOpKind::Sync;
  QualType Result = Callee->getReturnType();
  bool ReturnsTensor = !Result->isReferenceType() &&
                       classOf(Result) == ClassKind::OwnedBuffer;
  // A non-tensor, non-void result (sizes, scalars, tuples of views) and no
  // tensor operand: not a stream operation.
  bool TensorOperand = OnTensor;
  for (const ParmVarDecl *P : Callee->parameters())
    TensorOperand |= classOf(P->getType()) == ClassKind::OwnedBuffer;
  if (!TensorOperand && !ReturnsTensor)
    return std::nullopt;
  if (ReturnsTensor && TensorViews.contains(Name))
    return TensorOpKind::View;
  return ReturnsTensor ? TensorOpKind::Produce : TensorOpKind::Use;
}

bool ApiModel::readsOperandMetadataOnly(const CallExpr *Call) const {
  // ATen's `_like` operators are exactly the factories taking a tensor as
  // the template of the one they make.
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getDeclName().isIdentifier() &&
         Callee->getName().ends_with("_like") &&
         tensorOp(Call) == TensorOpKind::Produce;
}

bool ApiModel::isContainerInsert(const CallExpr *Call) const {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !Method->getDeclName().isIdentifier() ||
      !Method->getParent()->isInStdNamespace())
    return false;
  return llvm::is_contained(
      std::initializer_list<llvm::StringRef>{
          "push_back", "emplace_back", "push_front", "emplace_front", "push",
          "emplace", "insert", "emplace_hint", "try_emplace",
          "insert_or_assign"},
      Method->getName());
}

ApiModel::OwnerEnd ApiModel::ownerEnd(const CXXMemberCallExpr *Call) const {
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || !Method->getDeclName().isIdentifier() ||
      classOf(Call->getImplicitObjectArgument()->getType()) !=
          ClassKind::OwnedBuffer)
    return OwnerEnd::None;
  if (Method->getName() == "reset" && Method->getNumParams() == 0)
    return OwnerEnd::Reset;
  if (Method->getName() == "release" && Method->getNumParams() == 0 &&
      classOf(Method->getReturnType()) == ClassKind::OwnedBuffer)
    return OwnerEnd::MoveOut;
  return OwnerEnd::None;
}

bool ApiModel::isDefinedQuery(const CXXMemberCallExpr *Call) const {
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  return Method && Method->getDeclName().isIdentifier() &&
         Method->getName() == "defined" && Method->getNumParams() == 0 &&
         classOf(Call->getImplicitObjectArgument()->getType()) ==
             ClassKind::OwnedBuffer;
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
  llvm::StringRef Key = canonicalName(Callee->getName());
  std::string Qualified;
  if (!Sig) {
    Qualified = tableName(Callee);
    auto QFound = Table.find(Qualified);
    if (QFound == Table.end())
      return std::nullopt;
    Sig = &QFound->second;
    Key = Qualified;
  }
  if (!fitsCallee(*Sig, Callee)) {
    auto Builtin = Replaced.find(Key);
    if (Builtin == Replaced.end())
      return std::nullopt;
    Sig = &Builtin->second;
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
  auto Found = Table.find(tableName(Ctor));
  if (Found == Table.end())
    return std::nullopt;
  // A constructor row describes the constructors that take a stream (the
  // allocating ones, a guard's); copies and moves are bindings, not rows.
  if (Ctor->isCopyOrMoveConstructor() ||
      (Found->second.Kind == OpKind::Allocate &&
       llvm::none_of(Ctor->parameters(), [&](const ParmVarDecl *P) {
         return isStreamType(P->getType());
       })))
    return std::nullopt;
  const ApiSignature *Sig = &Found->second;
  if (!fitsCallee(*Sig, Ctor)) {
    auto Builtin = Replaced.find(Found->first());
    if (Builtin == Replaced.end())
      return std::nullopt;
    Sig = &Builtin->second;
  }
  llvm::ArrayRef<const Expr *> Args(Construct->getArgs(),
                                    Construct->getNumArgs());
  return bind(*Sig, Construct, Ctor, Args, Construct);
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
  Op.BuffersInStruct = Sig.BufferInStruct;
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
    // Any parameter that is not a stream: overloads of owned-buffer
    // constructors (rmm's `(size, stream)`, `(size, alignment, stream)`,
    // `(value, stream)`) move the stream around too.
    bool KnownOther = !isStreamType(AtRow) && !AtRow->isDependentType();
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
    if ((!S || isa<CXXDefaultArgExpr>(S)) && Sig.MissingStreamIsCurrent)
      Op.StreamIsCurrent = true;
    else if (!S || isa<CXXDefaultArgExpr>(S))
      Op.StreamDefaulted = true;
    else
      Op.Stream = S;
  }
  }
  Op.Event = operand(Sig.Event);
  Op.Stream2 = operand(Sig.Stream2);
  Op.Flags = operand(Sig.Flags);
  if (Op.Flags && isa<CXXDefaultArgExpr>(Op.Flags))
    Op.Flags = nullptr;
  return Op;
}

llvm::StringRef calleeIdentifier(const CallExpr *Call) {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getDeclName().isIdentifier())
    return {};
  return Callee->getName();
}

const Expr *throughConversions(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreImplicit()->IgnoreParenCasts();
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() == 0 ||
        (Construct->getNumArgs() > 1 &&
         !isa<CXXDefaultArgExpr>(Construct->getArg(1))))
      return E;
    E = Construct->getArg(0);
  }
  return E;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
