//===--- ApiModelContainers.cpp - streamlife ------------------------------===//
//
// The standard containers of the API model: which sequence containers hold
// owned buffers in their entries (a deque of tensors, a vector of structs
// pairing a tensor with its event), what their members do to the entries,
// and which expressions name one entry. The lowering stores into, takes
// from and names the entries through these answers only.
//
//===----------------------------------------------------------------------===//

#include "ApiModel.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

const ClassTemplateSpecializationDecl *stdSpecialization(QualType T) {
  if (T.isNull())
    return nullptr;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  return Spec && Spec->isInStdNamespace() ? Spec : nullptr;
}

/// The first template type argument of a std specialization.
QualType firstTypeArgument(const ClassTemplateSpecializationDecl *Spec) {
  if (!Spec || Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return QualType();
  return Spec->getTemplateArgs()[0].getAsType();
}

/// optional<T>, shared_ptr<T>, unique_ptr<T>, reference_wrapper<T>: T.
QualType throughWrappers(QualType T) {
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const ClassTemplateSpecializationDecl *Spec = stdSpecialization(T);
    if (!Spec || !llvm::is_contained(
                     std::initializer_list<StringRef>{
                         "optional", "shared_ptr", "unique_ptr",
                         "reference_wrapper"},
                     Spec->getName()))
      return T;
    T = firstTypeArgument(Spec);
  }
  return T;
}

/// The sequence containers whose entries the lowering follows, and how
/// `pop()` takes from each.
enum class Sequence { None, Deque, Vector, List, Queue, Stack };

Sequence sequenceOf(QualType Container) {
  const ClassTemplateSpecializationDecl *Spec = stdSpecialization(Container);
  if (!Spec)
    return Sequence::None;
  return llvm::StringSwitch<Sequence>(Spec->getName())
      .Case("deque", Sequence::Deque)
      .Case("vector", Sequence::Vector)
      .Cases({"list", "forward_list"}, Sequence::List)
      .Case("queue", Sequence::Queue)
      .Case("stack", Sequence::Stack)
      .Default(Sequence::None);
}

/// The declaration an object expression names (`q`, `this->q`, `s.q`).
const ValueDecl *declOf(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

/// `q.begin()` / `q.cbegin()` of the container \p Object names.
bool isBeginOf(const Expr *E, const Expr *Object) {
  const auto *Begin = dyn_cast<CXXMemberCallExpr>(E->IgnoreImplicit());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E->IgnoreImplicit());
      Construct && Construct->getNumArgs() == 1) // iterator -> const_iterator
    Begin = dyn_cast<CXXMemberCallExpr>(Construct->getArg(0)->IgnoreImplicit());
  StringRef Name = calleeIdentifier(Begin);
  if (Name != "begin" && Name != "cbegin")
    return false;
  const ValueDecl *Container = declOf(Begin->getImplicitObjectArgument());
  return Container && Container == declOf(Object);
}

} // namespace

bool ApiModel::holdsOwnedBuffer(QualType T) const {
  return classOf(throughWrappers(T)) == ClassKind::OwnedBuffer;
}

bool ApiModel::holdsEvent(QualType T) const {
  return isEventType(throughWrappers(T));
}

bool ApiModel::holdsStreams(QualType T) const {
  QualType Entry = firstTypeArgument(stdSpecialization(T));
  return !Entry.isNull() && isStreamType(Entry);
}

bool ApiModel::holdsOwnedEntries(QualType Container) const {
  if (sequenceOf(Container) == Sequence::None)
    return false;
  QualType Entry = firstTypeArgument(stdSpecialization(Container));
  if (Entry.isNull())
    return false;
  if (holdsOwnedBuffer(Entry))
    return true;
  const CXXRecordDecl *Record =
      Entry.getCanonicalType()->getAsCXXRecordDecl();
  if (!Record || !Record->hasDefinition())
    return false;
  // std::pair / std::tuple: their type arguments; a struct: its fields.
  if (const auto *Spec = stdSpecialization(Entry);
      Spec && (Spec->getName() == "pair" || Spec->getName() == "tuple")) {
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
      if (Arg.getKind() == TemplateArgument::Type &&
          holdsOwnedBuffer(Arg.getAsType()))
        return true;
      if (Arg.getKind() == TemplateArgument::Pack)
        for (const TemplateArgument &Packed : Arg.pack_elements())
          if (Packed.getKind() == TemplateArgument::Type &&
              holdsOwnedBuffer(Packed.getAsType()))
            return true;
    }
    return false;
  }
  return llvm::any_of(Record->fields(), [&](const FieldDecl *Field) {
    return holdsOwnedBuffer(Field->getType());
  });
}

ContainerOp ApiModel::containerOp(const CXXMemberCallExpr *Call) const {
  StringRef Name = calleeIdentifier(Call);
  if (Name.empty())
    return ContainerOp::None;
  const Expr *Object = Call->getImplicitObjectArgument();
  QualType Type = Object->getType();
  if (Type->isPointerType())
    Type = Type->getPointeeType();
  if (!holdsOwnedEntries(Type))
    return ContainerOp::None;
  Sequence Kind = sequenceOf(Type);
  if (llvm::is_contained(std::initializer_list<StringRef>{
                             "push_back", "emplace_back", "push_front",
                             "emplace_front", "push", "emplace", "insert",
                             "insert_range", "append_range"},
                         Name))
    return ContainerOp::Store;
  if (Name == "pop_front" && Call->getNumArgs() == 0)
    return ContainerOp::TakeOldest;
  if (Name == "pop_back" && Call->getNumArgs() == 0)
    return ContainerOp::TakeNewest;
  if (Name == "pop" && Call->getNumArgs() == 0)
    return Kind == Sequence::Stack ? ContainerOp::TakeNewest
                                   : ContainerOp::TakeOldest;
  if (Name == "erase" && Call->getNumArgs() == 1 &&
      isBeginOf(Call->getArg(0), Object))
    return ContainerOp::TakeOldest;
  if (Name == "clear" && Call->getNumArgs() == 0)
    return ContainerOp::Clear;
  return ContainerOp::None;
}

const Expr *ApiModel::entryContainer(const Expr *E) const {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  const Expr *Container = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    StringRef Name = calleeIdentifier(Member);
    if (Name == "front" || Name == "back" || Name == "at" || Name == "top")
      Container = Member->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      Container = Op->getArg(0);
    } else if (Op->getOperator() == OO_Star && Op->getNumArgs() == 1) {
      // `*q.begin()`
      const auto *Begin =
          dyn_cast<CXXMemberCallExpr>(Op->getArg(0)->IgnoreImplicit());
      StringRef Name = calleeIdentifier(Begin);
      if (Name == "begin" || Name == "cbegin")
        Container = Begin->getImplicitObjectArgument();
    }
  }
  if (!Container)
    return nullptr;
  QualType Type = Container->getType();
  if (Type->isPointerType())
    Type = Type->getPointeeType();
  return holdsOwnedEntries(Type) ? Container : nullptr;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
