//===--- ApiModelTensorPlacement.cpp - streamlife -------------------------===//
//
// Where a tensor-producing ATen call puts its tensor, as far as the call
// itself shows: host memory (CPU or pinned, which the caching host allocator
// keeps alive past the copies that use it: not a stream-ordered block), the
// device named by its options (`src.options().device(dst)`, allocated on
// that device's current stream), or the current device.
//
//===----------------------------------------------------------------------===//

#include "ApiModel.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"

namespace clang {
namespace tidy {
namespace streamlife {

namespace {

bool isRecordNamed(QualType T, StringRef Qualified) {
  const auto *Record =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return Record && Record->getQualifiedNameAsString() == Qualified;
}

bool isTensorOptions(QualType T) {
  return isRecordNamed(T, "c10::TensorOptions");
}

/// std::optional<T> -> T.
QualType throughOptional(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (Spec && Spec->isInStdNamespace() && Spec->getName() == "optional" &&
      Spec->getTemplateArgs().size() == 1 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return Spec->getTemplateArgs()[0].getAsType();
  return T;
}

bool isDeviceType(QualType T) {
  T = throughOptional(T);
  if (const auto *Enum = T.getCanonicalType()->getAs<EnumType>())
    return Enum->getDecl()->getQualifiedNameAsString() == "c10::DeviceType";
  return isRecordNamed(T, "c10::Device");
}

/// A constant device type: the integer of c10::DeviceType (CPU 0, CUDA 1).
std::optional<int64_t> constantDeviceType(const Expr *E, ASTContext &Ctx) {
  E = throughConversions(E);
  if (!E || E->isValueDependent() ||
      !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult Value;
  if (!E->EvaluateAsInt(Value, Ctx))
    return std::nullopt;
  return Value.Val.getInt().getExtValue();
}

/// What a TensorOptions / Device / ScalarType argument says, outermost call
/// first (`opts.device(a).device(b)` is on b).
struct Options {
  bool Known = false;  ///< The expression was read to its end.
  bool Pinned = false; ///< pinned_memory(true) somewhere.
  const Expr *Device = nullptr; ///< The explicit device, if any.
  bool CpuDevice = false;       ///< ... and it is the CPU.
  /// Built from a tensor's options (`x.options()`): on x's device, which
  /// is a GPU as far as the call shows.
  bool OfTensor = false;
};

void readDevice(const Expr *D, ASTContext &Ctx, Options &Out) {
  if (Out.Device)
    return; // an outer .device() already decided
  Out.Device = D;
  // `kCPU`, `Device(kCPU)`, `Device(DeviceType::CPU, 0)`.
  const Expr *Bare = throughConversions(D);
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Bare);
      Construct && Construct->getNumArgs() >= 1)
    Bare = Construct->getArg(0);
  if (std::optional<int64_t> Type = constantDeviceType(Bare, Ctx))
    Out.CpuDevice = *Type == 0;
}

void readOptions(const Expr *E, ASTContext &Ctx, Options &Out,
                 unsigned Depth = 0) {
  E = throughConversions(E);
  if (!E || Depth > 12)
    return;
  if (isDeviceType(E->getType())) {
    readDevice(E, Ctx, Out);
    Out.Known = true;
    return;
  }
  if (!isTensorOptions(E->getType())) {
    // A ScalarType, a MemoryFormat, ...: options with no device.
    Out.Known = !E->getType()->isRecordType() ||
                E->getType()->isIntegralOrEnumerationType();
    return;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    StringRef Name = calleeIdentifier(Member);
    const Expr *Object = Member->getImplicitObjectArgument();
    if (Name == "options" && !isTensorOptions(Object->getType())) {
      Out.Known = true; // x.options(): x's device, a device
      Out.OfTensor = true;
      return;
    }
    if ((Name == "device" || Name == "device_index") && Member->getNumArgs())
      readDevice(Member->getArg(0), Ctx, Out);
    if (Name == "pinned_memory") {
      bool Pinned = true;
      if (Member->getNumArgs() == 1) {
        bool Value = false;
        const Expr *Arg = throughConversions(Member->getArg(0));
        Pinned = Arg && !Arg->isValueDependent() &&
                 Arg->EvaluateAsBooleanCondition(Value, Ctx) && Value;
      }
      Out.Pinned |= Pinned;
    }
    return readOptions(Object, Ctx, Out, Depth + 1);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // at::device(d), at::dtype(t), at::device_index(i), ...
    const FunctionDecl *Callee = Call->getDirectCallee();
    const auto *NS = Callee ? dyn_cast<NamespaceDecl>(
                                  Callee->getDeclContext()->getRedeclContext())
                            : nullptr;
    if (!NS || (NS->getName() != "c10" && NS->getName() != "at" &&
                NS->getName() != "torch"))
      return; // a helper returning options: not known
    StringRef Name = calleeIdentifier(Call);
    if ((Name == "device" || Name == "device_index") && Call->getNumArgs())
      readDevice(Call->getArg(0), Ctx, Out);
    Out.Known = true;
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // TensorOptions(), TensorOptions(kCUDA): its arguments.
    Out.Known = true;
    for (const Expr *Arg : Construct->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        readOptions(Arg, Ctx, Out, Depth + 1);
    return;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    // A local `auto opts = ...;` read through its initialiser.
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && Var->isLocalVarDecl() && Var->getInit() &&
        !Var->getType().isVolatileQualified())
      readOptions(Var->getInit(), Ctx, Out, Depth + 1);
  }
}

} // namespace

TensorPlacement ApiModel::tensorPlacement(const CallExpr *Call,
                                          ASTContext &Ctx) const {
  TensorPlacement Where;
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return Where;
  StringRef Name = calleeIdentifier(Call);
  // Methods: `t.pin_memory()`, `t.to(kCPU)`, `t.to(options)`; anything else
  // is on the device of its operands.
  if (isa<CXXMethodDecl>(Callee)) {
    if (Name == "pin_memory") {
      Where.Host = true;
      return Where;
    }
    if (Name != "to")
      return Where;
  }
  // The options, device, pin_memory arguments the call actually passes.
  Options Read;
  bool HasOptionParameter = false;
  for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
       ++I) {
    const ParmVarDecl *Param = Callee->getParamDecl(I);
    QualType Type = Param->getType();
    bool OptionLike = isTensorOptions(Type) || isDeviceType(Type);
    bool PinFlag = Param->getName() == "pin_memory";
    if (!OptionLike && !PinFlag)
      continue;
    HasOptionParameter = true;
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (PinFlag) {
      bool Value = false;
      const Expr *Bare = throughConversions(Arg);
      if (Bare && !Bare->isValueDependent() &&
          Bare->EvaluateAsBooleanCondition(Value, Ctx) && Value)
        Read.Pinned = true;
      continue;
    }
    readOptions(Arg, Ctx, Read);
    if (!Read.Known)
      return Where; // a helper's options: taken as the current device
  }
  if (Read.Pinned || Read.CpuDevice) {
    Where.Host = true;
    return Where;
  }
  if (Read.Device) {
    Where.Device = Read.Device;
    return Where;
  }
  // A factory given no device is on the CPU (at::empty({n}),
  // at::zeros({n}, at::kFloat)); `_like` factories and methods follow
  // their operand.
  if (HasOptionParameter && !Read.OfTensor && !isa<CXXMethodDecl>(Callee) &&
      !Name.ends_with("_like"))
    Where.Host = true;
  return Where;
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
