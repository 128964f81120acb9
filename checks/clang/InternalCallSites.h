//===--- InternalCallSites.h - streamlife -----------------------*- C++ -*-===//
//
// Private to the clang lowering (TranslationUnitIR.cpp): where the main
// file's internal functions that take a stream are called. The lowering
// reads a translation unit lazily, from the function being checked down to
// its callees, so a helper's callers are not in the IR when the helper is
// analysed; the caller-streams rule (core/CallerStreams.h) needs them. This
// index names them, from one walk of the main file's declarations made the
// first time such a helper is lowered, and the lowering lowers them before
// the helper is analysed: each function is still lowered once.
//
// Only functions of internal linkage (static, in an anonymous namespace)
// are indexed: every call of one is in this translation unit. A function of
// external linkage may be called from another with any stream, however this
// file calls it. (Found on held-out code: NVIDIA/Fuser's
// prepareAlltoallvMetadataGpu, in an anonymous namespace, is handed the
// current stream by both of its callers.)
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_INTERNALCALLSITES_H
#define STREAMLIFE_CHECKS_CLANG_INTERNALCALLSITES_H

#include "ApiModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace clang {
namespace tidy {
namespace streamlife {

class InternalCallSites {
public:
  /// The direct calls of one function.
  struct Calls {
    /// The definitions whose bodies make them (once per call; calls of a
    /// function from its own body are left out, as the lowering leaves
    /// them out).
    llvm::SmallVector<const FunctionDecl *, 4> Callers;
    /// Some reference is not a direct call from a function body the
    /// lowering lowers: its address is taken, it is called from a lambda,
    /// a template's pattern, an initializer outside a function, or as an
    /// overloaded operator. Calls made that way pass streams not seen.
    bool Unseen = false;
  };

  InternalCallSites(ASTContext &Ctx, const ApiModel &Model)
      : Ctx(Ctx), Model(Model) {}

  /// The calls of \p Definition when every call of it is in the main file
  /// (a function of internal linkage declared there, not virtual) and it
  /// takes a stream; else nothing.
  std::optional<Calls> callsOf(const FunctionDecl *Definition);

private:
  bool indexed(const FunctionDecl *Function) const;
  void walkMainFile();

  ASTContext &Ctx;
  const ApiModel &Model;
  bool Walked = false;
  /// By canonical declaration.
  llvm::DenseMap<const FunctionDecl *, Calls> ByCallee;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_INTERNALCALLSITES_H
