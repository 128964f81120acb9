//===--- ClangContainers.cpp - streamlife ---------------------------------===//
//
// FunctionLowering, containers of owned entries (the N-deep keepalive queue):
// a tensor or rmm buffer stored into a std::deque, std::vector, std::queue,
// ... lives until its entry is taken out, and taking the oldest entry out
// (`pop_front()`, a queue's `pop()`, `erase(begin())`) releases it. So
//
//   inFlight.push_back(InFlight{params, forward(params, compute)});
//   ...
//   inFlight.front().done.block(ag);   // wait first ...
//   inFlight.pop_front();              // ... then release
//
// is clean and a pop before the wait is flagged at the pop. As in the Python
// front end (PythonContainers.cpp), a container's entries are one name
// `q[*]` (the core's Store / TakeEntry) and their events one name
// `q[*].event`, which holds the latest event stored (it covers the older
// entries' uses as well). An entry is named by `q.front()`, `q.back()`,
// `q[i]`, `q.at(i)`, `*q.begin()` and the fields of those; a reference or
// copy of an entry's field (`auto &dst = v.back().t`) shares its object.
// Leaving the function does not drop the entries: whether a drained queue is
// empty there is a path condition the analysis does not track.
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"
#include "clang/AST/ExprCXX.h"

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

namespace {

/// `std::move(x)`, `std::get<I>(x)`, `std::ref(x)`: x.
const Expr *throughStdAccess(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->isInStdNamespace() ||
      !Callee->getDeclName().isIdentifier() || Call->getNumArgs() != 1)
    return nullptr;
  StringRef Name = Callee->getName();
  if (Name == "move" || Name == "get" || Name == "ref" || Name == "cref")
    return Call->getArg(0);
  return nullptr;
}

} // namespace

NameId FunctionLowering::containerPart(const Expr *Container,
                                       EntityKey::PartTy Part) {
  std::optional<EntityKey> Key = resolveEntity(Container, Ctx);
  if (!Key || !Key->plain())
    return NoId;
  EntityKey Entries = *Key;
  Entries.Part = EntityKey::Entries;
  std::string Spelling = sourceText(Container->IgnoreParenImpCasts(), Ctx);
  NameId EntriesName = name(Entries, [&] { return Spelling + "[*]"; });
  TU.mutableModule().Names[EntriesName].OneEntry = true;
  EntityKey Event = *Key;
  Event.Part = EntityKey::EntryEvent;
  NameId EventName = name(Event, [&] { return Spelling + "[*].event"; });
  EntriesNames.try_emplace(EntriesName, EventName);
  EntryParts.insert(EntriesName);
  EntryParts.insert(EventName);
  return Part == EntityKey::EntryEvent ? EventName : EntriesName;
}

NameId FunctionLowering::entryName(const Expr *E) {
  if (!E)
    return NoId;
  E = throughSmartPointer(E);
  EntityKey::PartTy Part;
  if (Model.holdsEvent(E->getType()))
    Part = EntityKey::EntryEvent;
  else if (Model.holdsOwnedBuffer(E->getType()))
    Part = EntityKey::Entries;
  else
    return NoId;
  // Down through fields and std::get to the entry access.
  const Expr *Cur = E;
  for (unsigned Depth = 0; Cur && Depth < 8; ++Depth) {
    Cur = Cur->IgnoreParenImpCasts();
    if (const Expr *Container = Model.entryContainer(Cur))
      return containerPart(Container, Part);
    if (const auto *Member = dyn_cast<MemberExpr>(Cur)) {
      if (!isa<FieldDecl>(Member->getMemberDecl()) || Member->isArrow())
        return NoId;
      Cur = Member->getBase();
      continue;
    }
    Cur = throughStdAccess(Cur);
  }
  return NoId;
}

void FunctionLowering::collectStored(const Expr *E,
                                     llvm::SmallVectorImpl<NameId> &Buffers,
                                     llvm::SmallVectorImpl<NameId> *Events) {
  if (!E)
    return;
  // Temporaries, casts and bindings can nest in any order (`Entry{t, e}` is
  // a cast of a bound init list).
  for (const Expr *Prev = nullptr; Prev != E;) {
    Prev = E;
    E = E->IgnoreImplicit()->IgnoreParenCasts();
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // A copy or move is its source; an entry built from parts (a struct,
    // a pair) holds what its parts name. A buffer or event constructed
    // here is itself the value.
    bool Copy = Construct->getNumArgs() == 1 &&
                Construct->getConstructor()->isCopyOrMoveConstructor();
    if (Copy || (!Model.classOf(E->getType()) &&
                 !Model.isEventType(E->getType()))) {
      for (const Expr *Arg : Construct->arguments())
        collectStored(Arg, Buffers, Events);
      return;
    }
  }
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Arg : Init->inits())
      collectStored(Arg, Buffers, Events);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E); Call && Call->isCallToStdMove())
    return collectStored(Call->getArg(0), Buffers, Events);
  if (Model.classOf(E->getType()) == ClassKind::OwnedBuffer) {
    if (NameId N = valueName(E); N != NoId)
      Buffers.push_back(N);
  } else if (Events && Model.isEventType(E->getType())) {
    if (NameId N = valueName(E); N != NoId)
      Events->push_back(N);
  }
}

