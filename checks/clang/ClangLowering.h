//===--- ClangLowering.h - streamlife ---------------------------*- C++ -*-===//
//
// The clang front end of the analysis core: lowers a function's clang::CFG
// into the stream-operation IR (checks/core/StreamIR.h), driven by the API
// model's tables, and keeps the way back from IR sites to source locations.
//
// One TranslationUnitIR per translation unit and API model: it owns the IR
// Module (functions are lowered on demand, the callees of a function before
// it is analysed, through a worklist, and the callers of an internal
// function taking a stream too: see InternalCallSites.h) and the core
// Analyzer over it.
//
// The lowering is split by concern (ClangFunctionLowering.h is private to
// it): names and streams (ClangEntities.cpp), calls and the model's
// operations (ClangOperations.cpp), statements, scope ends and the CFG walk
// (ClangStatements.cpp), the translation unit's IR (TranslationUnitIR.cpp)
// and its cache across checks (TranslationUnitCache.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_CLANGLOWERING_H
#define STREAMLIFE_CHECKS_CLANG_CLANGLOWERING_H

#include "Analysis.h"
#include "ApiModel.h"
#include "StreamIR.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

namespace ir = ::streamlife::ir;
namespace core = ::streamlife::core;

class InternalCallSites;

class TranslationUnitIR {
public:
  TranslationUnitIR(ASTContext &Ctx, const ApiModel &Model);
  ~TranslationUnitIR();

  /// The findings of \p Function (a definition with a body): lowered and
  /// analysed on first request, cached afterwards. Functions that do nothing
  /// the model knows yield no findings without being lowered.
  const core::FunctionFindings &analyze(const FunctionDecl *Function);

  /// Whether \p Function was registered as the callee of a function
  /// analysed so far (so lowered, or known to do nothing).
  bool reached(const FunctionDecl *Function) const;
  /// Whether \p Function's body itself calls a modelled API, launches a
  /// kernel, constructs a modelled object or makes a tensor operation
  /// (calls to other functions of the translation unit not counted).
  bool hasDirectOperation(const FunctionDecl *Function) const;

  const ir::Module &module() const { return M; }
  /// Where a site is in the source (a call's start, a scope's closing brace
  /// for a release at scope exit).
  SourceLocation location(ir::SiteId Site) const;

  // Used by the lowering of one function.
  ir::SiteId site(SourceLocation Loc);
  ir::FunctionId functionId(const FunctionDecl *Definition);
  const FunctionDecl *summarizableCallee(const CallExpr *Call) const;
  /// Whether clang found compile errors in \p Function (its signature or
  /// body), or a fatal error anywhere in the translation unit: such a
  /// function is neither analysed nor summarised.
  bool hasCompileErrors(const FunctionDecl *Function) const;
  /// The stream a null stream handle, an omitted stream argument and a
  /// kernel launch without one mean in this translation unit: the
  /// per-thread default stream where CUDA_API_PER_THREAD_DEFAULT_STREAM is
  /// defined (what nvcc's --default-stream per-thread does, and what makes
  /// the CUDA headers call the *_ptsz entry points), else the legacy one.
  ir::StreamRef defaultStream() const { return DefaultStream; }
  ASTContext &context() const { return Ctx; }
  const ApiModel &model() const { return Model; }
  ir::Module &mutableModule() { return M; }

private:
  bool relevant(const FunctionDecl *Function, bool CountCallees = true) const;
  void lowerPending();
  void registerCallers(ir::FunctionId Id);
  void markCallerStreams();

  ASTContext &Ctx;
  const ApiModel &Model;
  ir::Module M;
  std::vector<SourceLocation> SiteLocations;
  llvm::DenseMap<SourceLocation, ir::SiteId> SiteIds;
  llvm::DenseMap<const FunctionDecl *, ir::FunctionId> FunctionIds;
  std::vector<const FunctionDecl *> Decls; ///< By FunctionId.
  std::vector<ir::FunctionId> Pending;     ///< Registered, not yet lowered.
  mutable llvm::DenseMap<const FunctionDecl *, bool> Direct;
  mutable llvm::DenseMap<const FunctionDecl *, bool> WithErrors;
  /// The calls of the main file's internal functions taking a stream, and
  /// which of those functions, lowered since the last marking, have how
  /// many (NoCount: a call not seen); those whose calls are all lowered.
  std::unique_ptr<InternalCallSites> CallSites;
  static constexpr unsigned NoCount = ~0u;
  std::vector<std::pair<ir::FunctionId, unsigned>> Unmarked;
  llvm::DenseSet<ir::FunctionId> AllCallsSeen;
  std::unique_ptr<core::Analyzer> Engine;
  core::FunctionFindings None;
  ir::StreamRef DefaultStream;
};

/// The per-translation-unit IR for \p Model, created on first use and shared
/// by the checks with the same model; \p User (a check) is recorded as
/// using it. Dropped when every user has called
/// releaseLifetimeAnalysisCache at the end of the translation unit (the
/// checks analyse functions of headers then, so the first check to end
/// must not drop what the others still use), or by
/// clearLifetimeAnalysisCache.
TranslationUnitIR &translationUnitIR(ASTContext &Ctx, const ApiModel &Model,
                                     const void *User = nullptr);
/// The IR of \p Ctx and \p Model if it exists, else null.
TranslationUnitIR *existingTranslationUnitIR(const ASTContext &Ctx,
                                             const ApiModel &Model);
void releaseLifetimeAnalysisCache(const void *User);
void clearLifetimeAnalysisCache();

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_CLANGLOWERING_H
