//===--- ApiModel.h - streamlife --------------------------------*- C++ -*-===//
//
// Classifies calls to the CUDA runtime and driver APIs (and user-declared
// wrappers) into the abstract stream operations the lifetime analysis reasons
// about. It plays the role of the Static Analyzer's MPIFunctionClassifier: the
// dataflow never looks at a function name, only at an ApiOperation.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_APIMODEL_H
#define STREAMLIFE_CHECKS_APIMODEL_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
namespace tidy {
namespace streamlife {

/// What a call does to buffers, streams and events, in stream-order terms.
enum class OpKind {
  Allocate,        ///< Buffer (through its address) allocated on Stream.
  Use,             ///< Buffers read or written by work enqueued on Stream.
  RecordEvent,     ///< Event captures the work enqueued so far on Stream.
  StreamWaitEvent, ///< Later work on Stream waits for Event.
  SyncStream,      ///< The host waits for all work on Stream.
  SyncEvent,       ///< The host waits for Event.
  SyncDevice,      ///< The host waits for all work on the device.
  Release,         ///< Buffer returned to the allocator, ordered on Stream.
  ReleaseSync,     ///< Buffer released after an implicit device sync.
  RecordStream,    ///< The allocator is told Stream also uses Buffer.
  CreateStream,    ///< Stream (through its address) created; Flags says how.
};

/// How the operands of one API are found in its argument list. One row of
/// the data-driven API table; -1 means "no such operand".
struct ApiSignature {
  OpKind Kind;
  int Buffer = -1;    ///< Buffer operand (for Allocate: the address of it).
  int Buffer2 = -1;   ///< Second buffer operand (copies: the source).
  int Stream = -1;    ///< Stream operand (for CreateStream: its address).
  int Event = -1;     ///< Event operand.
  int Flags = -1;     ///< Stream creation flags (CreateStream only).
  int ArgsArray = -1; ///< A `void *args[]` kernel parameter array.
};

/// One abstract operation with its operand expressions taken from a call.
/// Missing operands are null; a missing stream of an API that has a stream
/// parameter is the legacy default stream (the CUDA default argument).
struct ApiOperation {
  OpKind Kind;
  const Expr *Call = nullptr;
  llvm::SmallVector<const Expr *, 2> Buffers;
  const Expr *Stream = nullptr;
  bool StreamDefaulted = false; ///< The stream argument was left out.
  const Expr *Event = nullptr;
  const Expr *Flags = nullptr;
};

/// Maps calls to abstract operations. Built once per check from the built-in
/// tables plus the user's extra rows (check options).
class ApiModel {
public:
  ApiModel();

  /// Adds user rows such as "myFree:0:1" (name:buffer-arg:stream-arg) for
  /// Kind; entries are separated by ';'. Returns false on a malformed entry.
  bool addUserFunctions(OpKind Kind, llvm::StringRef Spec);

  /// Returns the operation a call performs, or nothing for calls the model
  /// does not know. Kernel launches (`k<<<g, b, smem, s>>>(args)`) are uses.
  std::optional<ApiOperation> classify(const CallExpr *Call) const;

  /// True if \p Name (after stripping _v2/_ptsz/_ptds) is a modelled API.
  bool isModelled(llvm::StringRef Name) const;

  /// A stable description of the table, to tell apart differently
  /// configured models that share an analysis cache.
  const std::string &fingerprint() const { return Fingerprint; }

  /// The API name without the versioning suffixes the CUDA headers add
  /// through macros (cuMemFree -> cuMemFree_v2, cudaMemcpyAsync_ptsz, ...).
  static llvm::StringRef canonicalName(llvm::StringRef Name);

private:
  void add(llvm::StringRef Name, ApiSignature Sig);
  llvm::StringMap<ApiSignature> Table;
  std::string Fingerprint;
};

} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_APIMODEL_H