void FunctionLowering::storeInto(NameId Entries, const Expr *Value,
                                 SourceLocation Loc) {
  llvm::SmallVector<NameId, 2> Buffers, Events;
  collectStored(Value, Buffers, &Events);
  if (!Buffers.empty()) {
    ir::Inst &Store = emit(ir::OpKind::Store, Loc);
    Store.Names.push_back(Entries);
    Store.Names.append(Buffers.begin(), Buffers.end());
    // A value made in place (`push_back({at::empty(...), 0})`: C++17 elides
    // the copy into the entry, so no temporary is destroyed later) has the
    // entry as its only owner from here on.
    for (NameId Buffer : Buffers)
      if (TemporaryNames.count(Buffer)) {
        ir::Inst &Kill = emit(ir::OpKind::Kill, Loc);
        Kill.Names.push_back(Buffer);
      }
  }
  NameId EntryEvent = EntriesNames.lookup(Entries);
  for (NameId Event : Events) {
    ir::Inst &Bind = emit(ir::OpKind::Bind, Loc);
    Bind.Names = {EntryEvent, Event};
    Bind.Value = ir::ValueKind::Event;
  }
}

bool FunctionLowering::lowerContainerCall(const CXXMemberCallExpr *Call,
                                          ContainerOp Op) {
  NameId Entries =
      containerPart(Call->getImplicitObjectArgument(), EntityKey::Entries);
  if (Entries == NoId)
    return false;
  SourceLocation Loc = Call->getBeginLoc();
  switch (Op) {
  case ContainerOp::Store:
    for (const Expr *Arg : Call->arguments())
      storeInto(Entries, Arg, Loc);
    return true;
  case ContainerOp::TakeOldest:
  case ContainerOp::TakeNewest: {
    // The entry taken out is destroyed at once: its buffer is released
    // here, when this was its last owner.
    NameId Taken = temporary(Call);
    TU.mutableModule().Names[Taken].Spelling = sourceText(Call, Ctx);
    ir::Inst &Take = emit(ir::OpKind::TakeEntry, Loc);
    Take.Names = {Taken, Entries};
    Take.Oldest = Op == ContainerOp::TakeOldest;
    ir::Inst &Kill = emit(ir::OpKind::Kill, Loc);
    Kill.Names.push_back(Taken);
    return true;
  }
  case ContainerOp::Clear: {
    ir::Inst &Kill = emit(ir::OpKind::Kill, Loc);
    Kill.Names.push_back(Entries);
    return true;
  }
  case ContainerOp::None:
    break;
  }
  return false;
}

bool FunctionLowering::lowerEntryCopy(const ValueDecl *Target, QualType Type,
                                      const Expr *RHS, const Stmt *Site) {
  // `InFlight oldest = std::move(q.front());`, `auto &e = q.front();`: the
  // variable's fields share the entries' objects and event. A move leaves
  // the entry empty, but the buffer is still released only when its last
  // owner goes, so a move is a copy here.
  const CXXRecordDecl *Record =
      Type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Target || !RHS || !Record || !Record->hasDefinition() ||
      Model.classOf(Type) || Model.isEventType(Type))
    return false;
  const Expr *From = RHS;
  for (unsigned Depth = 0; From && Depth < 4; ++Depth) {
    From = From->IgnoreImplicit()->IgnoreParenCasts();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(From);
        Construct && Construct->getNumArgs() == 1 &&
        Construct->getConstructor()->isCopyOrMoveConstructor()) {
      From = Construct->getArg(0);
      continue;
    }
    if (const Expr *Inner = throughStdAccess(From)) {
      From = Inner;
      continue;
    }
    break;
  }
  const Expr *Container = From ? Model.entryContainer(From) : nullptr;
  if (!Container)
    return false;
  NameId Entries = containerPart(Container, EntityKey::Entries);
  if (Entries == NoId)
    return false;
  for (const FieldDecl *Field : Record->fields()) {
    bool Buffer = Model.holdsOwnedBuffer(Field->getType());
    if (!Buffer && !Model.holdsEvent(Field->getType()))
      continue;
    EntityKey Key{Target, Field};
    NameId FieldName = name(Key, [&] {
      return (Target->getName() + "." + Field->getName()).str();
    });
    ir::Inst &Bind = emit(ir::OpKind::Bind, Site->getBeginLoc());
    Bind.Names = {FieldName, Buffer ? Entries : EntriesNames.lookup(Entries)};
    Bind.Value = Buffer ? ir::ValueKind::Buffer : ir::ValueKind::Event;
  }
  return true;
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
