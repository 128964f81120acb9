//===--- ClangDevices.cpp - streamlife ------------------------------------===//
//
// FunctionLowering, devices: each device has its own current stream. A
// tensor made with options on device d (`src.options().device(d)`) is
// allocated on d's current stream, `getCurrentCUDAStream(d)` is that
// stream, and a device guard (`CUDAGuard g(d)`) makes it the current one.
//
// Devices are named by what the code names them with: a variable
// (`dst`, `dev.index()`) or a tensor's device (`src.device()`,
// `src.get_device()`, `device_of(src)`). Two names may still be one device,
// so per-device streams are told apart only in a function that names two
// devices or more (a copy between devices, a two-way barrier); elsewhere
// every device's current stream is the current stream, as part 1 took it.
// A guard on a device variable names its stream after the variable in
// every function (`CUDAGuard g(dst)`: stream 'dst'); a guard on an
// expression (`OptionalCUDAGuard g(device_of(x))`, the first line of most
// extension operators) keeps the current stream there. A local set once
// from a device (`auto idx = target.index()`) is that device. The names of
// device streams are marked (NameInfo::DeviceCurrent): an ATen operation
// runs on its operands' device's stream, and the core puts it there when no
// stream guard chose the current stream (Transfer::operandDeviceStream).
//
//===----------------------------------------------------------------------===//

#include "ClangFunctionLowering.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <set>

