//===--- RecordStreamCallGraph.h - streamlife -------------------*- C++ -*-===//
//
// The function bodies of a translation unit as the call graph that
// streamlife-record-stream-in-loop searches through calls
// (core/RecordStreamReach.h): for each function, its record_stream calls
// (outside or inside its own loops) and the calls it makes to functions the
// unit defines. Bodies are read once each, when a loop's call first reaches
// them; system headers' functions are not read.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_RECORDSTREAMCALLGRAPH_H
#define STREAMLIFE_CHECKS_CLANG_RECORDSTREAMCALLGRAPH_H

#include "RecordStreamReach.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

namespace core = ::streamlife::core;

/// Whether \p Call hands a buffer to the allocator like record_stream: its
/// callee's qualified name is one of \p Functions.
bool isRecordStreamCall(const CallExpr *Call, const llvm::StringSet<> &Functions);

/// The receiver of a record_stream call as written: the tensor a member call
/// is made on, else the first argument ("<buffer>" when there is none).
std::string recordedBuffer(const CallExpr *Call, const SourceManager &SM,
                           const LangOptions &LangOpts);

class RecordStreamCallGraph {
public:
  using Node = const FunctionDecl *;
  using Site = SourceLocation;

  RecordStreamCallGraph(const llvm::StringSet<> &Functions,
                        const SourceManager &SM, const LangOptions &LangOpts)
      : Functions(Functions), SM(SM), LangOpts(LangOpts) {}

  /// The definition of the function \p Call runs when the unit has its body
  /// outside system headers and it is no record_stream function; else null.
  const FunctionDecl *definedCallee(const CallExpr *Call) const;

  bool recordsInLoop(Node F) { return scan(F).RecordsInLoop; }
  const core::RecordStreamCall<Site> *record(Node F) {
    const Scanned &S = scan(F);
    return S.Record ? &*S.Record : nullptr;
  }
  template <typename Visit> void forEachCall(Node F, Visit Fn) {
    for (const Scanned::Call &C : scan(F).Calls)
      Fn(C.Callee, C.At, C.InLoop);
  }
  std::string name(Node F) const { return F->getQualifiedNameAsString(); }

  /// What a function body holds for the search, read once.
  struct Scanned {
    bool RecordsInLoop = false;
    std::optional<core::RecordStreamCall<Site>> Record;
    struct Call {
      Node Callee;
      Site At;
      bool InLoop;
    };
    std::vector<Call> Calls;
  };

private:
  const Scanned &scan(Node F);

  const llvm::StringSet<> &Functions;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  llvm::DenseMap<Node, std::unique_ptr<Scanned>> Bodies;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_RECORDSTREAMCALLGRAPH_H
