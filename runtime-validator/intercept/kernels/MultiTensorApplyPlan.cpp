//===- MultiTensorApplyPlan.cpp - PyTorch's _foreach_* kernels ------------===//
//
// multi_tensor_apply_kernel<Meta, Functor, Args...>(Meta, Functor, Args...),
// from aten/src/ATen/native/cuda/MultiTensorApply.cuh (torch 2.11). The host
// loop fills ONE Meta struct and launches whenever its tensor or block slots
// are full; between launches it resets only the counters, so the slots past
// this launch's tensors keep the pointers of the previous launch (stale: those
// tensors may be freed by now). What a launch touches is exactly
//   { addresses[d][block_to_tensor[b]] : b < gridDim.x, d < depth }
// (plus state_steps_addresses[...] for the fused optimizers), since block b
// processes chunk block_to_chunk[b] of tensor block_to_tensor[b].
//
// Meta layouts (natural alignment; M = depth_to_max_tensors[depth-1],
// S = depth_to_max_tensors_scalarlist[depth-1], 320 block slots):
//   TensorListMetadata<n>:           addresses[n][M], numel[M], b2t[320], b2c[320], int start
//   FusedOptimizerTensorListMetadata<n>: addresses[n][M], numel[M], steps[S], b2t, b2c, int start
//   TensorListScalarListMetadata<T, n>: addresses[n][S'], numel[S'], T scalars[S'], b2t, b2c
//     (S' = 72, 60 for complex<double> at n = 1, 2; else S)
// The scalar type's size is not in a form worth parsing from the name: the
// struct's size (from the driver) decides it, and a layout that matches no
// size is rejected (generic rule).
//
// Every launch is checked against the layout: at most 320 blocks, each
// block's tensor below the slot count with a chunk inside its numel. A launch
// that fails the check is not decoded by this plan.
//
//===----------------------------------------------------------------------===//
#include "intercept/kernels/KernelPlans.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace streamlife {
namespace rt {

namespace {

constexpr int MaxTensors[5] = {110, 64, 48, 36, 30};
constexpr int MaxTensorsScalarList[5] = {96, 64, 48, 36, 30};
constexpr int MaxTensorsComplexDouble[2] = {72, 60};
constexpr int MaxBlocks = 320;
constexpr std::int64_t ChunkSize = 65536;

std::size_t alignTo(std::size_t V, std::size_t A) { return (V + A - 1) / A * A; }

enum class MetaKind { TensorList, FusedOptimizer, ScalarList };

/// Byte offsets inside one Meta struct.
struct MetaLayout {
  int Depth = 0;
  int Slots = 0; ///< tensor slots per list
  std::size_t Addresses = 0, Numel = 0, StateSteps = 0, BlockToTensor = 0, BlockToChunk = 0;
  bool HasStateSteps = false;
  std::size_t Size = 0;
};

MetaLayout layoutOf(MetaKind Kind, int Depth, std::size_t ScalarSize, bool ComplexDouble) {
  MetaLayout L;
  L.Depth = Depth;
  if (Kind == MetaKind::ScalarList)
    L.Slots = ComplexDouble && Depth <= 2 ? MaxTensorsComplexDouble[Depth - 1] : MaxTensorsScalarList[Depth - 1];
  else
    L.Slots = MaxTensors[Depth - 1];
  std::size_t At = 0;
  L.Addresses = At;
  At += std::size_t(Depth) * L.Slots * 8;
  L.Numel = At;
  At += std::size_t(L.Slots) * 8;
  std::size_t Align = 8;
  if (Kind == MetaKind::FusedOptimizer) {
    L.HasStateSteps = true;
    L.StateSteps = At;
    At += std::size_t(MaxTensorsScalarList[Depth - 1]) * 8;
  } else if (Kind == MetaKind::ScalarList) {
    Align = std::max<std::size_t>(8, ScalarSize); // 16 for complex<double>
    At = alignTo(At, ScalarSize) + std::size_t(L.Slots) * ScalarSize;
  }
  L.BlockToTensor = At;
  At += MaxBlocks;
  At = alignTo(At, 4);
  L.BlockToChunk = At;
  At += MaxBlocks * 4;
  if (Kind != MetaKind::ScalarList)
    At += 4; // start_tensor_this_launch
  L.Size = alignTo(At, Align);
  return L;
}

int parseInt(std::string_view S) {
  while (!S.empty() && S.back() == ' ')
    S.remove_suffix(1);
  int V = 0;
  auto [Ptr, Ec] = std::from_chars(S.data(), S.data() + S.size(), V);
  return Ec == std::errc() && Ptr == S.data() + S.size() ? V : 0;
}

class MultiTensorApplyPlan final : public KernelPlan {
public:
  explicit MultiTensorApplyPlan(MetaLayout L) : L(L) {}
  const char *family() const override { return "multi_tensor_apply"; }

