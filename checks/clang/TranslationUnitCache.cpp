//===--- TranslationUnitCache.cpp - streamlife ----------------------------===//
//
// The per-translation-unit cache of TranslationUnitIR (see ClangLowering.h):
// one IR per API model, shared by the checks with that model, dropped when
// the last of them ends the translation unit.
//
//===----------------------------------------------------------------------===//

#include "ClangLowering.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <map>
#include <string>

namespace clang {
namespace tidy {
namespace streamlife {

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
