//===- ElementwisePlan.cpp - TensorIterator elementwise kernels -----------===//
//
// aten/src/ATen/native/cuda/CUDALoops.cuh (torch 2.11):
//   vectorized_elementwise_kernel<vec, func_t, array_t>(int N, func_t f, array_t data)
//   vectorized_templated_elementwise_kernel<...>(int N, func_t f, array_t data, ...)
//   unrolled_elementwise_kernel<func_t, array_t, ...>(int N, func_t f, array_t data,
//                                                     inp_calc, out_calc, loader, storer)
//     `data` is std::array<char*, ntensors>, every slot filled from the
//     iterator: all of them are accesses. The offset calculators, loaders and
//     storers hold sizes, strides and dtypes only.
//   elementwise_kernel<nt, vt, lambda>(int N, lambda f), where the lambda of
//     gpu_kernel_impl_nocast / gpu_kernel_impl captures, in this order,
//       OffsetCalculator<ntensors> offset_calc;   // int dims, IntDivider[25], uint32 strides[25][ntensors]
//       std::array<char*, ntensors> data;
//       the functor (and, when casting, the dtypes).
//     OffsetCalculator's constructor fills only the first `dims` dimensions:
//     the rest is the host stack's old contents, old pointers included (the
//     direct_copy false reports of issue 9). Those bytes hold no pointer by
//     construction and are never read; `data` is decoded when ntensors is known
//     from the name (a lambda's parameter list gives the arity), otherwise the
//     bytes after the calculator's divider table go to the generic rule.
// The functor `f` is an ordinary by-value object: generic rule.
//
//===----------------------------------------------------------------------===//
#include "intercept/kernels/KernelPlans.h"

#include <charconv>

namespace streamlife {
namespace rt {

namespace {

constexpr std::size_t MaxDims = 25;
constexpr std::size_t DividerTableEnd = 4 + MaxDims * 12; // int dims + IntDivider<uint32_t>[25]

std::size_t alignTo(std::size_t V, std::size_t A) { return (V + A - 1) / A * A; }

void scanGeneric(const unsigned char *B, std::size_t Begin, std::size_t End, std::vector<CandidatePointer> &Out) {
  for (std::size_t Off = alignTo(Begin, 8); Off + 8 <= End; Off += 8)
    takeWord(B, Off, AccessSource::GenericScan, Out);
}

/// Kernels whose third parameter is the iterator's data pointer array.
class DataArrayPlan final : public KernelPlan {
public:
  explicit DataArrayPlan(std::size_t Tensors) : Tensors(Tensors) {}
  const char *family() const override { return "tensor_iterator_elementwise"; }
  bool decode(const LaunchParams &P, LaunchGrid, std::vector<CandidatePointer> &Out) const override {
    const unsigned char *Data = P.bytes(2);
    if (!Data || P.size(2) != Tensors * 8)
      return false;
    for (std::size_t I = 0; I < Tensors; ++I)
      takeWord(Data, I * 8, AccessSource::Decoded, Out);
    if (const unsigned char *F = P.bytes(1))
      scanGeneric(F, 0, P.size(1), Out);
    return true;
  }

private:
  std::size_t Tensors;
};

/// elementwise_kernel's lambda: OffsetCalculator first, then the data array.
class LegacyLambdaPlan final : public KernelPlan {
public:
  explicit LegacyLambdaPlan(std::size_t Tensors) : Tensors(Tensors) {}
  const char *family() const override { return "tensor_iterator_elementwise"; }
  bool decode(const LaunchParams &P, LaunchGrid, std::vector<CandidatePointer> &Out) const override {
    const unsigned char *L = P.bytes(1);
    if (!L || P.size(1) < DividerTableEnd)
      return false;
    std::int32_t Dims = readAt<std::int32_t>(L, 0);
    if (Dims < 0 || Dims > static_cast<std::int32_t>(MaxDims))
      return false;
    if (Tensors == 0) { // arity unknown: skip the calculator's divider table only
      scanGeneric(L, DividerTableEnd, P.size(1), Out);
      return true;
    }
    std::size_t DataAt = alignTo(DividerTableEnd + MaxDims * Tensors * 4, 8);
    if (P.size(1) < DataAt + Tensors * 8)
      return false;
    for (std::size_t I = 0; I < Tensors; ++I)
      takeWord(L, DataAt + I * 8, AccessSource::Decoded, Out);
    scanGeneric(L, DataAt + Tensors * 8, P.size(1), Out);
    return true;
  }

private:
  std::size_t Tensors; ///< 0: unknown
};

std::size_t parseCount(std::string_view S) {
  while (!S.empty() && (S.back() == ' ' || S.back() == 'l' || S.back() == 'u' || S.back() == 'U' || S.back() == 'L'))
    S.remove_suffix(1);
  std::size_t V = 0;
  auto [Ptr, Ec] = std::from_chars(S.data(), S.data() + S.size(), V);
  return Ec == std::errc() && Ptr == S.data() + S.size() ? V : 0;
}

/// ntensors from "std::array<char*, 3ul>" among the kernel's template arguments.
std::size_t dataArrayCount(std::string_view Name) {
  std::vector<std::string_view> Args = templateArguments(Name, "std::array<char*, ");
  return Args.size() == 1 ? parseCount(Args[0]) : 0;
}

/// 1 + the arity of the innermost lambda named in Functor ("{lambda(float, float)#1}"),
/// 0 when the functor is not a lambda.
std::size_t tensorsOfLambda(std::string_view Functor) {
  std::size_t At = Functor.rfind("{lambda(");
  if (At == std::string_view::npos)
    return 0;
  std::size_t Start = At + 8;
  int Depth = 0;
  std::size_t Commas = 0;
  for (std::size_t I = Start; I < Functor.size(); ++I) {
    char C = Functor[I];
    if (C == '(' || C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (C == ')') {
      if (Depth == 0)
        return I == Start ? 1 : Commas + 2;
      --Depth;
    } else if (C == ',' && Depth == 0)
      ++Commas;
  }
  return 0;
}

} // namespace

std::unique_ptr<KernelPlan> makeElementwisePlan(std::string_view Name, const std::vector<ParamSlot> &Layout) {
  bool DataArrayKernel = Name.rfind("void at::native::vectorized_elementwise_kernel<", 0) == 0 ||
                         Name.rfind("void at::native::vectorized_templated_elementwise_kernel<", 0) == 0 ||
                         Name.rfind("void at::native::unrolled_elementwise_kernel<", 0) == 0;
  if (DataArrayKernel) {
    std::size_t Tensors = dataArrayCount(Name);
    if (Tensors == 0 || Layout.size() < 3 || Layout[2].Size != Tensors * 8)
      return nullptr;
    return std::make_unique<DataArrayPlan>(Tensors);
  }
  if (Name.rfind("void at::native::elementwise_kernel<", 0) != 0 || Layout.size() != 2)
    return nullptr;
  std::vector<std::string_view> Args = templateArguments(Name, "elementwise_kernel<");
  if (Args.size() != 3)
    return nullptr;
  std::string_view Lambda = Args[2];
  std::vector<std::string_view> Impl = templateArguments(Lambda, "gpu_kernel_impl_nocast<");
  if (Impl.empty())
    Impl = templateArguments(Lambda, "gpu_kernel_impl<");
  if (Impl.size() != 1)
    return nullptr; // another user of launch_legacy_kernel: its lambda is unknown
  return std::make_unique<LegacyLambdaPlan>(tensorsOfLambda(Impl[0]));
}

} // namespace rt
} // namespace streamlife
