//===--- ClangEntities.cpp - streamlife -----------------------------------===//
//
// FunctionLowering, names: an expression names an entity the way
// use-after-move names a moved object, by declaration (`p`, `obj.p`,
// `this->p`, `arr[2]`, `*out`); the value of a call or construction is a
// temporary until it is bound. Streams are resolved here too: null is the
// translation unit's default stream, cudaStreamLegacy and
// cudaStreamPerThread the streams they name, the model's stream sources the
// current stream, local copies of a named stream that stream.
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

const Expr *throughSmartPointer(const Expr *E) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(E->IgnoreParenImpCasts());
  if (!Op || Op->getNumArgs() != 1 ||
      (Op->getOperator() != OO_Arrow && Op->getOperator() != OO_Star))
    return E;
  const CXXRecordDecl *Record =
      Op->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!Record || !Record->isInStdNamespace())
    return E;
  return Op->getArg(0);
}

std::optional<EntityKey> resolveEntity(const Expr *E, ASTContext &Ctx) {
  if (!E)
    return std::nullopt;
  // `ev->record(s)` with ev a std::unique_ptr / shared_ptr: ev.
  E = throughSmartPointer(E)->IgnoreParenCasts();
  // `std::move(x)` names x.
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && Call->isCallToStdMove() && Call->getNumArgs() == 1)
    return resolveEntity(Call->getArg(0), Ctx);
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

const Expr *addressee(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *Addr = dyn_cast<UnaryOperator>(E->IgnoreParenCasts());
  if (Addr && Addr->getOpcode() == UO_AddrOf)
    return Addr->getSubExpr();
  return nullptr;
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
  if (NameId Entry = entryName(E); Entry != NoId)
    return Entry;
  std::optional<EntityKey> Key = resolveEntity(E, Ctx);
  if (!Key)
    return NoId;
  return name(*Key, [&] { return sourceText(E->IgnoreParenCasts(), Ctx); });
}

NameId FunctionLowering::temporary(const Expr *E) {
  EntityKey Key;
  Key.Temporary = E;
  NameId N = name(Key, [] { return std::string(); }); // unnamed (see NameInfo)
  TemporaryNames.insert(N);
  return N;
}

NameId FunctionLowering::variable(const VarDecl *Var) {
  return name(EntityKey{Var}, [&] { return Var->getName().str(); });
}

StreamRef FunctionLowering::stream(const Expr *E, unsigned Depth) {
  if (!E)
    return StreamRef::unknown();
  const Expr *Bare = E->IgnoreParenCasts();
  // The null stream (0, nullptr) is the default stream of the translation
  // unit: the legacy one, or the per-thread one under nvcc's
  // --default-stream per-thread.
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(Bare))
    return TU.defaultStream();
  if (const auto *Literal = dyn_cast<IntegerLiteral>(Bare)) {
    // cudaStreamLegacy and CU_STREAM_LEGACY are ((cudaStream_t)0x1);
    // cudaStreamPerThread and CU_STREAM_PER_THREAD are ((cudaStream_t)0x2).
    uint64_t Value = Literal->getValue().getZExtValue();
    if (Value == 0)
      return TU.defaultStream();
    if (Value == 1)
      return StreamRef::legacy();
    if (Value == 2)
      return StreamRef::perThread();
    return StreamRef::unknown();
  }
  if (!E->isValueDependent() &&
      E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return TU.defaultStream();
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
    // getCurrentCUDAStream(d): device d's current stream.
    if (const Expr *Device = Model.streamSourceDevice(Call))
      return deviceStream(Device);
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
            Init.Kind == StreamRef::LegacyDefault ||
            Init.Kind == StreamRef::PerThread)
          return Init;
      }
  NameId N = entity(E);
  return N == NoId ? StreamRef::unknown() : StreamRef::named(N);
}

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

bool isSpanType(QualType T) {
  const CXXRecordDecl *Record = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Record || !Record->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = Record->getName();
  return Name == "span" || Name == "device_span";
}

bool isSpanParameter(const Expr *E) {
  const auto *Ref =
      dyn_cast<DeclRefExpr>(E->IgnoreImplicit()->IgnoreParenCasts());
  const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  return Param && isSpanType(Param->getType());
}

namespace {

/// The owned buffer whose storage a local view refers to (or the span
/// parameter it came in through, see isSpanParameter), or null. A view is
/// a local value built by a converting constructor from one owned buffer
/// (`device_span<T> view = v`, `cuda::std::span<T const>{v}`) or from another
/// view; `view.subspan(...)`, `view.first(n)` (a method returning the view's
/// own type) and `view.data()` (a pointer) still refer to that storage. A
/// view names no object of its own: what is done through it is done to the
/// buffer.
const Expr *viewedBuffer(const Expr *E, const ApiModel &Model,
                         unsigned Depth = 0) {
  if (!E || Depth > 6)
    return nullptr;
  E = E->IgnoreImplicit()->IgnoreParenCasts();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    if (!Method || !Object)
      return nullptr;
    if (Model.isBufferAccessor(Member))
      return Object; // `operator span()`, `data()` of the buffer itself
    QualType Returned = Method->getReturnType().getNonReferenceType();
    bool SameView = Returned->getAsCXXRecordDecl() &&
                    Returned->getAsCXXRecordDecl() ==
                        Object->getType()
                            .getNonReferenceType()
                            ->getAsCXXRecordDecl();
    if (!SameView && !Returned->isPointerType())
      return nullptr;
    return viewedBuffer(Object, Model, Depth + 1);
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() == 0 ||
        (Construct->getNumArgs() > 1 &&
         !isa<CXXDefaultArgExpr>(Construct->getArg(1))))
      return nullptr;
    const Expr *From = Construct->getArg(0)->IgnoreImplicit()->IgnoreParenCasts();
    if (!Construct->getConstructor()->isCopyOrMoveConstructor() &&
        Model.classOf(From->getType()) == ClassKind::OwnedBuffer)
      return From;
    return viewedBuffer(From, Model, Depth + 1);
  }
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return List->getNumInits() == 1
               ? viewedBuffer(List->getInit(0), Model, Depth + 1)
               : nullptr;
  if (isSpanParameter(E))
    return E;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) ||
      !Var->getInit() || Model.classOf(Var->getType()))
    return nullptr;
  return viewedBuffer(Var->getInit(), Model, Depth + 1);
}

} // namespace

const Expr *FunctionLowering::throughAccessor(const Expr *E) const {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(E->IgnoreParenCasts());
  if (Member && Model.isBufferAccessor(Member))
    return Member->getImplicitObjectArgument();
  // `t.storage().data_ptr()` (what the allocator's recordStream takes): a
  // tensor's storage is its block.
  if (const Expr *Tensor = Member ? Model.storageDataOwner(Member) : nullptr)
    return Tensor;
  if (Model.classOf(E->getType()))
    return E;
  if (const Expr *Buffer = viewedBuffer(E, Model))
    return Buffer;
  return E;
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
