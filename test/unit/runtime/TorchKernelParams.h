//===- TorchKernelParams.h - PyTorch kernels' parameter blocks -*- C++ -*-===//
//
// Mirrors of the by-value parameter structs of PyTorch's CUDA kernels (the
// same members in the same order, so that the host compiler lays them out as
// nvcc does for the device) and fillers that leave stale and
// uninitialized-looking pointers where PyTorch leaves them. Shared by the
// plans' unit tests (KernelPlansTest.cpp) and the decoding benchmark
// (bench/runtime/cpu/launch_decode_cost.cpp), so that both read the same
// bytes a real launch passes.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TEST_UNIT_RUNTIME_TORCHKERNELPARAMS_H
#define STREAMLIFE_TEST_UNIT_RUNTIME_TORCHKERNELPARAMS_H

#include "engine/Engine.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace streamlife {
namespace rt {
namespace torch_params {

constexpr Addr Stale = 0x7e0000000000;     // pointers the plans must not report
constexpr Addr Live = 0x7f0000000000;      // pointers they must report

// --- multi_tensor_apply ------------------------------------------------------

template <int N, int Slots> struct TensorListMeta {
  const void *addresses[N][Slots];
  std::int64_t numel_for_tensor[Slots];
  unsigned char block_to_tensor[320];
  int block_to_chunk[320];
  int start_tensor_this_launch;
};
template <int N, int Slots, int StepSlots> struct FusedMeta {
  const void *addresses[N][Slots];
  std::int64_t numel_for_tensor[Slots];
  const void *state_steps_addresses[StepSlots];
  unsigned char block_to_tensor[320];
  int block_to_chunk[320];
  int start_tensor_this_launch;
};
template <typename T, int N, int Slots> struct ScalarListMeta {
  const void *addresses[N][Slots];
  std::int64_t numel_for_tensor[Slots];
  T scalar_vals[Slots];
  unsigned char block_to_tensor[320];
  int block_to_chunk[320];
};

inline const char *const MtaName2 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, "
    "0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
    "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)";

/// A launch of 3 tensors (the middle one 2 chunks) in 4 blocks, after an
/// earlier launch that filled slots 0..5 with other tensors.
template <typename Meta> inline void fillThreeTensorLaunch(Meta &M, int Depth) {
  std::memset(&M, 0, sizeof(M));
  for (int D = 0; D < Depth; ++D)
    for (int T = 0; T < 6; ++T)
      M.addresses[D][T] = reinterpret_cast<const void *>((T < 3 ? Live : Stale) + 0x1000 * (D * 8 + T));
  for (int T = 0; T < 6; ++T)
    M.numel_for_tensor[T] = T == 1 ? 100000 : 1000;
  const unsigned char B2T[] = {0, 1, 1, 2, 4, 5}; // blocks 4 and 5 are the earlier launch's
  const int B2C[] = {0, 0, 1, 0, 0, 0};
  for (int B = 0; B < 6; ++B) {
    M.block_to_tensor[B] = B2T[B];
    M.block_to_chunk[B] = B2C[B];
  }
}

// --- TensorIterator ----------------------------------------------------------

struct IntDivider {
  unsigned divisor, m1, shift;
};
template <int N> struct OffsetCalc {
  int dims;
  IntDivider sizes_[25];
  unsigned strides_[25][N];
};

/// An OffsetCalculator whose unused dimensions hold old pointers, as the host
/// stack leaves them.
template <int N> inline void fillCalculator(OffsetCalc<N> &C, int Dims) {
  std::memset(&C, 0, sizeof(C));
  for (std::size_t Off = 8; Off + 8 <= sizeof(C); Off += 8) {
    Addr Garbage = Stale + Off;
    std::memcpy(reinterpret_cast<char *>(&C) + Off, &Garbage, 8);
  }
  C.dims = Dims;
  for (int D = 0; D < Dims; ++D) {
    C.sizes_[D] = IntDivider{16, 1, 4};
    for (int A = 0; A < N; ++A)
      C.strides_[D][A] = 4;
  }
}

inline const char *const DirectCopyName =
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_"
    "kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIterator"
    "Base&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} "
    "const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>"
    "(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::"
    "operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})";

template <typename Ident> struct ReduceOpMirror {
  char ops;
  Ident ident;
  int config[20];
  OffsetCalc<1> input_calc;
  OffsetCalc<2> output_calc;
  const void *src;
  const char *dst[2];
  void *acc_buf;
  void *cta_buf;
  int *semaphores;
  std::int64_t base_idx;
  bool accumulate;
  bool final_output;
  int noutputs;
};

template <typename Ident> inline void fillReduce(ReduceOpMirror<Ident> &R, int Outputs) {
  std::memset(&R, 0, sizeof(R));
  fillCalculator(R.input_calc, 1);
  fillCalculator(R.output_calc, 1);
  R.src = reinterpret_cast<const void *>(Live + 0x100);
  R.dst[0] = reinterpret_cast<const char *>(Live + 0x200);
  R.dst[1] = reinterpret_cast<const char *>(Outputs == 2 ? Live + 0x300 : Stale + 0x300);
  R.cta_buf = reinterpret_cast<void *>(Live + 0x400);
  R.final_output = true;
  R.noutputs = Outputs;
}

inline const char *const AllReduceName = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, "
                            "at::native::func_wrapper_t<bool, X>, unsigned int, bool, 4, 4> >(Y)";

} // namespace torch_params
} // namespace rt
} // namespace streamlife

#endif
