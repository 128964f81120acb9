//===--- TranslationUnitIR.cpp - streamlife -------------------------------===//
//
// The IR of one translation unit (see ClangLowering.h): sites and their
// source locations, function ids, the relevance pre-filter, the worklist
// that lowers each function's callees before it is analysed (and the
// callers of an internal function taking a stream), and the marking of the
// stream parameters every caller passes its current stream for.
//
//===----------------------------------------------------------------------===//

#include "CallerStreams.h"
#include "ClangFunctionLowering.h"
#include "InternalCallSites.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

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
        TU.model().tensorOp(Call) || handsStreamAndBuffer(Call)) {
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
  /// A call handed a stream and an owned buffer or a span (a helper of
  /// another translation unit working on the buffer on that stream, see
  /// lowerOpaqueStreamCall): its function's summary has that use.
  bool handsStreamAndBuffer(const CallExpr *Call) const {
    bool Stream = false, Buffer = false;
    for (const Expr *Arg : Call->arguments()) {
      QualType T = Arg->getType().getNonReferenceType();
      if (TU.model().isStreamType(T)) {
        Stream = true;
        continue;
      }
      if (TU.model().classOf(T) == ClassKind::OwnedBuffer ||
          lowering::isSpanType(T))
        Buffer = true;
    }
    return Stream && Buffer;
  }

  const TranslationUnitIR &TU;
  const FunctionDecl *Function;
  bool CountCallees;
};

/// Whether a function body holds what clang kept of code with compile
/// errors: an expression built in recovery (a call to an undeclared
/// function, a wrong argument count) or an invalid declaration. Such a
/// body is not analysed: its operations are not what the author wrote.
class ErrorScan : public RecursiveASTVisitor<ErrorScan> {
public:
  bool shouldVisitLambdaBodies() const { return true; }
  bool VisitExpr(Expr *E) {
    if (E->containsErrors())
      Found = true;
    return !Found;
  }
  bool VisitDecl(Decl *D) {
    if (D->isInvalidDecl())
      Found = true;
    return !Found;
  }
  bool Found = false;
};

} // namespace

/// See TranslationUnitIR::defaultStream. The macro is read at the end of
/// the translation unit, where the checks run (a source that defines it
/// before including the CUDA headers counts too).
static bool perThreadDefaultStream(const ASTContext &Ctx) {
  if (Ctx.getLangOpts().GPUDefaultStream ==
      LangOptions::GPUDefaultStreamKind::PerThread)
    return true;
  auto Macro = Ctx.Idents.find("CUDA_API_PER_THREAD_DEFAULT_STREAM");
  return Macro != Ctx.Idents.end() && Macro->second->hasMacroDefinition();
}

TranslationUnitIR::TranslationUnitIR(ASTContext &Ctx, const ApiModel &Model)
    : Ctx(Ctx), Model(Model),
      CallSites(std::make_unique<InternalCallSites>(Ctx, Model)),
      Engine(std::make_unique<core::Analyzer>(M)),
      DefaultStream(perThreadDefaultStream(Ctx) ? ir::StreamRef::perThread()
                                                : ir::StreamRef::legacy()) {}

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
  // A virtual call runs whichever override the object has: the body here
  // (often a base class's that only fails) says nothing about it.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    if (const auto *Method = Member->getMethodDecl();
        Method && Method->isVirtual() && !Method->hasAttr<FinalAttr>() &&
        !Method->getParent()->hasAttr<FinalAttr>())
      if (const auto *Access =
              dyn_cast<MemberExpr>(Member->getCallee()->IgnoreParens());
          Access && !Access->hasQualifier())
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
  // A callee whose body has errors has no trustworthy summary: the call is
  // an unknown call.
  if (hasCompileErrors(Definition))
    return nullptr;
  return Definition;
}

bool TranslationUnitIR::hasCompileErrors(const FunctionDecl *Function) const {
  const DiagnosticsEngine &Diagnostics = Ctx.getDiagnostics();
  if (!Diagnostics.hasUncompilableErrorOccurred())
    return false;
  // After a fatal error (a missing include) clang reports nothing more, and
  // the code that needed the include is not recognisable as broken.
  if (Diagnostics.hasFatalErrorOccurred())
    return true;
  auto [It, Inserted] = WithErrors.try_emplace(Function, false);
  if (Inserted) {
    ErrorScan Scan;
    Scan.TraverseDecl(const_cast<FunctionDecl *>(Function));
    It->second = Scan.Found;
  }
  return It->second;
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
    ir::Function Lowered = lowering::FunctionLowering(*this, Function, Id).lower();
    // For developers of the lowering: STREAMLIFE_DEBUG_IR=1 prints every
    // function's IR as it is lowered (the unit tests' dump format).
    static const bool DebugIR = std::getenv("STREAMLIFE_DEBUG_IR") != nullptr;
    if (DebugIR)
      llvm::errs() << ir::dump(M, Lowered) << "\n";
    M.Functions[Id] = std::move(Lowered);
    registerCallers(Id);
  }
  markCallerStreams();
}

void TranslationUnitIR::registerCallers(ir::FunctionId Id) {
  std::optional<InternalCallSites::Calls> Calls = CallSites->callsOf(Decls[Id]);
  if (!Calls)
    return;
  unsigned Count = Calls->Unseen ? NoCount : Calls->Callers.size();
  for (const FunctionDecl *Caller : Calls->Callers) {
    // A caller with compile errors is neither analysed nor lowered.
    if (hasCompileErrors(Caller)) {
      Count = NoCount;
      break;
    }
    functionId(Caller); // lowered by the worklist, before any analysis
  }
  Unmarked.emplace_back(Id, Count);
}

void TranslationUnitIR::markCallerStreams() {
  if (Unmarked.empty())
    return;
  // The lowering may leave a call out (a caller it could not lower): only
  // a function whose every call the walk found is in the IR counts.
  llvm::DenseMap<ir::FunctionId, unsigned> Lowered;
  for (const auto &[Id, Count] : Unmarked)
    Lowered[Id] = 0;
  for (const ir::Function &Caller : M.Functions)
    for (const ir::Block &B : Caller.Blocks)
      for (const ir::Inst &I : B.Insts)
        if (I.Kind == ir::OpKind::Call)
          if (auto Found = Lowered.find(I.Callee); Found != Lowered.end())
            ++Found->second;
  for (const auto &[Id, Count] : Unmarked)
    if (Count != NoCount && Count == Lowered[Id])
      AllCallsSeen.insert(Id);
  Unmarked.clear();
  // Before any of them is analysed: the marks are read at the entry of its
  // analysis and of its summary.
  core::markCurrentStreamParameters(
      M, [](ir::FunctionId Id) { return Id; },
      [&](ir::FunctionId Id) { return AllCallsSeen.contains(Id); });
}

const core::FunctionFindings &
TranslationUnitIR::analyze(const FunctionDecl *Function) {
  if (!Function->hasBody() || Function->isTemplated())
    return None;
  const FunctionDecl *Definition = Function->getDefinition();
  // In a file with compile errors the functions that parse are analysed, as
  // clang-tidy checks them: one error elsewhere does not hide their findings.
  if (!Definition || hasCompileErrors(Definition))
    return None;
  if (!FunctionIds.count(Definition) && !relevant(Definition))
    return None;
  ir::FunctionId Id = functionId(Definition);
  lowerPending();
  return Engine->findings(Id);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
