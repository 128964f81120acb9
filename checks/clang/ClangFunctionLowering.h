//===--- ClangFunctionLowering.h - streamlife -------------------*- C++ -*-===//
//
// Private to the clang lowering (ClangEntities.cpp, ClangOperations.cpp,
// ClangStatements.cpp, TranslationUnitIR.cpp): how a clang expression names
// an entity, and FunctionLowering, which lowers one function's clang::CFG.
// ClangLowering.h is the interface; nothing else includes this header.
//
//===----------------------------------------------------------------------===//

#ifndef STREAMLIFE_CHECKS_CLANG_CLANGFUNCTIONLOWERING_H
#define STREAMLIFE_CHECKS_CLANG_CLANGFUNCTIONLOWERING_H

#include "ClangLowering.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

using ir::NameId;
using ir::NoId;
using ir::StreamRef;

//===----------------------------------------------------------------------===//
// Entities (ClangEntities.cpp)
//===----------------------------------------------------------------------===//

/// A name in clang terms: a declaration, a member of it, a constant
/// element, the pointee of a pointer (`*out`), or the entries of a container
/// (`q[*]`) and their event (`q[*].event`).
struct EntityKey {
  /// A container's entries hold owned buffers and events: one name for
  /// every entry's buffers (the core's Store / TakeEntry), one for the
  /// latest event stored with them (waiting on it orders the older
  /// entries' uses as well).
  /// DeviceOf: the device of a tensor (`t.device()`), named for its
  /// current stream.
  enum PartTy : uint8_t { Whole, Entries, EntryEvent, DeviceOf };

  const ValueDecl *Base = nullptr;
  const ValueDecl *Member = nullptr;
  int64_t Index = -1;
  bool Deref = false;
  /// The value of a call or construction (before it is bound to a name).
  const Expr *Temporary = nullptr;
  PartTy Part = Whole;

  /// A declaration or a member of it: what a container can be.
  bool plain() const {
    return Index < 0 && !Deref && !Temporary && Part == Whole;
  }

  friend bool operator<(const EntityKey &A, const EntityKey &B) {
    return std::tie(A.Base, A.Member, A.Index, A.Deref, A.Temporary, A.Part) <
           std::tie(B.Base, B.Member, B.Index, B.Deref, B.Temporary, B.Part);
  }
};

/// A std smart pointer's `operator->` / `operator*` (`ev->record(s)`): the
/// smart pointer, which names the object; else \p E.
const Expr *throughSmartPointer(const Expr *E);
/// A span type: cuda::std::span, std::span, a library's device_span (not a
/// host_span): a non-owning view of a buffer's storage.
bool isSpanType(QualType T);
/// A parameter of a span type: a view of whatever buffer the caller passed,
/// which the caller maps to that buffer when it applies the function's
/// summary.
bool isSpanParameter(const Expr *E);
/// The entity \p E names: `p`, `obj.p`, `this->p`, `arr[2]`, `*out`.
std::optional<EntityKey> resolveEntity(const Expr *E, ASTContext &Ctx);
/// The expressions naming the buffers an operand refers to: looks through
/// pointer arithmetic, `&p[i]`, and `void *args[] = {&a, &b}` kernel
/// parameter arrays.
void collectBufferExprs(const Expr *E,
                        llvm::SmallVectorImpl<const Expr *> &Out);
/// The values the fields of a parameter struct operand hold at \p Call
/// (`&params` of a local struct: its initializer and the assignments to its
/// fields before the call in \p Function; `make_cudaPitchedPtr(buf, ...)`:
/// its pointer arguments). See ClangStructOperands.cpp.
void structFieldValues(const Expr *Operand, const Expr *Call,
                       const FunctionDecl *Function, ASTContext &Ctx,
                       llvm::SmallVectorImpl<const Expr *> &Out);
/// For Allocate: the buffer whose address is passed (`&p`, `(void **)&p`).
const Expr *addressee(const Expr *E);
/// The source text of \p E (its spelling inside a macro).
std::string sourceText(const Expr *E, ASTContext &Ctx);
/// The call or construction an initialiser / right-hand side evaluates to,
/// through the temporaries and conversions around it.
const Expr *valueCall(const Expr *E);

//===----------------------------------------------------------------------===//
// Lowering one function
//===----------------------------------------------------------------------===//

/// Lowers one function: names and streams (ClangEntities.cpp), devices
/// (ClangDevices.cpp), calls and the model's operations
/// (ClangOperations.cpp), containers of owned entries (ClangContainers.cpp),
/// statements, scope ends and the CFG walk (ClangStatements.cpp).
class FunctionLowering {
public:
  FunctionLowering(TranslationUnitIR &TU, const FunctionDecl *Function,
                   ir::FunctionId Id)
      : TU(TU), Ctx(TU.context()), Model(TU.model()), Function(Function),
        Id(Id) {}

