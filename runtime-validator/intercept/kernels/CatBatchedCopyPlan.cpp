//===- CatBatchedCopyPlan.cpp - torch.cat's batched copy kernels ----------===//
//
// CatArrayBatchedCopy*<T, IndexType, Dims, batch_size, stride_size, ...>(
//     T* output, CatArrInputTensorMetadata<T, IndexType, batch_size, stride_size> inputs,
//     TensorSizeStride<...> os, int concatDim, IndexType dimStride)
// (aten/src/ATen/native/cuda/Shape.cu). The metadata struct starts with
// `const T* input[batch_size]`; the host fills the first batchCounter slots
// and launches with gridDim.y == batchCounter (block row y copies input y), so
// slots from gridDim.y on are stale pointers of the previous batch (a false
// use-after-free in issue 9's compiled model). Accesses: output and
// input[0 .. gridDim.y).
//
//===----------------------------------------------------------------------===//
#include "intercept/kernels/KernelPlans.h"

#include <charconv>

namespace streamlife {
namespace rt {

namespace {

class CatBatchedCopyPlan final : public KernelPlan {
public:
  explicit CatBatchedCopyPlan(unsigned Batch) : Batch(Batch) {}
  const char *family() const override { return "cat_batched_copy"; }
  bool decode(const LaunchParams &P, LaunchGrid Grid, std::vector<CandidatePointer> &Out) const override {
    const unsigned char *Output = P.bytes(0);
    const unsigned char *Inputs = P.bytes(1);
    if (!Output || !Inputs || Grid.Y == 0 || Grid.Y > Batch)
      return false;
    takeWord(Output, 0, AccessSource::Decoded, Out);
    for (unsigned I = 0; I < Grid.Y; ++I)
      takeWord(Inputs, 8 * I, AccessSource::Decoded, Out);
    return true;
  }

private:
  unsigned Batch;
};

} // namespace

std::unique_ptr<KernelPlan> makeCatBatchedCopyPlan(std::string_view Name, const std::vector<ParamSlot> &Layout) {
  if (Name.find("at::native::(anonymous namespace)::CatArrayBatchedCopy") == std::string_view::npos ||
      Layout.size() < 2 || Layout[0].Size != 8)
    return nullptr;
  std::vector<std::string_view> Args = templateArguments(Name, "CatArrInputTensorMetadata<");
  if (Args.size() != 4)
    return nullptr;
  std::string_view BatchText = Args[2];
  unsigned Batch = 0;
  auto [Ptr, Ec] = std::from_chars(BatchText.data(), BatchText.data() + BatchText.size(), Batch);
  if (Ec != std::errc() || Ptr != BatchText.data() + BatchText.size() || Batch == 0 ||
      Layout[1].Size < Batch * 8)
    return nullptr;
  return std::make_unique<CatBatchedCopyPlan>(Batch);
}

} // namespace rt
} // namespace streamlife
