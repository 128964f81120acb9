//===--- StreamlifeTidyModule.cpp - streamlife
//-----------------------------===//
//
// Registers the streamlife checks as a clang-tidy module. Linking this
// object (the plugin, or the `streamlife check` CLI) is what makes the checks
// available: the static registry entry below runs at load time.
//
//===----------------------------------------------------------------------===//

#include "FreeBeforeWaitCheck.h"
#include "MissingConsumerEventCheck.h"
#include "RecordStreamInLoopCheck.h"
#include "UseBeforeAllocCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "llvm/Config/llvm-config.h"
#if LLVM_VERSION_MAJOR < 22
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

namespace clang {
namespace tidy {
namespace streamlife {

class StreamlifeModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &CheckFactories) override {
    // One check class per rule of the catalog, named after the rule.
#define STREAMLIFE_RULE(Id, Name, Summary, Description)                        \
  CheckFactories.registerCheck<Id##Check>(Name);
#include "Rules.inc"
  }
};

} // namespace streamlife

static ClangTidyModuleRegistry::Add<streamlife::StreamlifeModule>
    X("streamlife-module", "Cross-stream buffer lifetime checks for CUDA.");

/// Anchor for tools that link the objects statically and must keep this
/// translation unit (see ClangTidyForceLinker.h for the pattern).
volatile int StreamlifeModuleAnchorSource = 0;

} // namespace tidy
} // namespace clang