  ir::Function lower();

private:
  // Names.
  NameId name(const EntityKey &Key, llvm::function_ref<std::string()> Spell);
  NameId entity(const Expr *E);
  NameId temporary(const Expr *E);
  NameId variable(const VarDecl *Var);
  StreamRef stream(const Expr *E, unsigned Depth = 0);
  // Devices and their current streams (ClangDevices.cpp).
  std::optional<EntityKey> deviceKey(const Expr *Device);
  /// Whether the local \p Var may hold another value than its initialiser's
  /// somewhere in the function (assigned, incremented, its address or a
  /// non-const reference taken).
  bool changedAfterInit(const VarDecl *Var);
  /// Whether the function assigns \p Var, changes it through a method or
  /// hands it on as non-const anywhere in its body.
  bool mutatedInBody(const VarDecl *Var);
  bool multiDevice();
  StreamRef deviceStream(const Expr *Device);
  StreamRef guardStream(const Expr *Device);
  StreamRef deviceStreamNamed(const EntityKey &Key);
  /// For a tensor's device (EntityKey::DeviceOf): the tensor's buffer name
  /// when it holds one tensor throughout the function (NameInfo::DeviceOf).
  NameId deviceTensor(const EntityKey &DeviceOf);

  // Elements.
  void lowerStmt(const Stmt *S);
  void lowerCall(const CallExpr *Call);
  void lowerOperation(const ApiOperation &Op, const Expr *Site);
  void lowerSummarizedCall(const CallExpr *Call, const FunctionDecl *Callee);
  void lowerOpaqueStreamCall(const CallExpr *Call);
  void lowerAssignment(NameId Target, QualType Type, const Expr *RHS,
                       const Stmt *Site);
  void lowerScopeEnd(const VarDecl *Var, SourceLocation Loc, bool Destructor);
  /// A CFG edge on which an owner is known to hold nothing.
  struct UndefinedEdge {
    unsigned From, To;
    NameId Owner;
    SourceLocation Loc;
  };
  std::optional<UndefinedEdge> undefinedEdge(const CFGBlock &Block);
  // PyTorch / RMM objects (see the section below).
  bool lowerObjectCall(const CallExpr *Call);
  void lowerTensorOp(const CallExpr *Call, TensorOpKind Kind);
  NameId valueName(const Expr *E);
  const Expr *throughAccessor(const Expr *E) const;
  // Containers of owned entries (ClangContainers.cpp).
  NameId entryName(const Expr *E);
  NameId containerPart(const Expr *Container, EntityKey::PartTy Part);
  bool lowerContainerCall(const CXXMemberCallExpr *Call, ContainerOp Op);
  void collectStored(const Expr *E, llvm::SmallVectorImpl<NameId> &Buffers,
                     llvm::SmallVectorImpl<NameId> *Events);
  void storeInto(NameId Entries, const Expr *Value, SourceLocation Loc);
  bool lowerEntryCopy(const ValueDecl *Target, QualType Type, const Expr *RHS,
                      const Stmt *Site);
  bool isEntries(NameId N) const { return EntriesNames.count(N) != 0; }
  bool isEntryPart(NameId N) const { return EntryParts.count(N) != 0; }

  ir::Inst &emit(ir::OpKind Kind, SourceLocation Loc) {
    ir::Inst I{Kind};
    I.Site = TU.site(Loc);
    Current->Insts.push_back(std::move(I));
    return Current->Insts.back();
  }

  TranslationUnitIR &TU;
  ASTContext &Ctx;
  const ApiModel &Model;
  const FunctionDecl *Function;
  ir::FunctionId Id;
  ir::Function Out;
  ir::Block *Current = nullptr;
  std::map<EntityKey, NameId> Names;
  /// Whether this function names two devices or more (see ClangDevices.cpp).
  std::optional<bool> MultiDevice;
  /// The current stream of each device named so far, by the device's key.
  std::map<EntityKey, NameId> DeviceStreams;
  /// changedAfterInit's answers, and the analyzer it asks (made once).
  llvm::DenseMap<const VarDecl *, bool> ChangedLocals;
  std::unique_ptr<ExprMutationAnalyzer> Mutations;
  /// The Entries names (targets of a store, not of a rebinding) and the
  /// EntryEvent name of each.
  llvm::DenseMap<NameId, NameId> EntriesNames;
  /// Both kinds of entry names: a copy out of them never moves.
  llvm::DenseSet<NameId> EntryParts;
  /// The names of calls' and constructions' values (temporary()).
  llvm::DenseSet<NameId> TemporaryNames;
};

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang

#endif // STREAMLIFE_CHECKS_CLANG_CLANGFUNCTIONLOWERING_H