  bool decode(const LaunchParams &P, LaunchGrid Grid, std::vector<CandidatePointer> &Out) const override {
    const unsigned char *Meta = P.bytes(0);
    if (!Meta || P.size(0) != L.Size || Grid.X == 0 || Grid.X > MaxBlocks || Grid.Y != 1 || Grid.Z != 1)
      return false;
    bool Used[128] = {};
    for (unsigned B = 0; B < Grid.X; ++B) {
      int T = readAt<std::uint8_t>(Meta, L.BlockToTensor + B);
      std::int32_t Chunk = readAt<std::int32_t>(Meta, L.BlockToChunk + 4 * B);
      if (T >= L.Slots || Chunk < 0)
        return false;
      std::int64_t Numel = readAt<std::int64_t>(Meta, L.Numel + 8 * T);
      if (Numel <= 0 || Chunk * ChunkSize >= Numel)
        return false;
      Used[T] = true;
    }
    for (int T = 0; T < L.Slots; ++T) {
      if (!Used[T])
        continue;
      for (int D = 0; D < L.Depth; ++D)
        takeWord(Meta, L.Addresses + (std::size_t(D) * L.Slots + T) * 8, AccessSource::Decoded, Out);
      if (L.HasStateSteps)
        takeWord(Meta, L.StateSteps + std::size_t(T) * 8, AccessSource::Decoded, Out);
    }
    // The functor and the trailing arguments (lr and grad-scale pointers of the
    // fused optimizers, scalars) are ordinary parameters.
    for (std::size_t I = 1; I < P.count(); ++I) {
      const unsigned char *B = P.bytes(I);
      if (!B || P.size(I) < 8)
        continue;
      AccessSource Source = P.size(I) == 8 ? AccessSource::PointerParameter : AccessSource::GenericScan;
      for (std::size_t Off = 0; Off + 8 <= P.size(I); Off += 8)
        takeWord(B, Off, Source, Out);
    }
    return true;
  }

private:
  MetaLayout L;
};

} // namespace

std::unique_ptr<KernelPlan> makeMultiTensorApplyPlan(std::string_view Name, const std::vector<ParamSlot> &Layout) {
  if (Name.find("multi_tensor_apply_kernel<") == std::string_view::npos || Layout.empty())
    return nullptr;
  std::vector<std::string_view> Kernel = templateArguments(Name, "multi_tensor_apply_kernel<");
  if (Kernel.empty())
    return nullptr;
  std::string_view Meta = Kernel[0];
  MetaKind Kind;
  std::vector<std::string_view> Args;
  if (!(Args = templateArguments(Meta, "FusedOptimizerTensorListMetadata<")).empty())
    Kind = MetaKind::FusedOptimizer;
  else if (!(Args = templateArguments(Meta, "TensorListScalarListMetadata<")).empty())
    Kind = MetaKind::ScalarList;
  else if (!(Args = templateArguments(Meta, "TensorListMetadata<")).empty())
    Kind = MetaKind::TensorList;
  else
    return nullptr;
  int Depth = parseInt(Args.back());
  if (Depth < 1 || Depth > 5)
    return nullptr;
  std::size_t Size = Layout[0].Size;
  if (Kind != MetaKind::ScalarList) {
    MetaLayout L = layoutOf(Kind, Depth, 0, false);
    return L.Size == Size ? std::make_unique<MultiTensorApplyPlan>(L) : nullptr;
  }
  bool ComplexDouble = Args.size() == 2 && Args[0].find("complex<double>") != std::string_view::npos;
  for (std::size_t ScalarSize : {1, 2, 4, 8, 16}) {
    MetaLayout L = layoutOf(Kind, Depth, ScalarSize, ComplexDouble && ScalarSize == 16);
    if (L.Size == Size)
      return std::make_unique<MultiTensorApplyPlan>(L);
  }
  return nullptr;
}

} // namespace rt
} // namespace streamlife
