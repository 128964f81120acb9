//===- ReducePlan.cpp - TensorIterator reductions (ReduceOp) --------------===//
//
// reduce_kernel<nt, output_vec_size, R>(R reduction), R = ReduceOp<...> from
// aten/src/ATen/native/cuda/Reduce.cuh (torch 2.11). Its members, in order:
//   ops, ident, ReduceConfig config, OffsetCalculator<1> input_calc,
//   OffsetCalculator<2> output_calc,
//   const void* src; const char* dst[2]; void* acc_buf; void* cta_buf;
//   int* semaphores; int64_t base_idx; bool accumulate; bool final_output;
//   int noutputs;
// The calculators leave their unused dimensions uninitialized and dst[1] is
// only assigned when there is a second output, so a word scan reads stack
// garbage there (torch.allclose's reduce gave a false use-after-free). The
// pointer members form a fixed 64-byte tail, at the end of the struct or 8
// bytes before it when the struct is 16-aligned (a complex<double> ident):
// the tail whose flags and output count are valid wins. Accesses: src,
// dst[0 .. noutputs), and acc_buf, cta_buf, semaphores when set (the global
// reduction's scratch). Nothing before the tail holds a pointer.
//
//===----------------------------------------------------------------------===//
#include "intercept/kernels/KernelPlans.h"

namespace streamlife {
namespace rt {

namespace {

constexpr std::size_t TailSize = 64;

struct Tail {
  std::size_t At = 0;
  bool valid(const unsigned char *B) const {
    std::uint8_t Accumulate = readAt<std::uint8_t>(B, At + 56);
    std::uint8_t FinalOutput = readAt<std::uint8_t>(B, At + 57);
    std::int32_t Outputs = readAt<std::int32_t>(B, At + 60);
    return Accumulate <= 1 && FinalOutput <= 1 && (Outputs == 1 || Outputs == 2);
  }
};

class ReducePlan final : public KernelPlan {
public:
  const char *family() const override { return "tensor_iterator_reduce"; }
  bool decode(const LaunchParams &P, LaunchGrid, std::vector<CandidatePointer> &Out) const override {
    const unsigned char *B = P.bytes(0);
    std::size_t Size = P.size(0);
    if (!B || Size < TailSize + 8)
      return false;
    Tail T{Size - TailSize};
    if (!T.valid(B)) {
      T.At = Size - TailSize - 8;
      if (!T.valid(B))
        return false;
    }
    std::int32_t Outputs = readAt<std::int32_t>(B, T.At + 60);
    takeWord(B, T.At, AccessSource::Decoded, Out); // src
    for (std::int32_t I = 0; I < Outputs; ++I)
      takeWord(B, T.At + 8 + 8 * I, AccessSource::Decoded, Out); // dst[i]
    for (std::size_t Member : {24, 32, 40})                     // acc_buf, cta_buf, semaphores
      takeWord(B, T.At + Member, AccessSource::Decoded, Out);
    return true;
  }
};

} // namespace

std::unique_ptr<KernelPlan> makeReducePlan(std::string_view Name, const std::vector<ParamSlot> &Layout) {
  if (Name.rfind("void at::native::reduce_kernel<", 0) != 0 ||
      Name.find("at::native::ReduceOp<") == std::string_view::npos || Layout.size() != 1)
    return nullptr;
  return std::make_unique<ReducePlan>();
}

} // namespace rt
} // namespace streamlife
