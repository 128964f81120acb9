//===--- QueuePopOrder.h - streamlife ---------------------------*- C++ -*-===//
//
// The keepalive-queue discipline: N buffers in flight are held in a container
// (std::deque, std::vector, std::queue, ...) of entries that pair an owned
// buffer (at::Tensor, rmm::device_buffer, ...) with the event the consumer
// recorded after its last use. Removing the oldest entry (pop_front(), pop(),
// erase(begin())) releases its buffer, so the allocation stream must wait on
// that entry's event (or the host must sync it) first: wait-then-pop is
// clean, pop-then-wait is a free-before-wait.
//
// The buffers inside a container are not followed by the lifetime dataflow
// (a store into a container is an escape there); this is a separate, small
// forward analysis over the CFG with one bit per container: "its front entry
// has been waited on since it became the front".
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_QUEUEPOPORDER_H
#define STREAMLIFE_CHECKS_CLANG_QUEUEPOPORDER_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <string>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

/// A pop of a keepalive entry not preceded, on some path, by a wait on the
/// entry's event.
struct QueuePopFinding {
  const Expr *Pop = nullptr;
  /// The pop as written (`inFlight.pop_front()`).
  std::string PopText;
  /// A wait on the popped entry's event (through a copy taken before the
  /// pop) that comes after the pop; null when there is none.
  const Expr *LateWait = nullptr;
};

/// Runs the analysis over one function body.
std::vector<QueuePopFinding> findUnorderedQueuePops(const FunctionDecl *F,
                                                    ASTContext &Ctx);

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_QUEUEPOPORDER_H