namespace clang {
namespace tidy {
namespace streamlife {
namespace lowering {

namespace {

/// Every device expression a function names: device guards, per-device
/// stream sources, tensor options with a device.
class DeviceScan : public RecursiveASTVisitor<DeviceScan> {
public:
  DeviceScan(const ApiModel &Model, ASTContext &Ctx,
             llvm::SmallVectorImpl<const Expr *> &Out)
      : Model(Model), Ctx(Ctx), Out(Out) {}
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *Call) {
    if (const Expr *Device = Model.streamSourceDevice(Call))
      Out.push_back(Device);
    else if (Model.tensorOp(Call) == TensorOpKind::Produce)
      if (const Expr *Device = Model.tensorPlacement(Call, Ctx).Device)
        Out.push_back(Device);
    if (std::optional<ApiOperation> Op = Model.classify(Call))
      note(*Op);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    if (std::optional<ApiOperation> Op = Model.classify(Construct))
      note(*Op);
    return true;
  }

private:
  void note(const ApiOperation &Op) {
    if ((Op.Kind == OpKind::PushCurrentDevice ||
         Op.Kind == OpKind::SetCurrentDevice) &&
        Op.Stream)
      Out.push_back(Op.Stream);
  }
  const ApiModel &Model;
  ASTContext &Ctx;
  llvm::SmallVectorImpl<const Expr *> &Out;
};

} // namespace

std::optional<EntityKey> FunctionLowering::deviceKey(const Expr *Device) {
  const Expr *E = throughConversions(Device);
  if (!E)
    return std::nullopt;
  // `Device(kCUDA, index)`: the index.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() == 2)
    return deviceKey(Construct->getArg(1));
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    StringRef Name = calleeIdentifier(Member);
    const Expr *Object = Member->getImplicitObjectArgument();
    // `dev.index()`: the device dev.
    if (Name == "index" && !Model.classOf(Object->getType()))
      return deviceKey(Object);
    // `t.device()`, `t.get_device()`: the tensor's device.
    if ((Name == "device" || Name == "get_device") &&
        Model.classOf(Object->getType()) == ClassKind::OwnedBuffer) {
      std::optional<EntityKey> Tensor = resolveEntity(Object, Ctx);
      if (!Tensor || !Tensor->plain())
        return std::nullopt;
      Tensor->Part = EntityKey::DeviceOf;
      return Tensor;
    }
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // `device_of(t)`.
    if (calleeIdentifier(Call) == "device_of" && Call->getNumArgs() == 1) {
      std::optional<EntityKey> Tensor = resolveEntity(Call->getArg(0), Ctx);
      if (!Tensor || !Tensor->plain())
        return std::nullopt;
      Tensor->Part = EntityKey::DeviceOf;
      return Tensor;
    }
    return std::nullopt;
  }
  if (isa<DeclRefExpr, MemberExpr>(E)) {
    // A variable, parameter or member holding a device; constants
    // (`at::kCUDA`) name no particular device.
    std::optional<EntityKey> Key = resolveEntity(E, Ctx);
    const auto *Var = Key ? dyn_cast_or_null<VarDecl>(Key->Base) : nullptr;
    if (!Key || !Key->plain() ||
        (Var && !Key->Member && (Var->isConstexpr() || Var->hasGlobalStorage())))
      return std::nullopt;
    // A local initialised from a device or an index and never changed
    // after (`const auto dev = at::Device(at::kCUDA, node)`, `auto idx =
    // target.index()`) is that device: one key for every spelling of it.
    if (Var && !Key->Member && !isa<ParmVarDecl>(Var) && Var->getInit() &&
        Var->isLocalVarDecl() && !changedAfterInit(Var))
      if (std::optional<EntityKey> Init = deviceKey(Var->getInit()))
        return Init;
    return Key;
  }
  return std::nullopt;
}

bool FunctionLowering::changedAfterInit(const VarDecl *Var) {
  if (Var->getType().isConstQualified())
    return false;
  if (Var->getType()->isReferenceType())
    return true; // the object it refers to may change elsewhere
  return mutatedInBody(Var);
}

bool FunctionLowering::mutatedInBody(const VarDecl *Var) {
  auto [It, Inserted] = ChangedLocals.try_emplace(Var, true);
  if (Inserted) {
    if (!Mutations)
      Mutations = std::make_unique<ExprMutationAnalyzer>(
          *Function->getBody(), Ctx);
    It->second = Mutations->isMutated(Var);
  }
  return It->second;
}

bool FunctionLowering::multiDevice() {
  if (MultiDevice)
    return *MultiDevice;
  llvm::SmallVector<const Expr *, 8> Devices;
  DeviceScan(Model, Ctx, Devices).TraverseStmt(Function->getBody());
  std::set<EntityKey> Distinct;
  for (const Expr *Device : Devices)
    if (std::optional<EntityKey> Key = deviceKey(Device))
      Distinct.insert(*Key);
  MultiDevice = Distinct.size() >= 2;
  return *MultiDevice;
}

/// The current stream of a device, named after the device (`dst`,
/// `src.device()`). It belongs to no function: every caller can name a
/// device's current stream, so returning a tensor allocated on it is no
/// hand-off (unlike a pool stream's).
StreamRef FunctionLowering::deviceStreamNamed(const EntityKey &Key) {
  auto [It, Inserted] = DeviceStreams.try_emplace(Key, NoId);
  if (Inserted) {
    std::string Spelling;
    if (Key.Base && Key.Member)
      Spelling = (Key.Base->getName() + ".").str();
    Spelling += (Key.Member ? Key.Member : Key.Base)->getName().str();
    if (Key.Part == EntityKey::DeviceOf)
      Spelling += ".device()";
    ir::NameInfo Info{Spelling, NoId, NoId};
    Info.DeviceCurrent = true;
    if (Key.Part == EntityKey::DeviceOf)
      Info.DeviceOf = deviceTensor(Key);
    It->second = TU.mutableModule().addName(std::move(Info));
  }
  return StreamRef::named(It->second);
}

NameId FunctionLowering::deviceTensor(const EntityKey &DeviceOf) {
  // The stream is named where the device is read (`auto idx =
  // t.get_device()`), and used later: t must hold the same tensor at both.
  // A local or parameter the function never assigns (nor passes on as
  // non-const) does, as far as the function can change it: a reference
  // into a container (`auto &t = v[i]`) is bound anew where it is
  // declared, and the entry replaced before (`v[i] = copy`).
  const auto *Var = dyn_cast_or_null<VarDecl>(DeviceOf.Base);
  if (!Var || DeviceOf.Member ||
      (!Var->isLocalVarDecl() && !isa<ParmVarDecl>(Var)))
    return NoId;
  if (!Var->getType().isConstQualified() && mutatedInBody(Var))
    return NoId;
  EntityKey Tensor = DeviceOf;
  Tensor.Part = EntityKey::Whole;
  return name(Tensor, [&] { return Var->getName().str(); });
}

StreamRef FunctionLowering::deviceStream(const Expr *Device) {
  std::optional<EntityKey> Key = Device ? deviceKey(Device) : std::nullopt;
  if (!Key || !multiDevice())
    return StreamRef::current();
  return deviceStreamNamed(*Key);
}

StreamRef FunctionLowering::guardStream(const Expr *Device) {
  std::optional<EntityKey> Key = deviceKey(Device);
  if (Key && Key->Part == EntityKey::Whole)
    return deviceStreamNamed(*Key);
  return deviceStream(Device);
}

} // namespace lowering
} // namespace streamlife
} // namespace tidy
} // namespace clang
