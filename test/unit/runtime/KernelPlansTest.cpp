//===- KernelPlansTest.cpp - decoding kernel parameters by meaning --------===//
//
// Synthetic parameter blocks laid out by the compiler from our own mirror
// structs of PyTorch's (the same members in the same order, so the host
// compiler computes the offsets the plans must find), with stale and
// uninitialized-looking pointers where PyTorch leaves them: those must never
// come out as candidates.
//
//===----------------------------------------------------------------------===//
#include "intercept/kernels/KernelPlans.h"

#include "TorchKernelParams.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>

using namespace streamlife::rt;
using namespace streamlife::rt::torch_params;

namespace {

template <typename T> std::vector<ParamSlot> layoutOf(const T &) { return {{0, sizeof(T)}}; }

std::vector<Addr> words(const std::vector<CandidatePointer> &C, AccessSource S) {
  std::vector<Addr> W;
  for (const CandidatePointer &P : C)
    if (P.Source == S)
      W.push_back(P.Word);
  std::sort(W.begin(), W.end());
  return W;
}

bool anyStale(const std::vector<CandidatePointer> &C) {
  for (const CandidatePointer &P : C)
    if ((P.Word & 0xff0000000000) == Stale)
      return true;
  return false;
}

// --- multi_tensor_apply ------------------------------------------------------

TEST(MultiTensorApplyPlanTest, DecodesOnlyTheTensorsOfThisLaunch) {
  TensorListMeta<2, 64> M;
  fillThreeTensorLaunch(M, 2);
  float Alpha = 1;
  std::vector<ParamSlot> Layout = {{0, sizeof(M)}, {sizeof(M), 1}, {sizeof(M) + 4, 1}, {sizeof(M) + 8, 4}};
  auto Plan = planFor(MtaName2, Layout);
  ASSERT_STREQ(Plan->family(), "multi_tensor_apply");
  char Functor = 0, Op = 0;
  void *Params[] = {&M, &Functor, &Op, &Alpha};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{4, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  std::vector<Addr> Expected;
  for (int D = 0; D < 2; ++D)
    for (int T = 0; T < 3; ++T)
      Expected.push_back(Live + 0x1000 * (D * 8 + T));
  std::sort(Expected.begin(), Expected.end());
  EXPECT_EQ(words(Out, AccessSource::Decoded), Expected);
}

TEST(MultiTensorApplyPlanTest, AGenericScanOfTheSameBlockReadsTheStaleSlots) {
  // The bug the plan fixes: every word of the struct looks like an access.
  TensorListMeta<2, 64> M;
  fillThreeTensorLaunch(M, 2);
  std::vector<ParamSlot> Layout = layoutOf(M);
  void *Params[] = {&M};
  std::vector<CandidatePointer> Out;
  genericScan(LaunchParams(Layout, Params), Out);
  EXPECT_TRUE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded).size(), 0u);
}

TEST(MultiTensorApplyPlanTest, RejectsALaunchThatContradictsTheLayout) {
  TensorListMeta<2, 64> M;
  fillThreeTensorLaunch(M, 2);
  auto Plan = planFor(MtaName2, layoutOf(M));
  std::vector<ParamSlot> Layout = layoutOf(M);
  void *Params[] = {&M};
  std::vector<CandidatePointer> Out;
  M.block_to_chunk[2] = 5; // chunk 5 of a 100000-element tensor does not exist
  EXPECT_FALSE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{4, 1, 1}, Out));
  M.block_to_chunk[2] = 1;
  EXPECT_FALSE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{321, 1, 1}, Out));
  M.block_to_tensor[0] = 64; // beyond the 64 slots of depth 2
  EXPECT_FALSE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{4, 1, 1}, Out));
  EXPECT_TRUE(Out.empty());
}

TEST(MultiTensorApplyPlanTest, AStructOfTheWrongSizeGetsTheGenericRule) {
  TensorListMeta<2, 64> M;
  std::vector<ParamSlot> Layout = {{0, sizeof(M) - 8}};
  EXPECT_STREQ(planFor(MtaName2, Layout)->family(), "generic");
}

TEST(MultiTensorApplyPlanTest, FusedOptimizerIncludesTheStateStepsOfThisLaunch) {
  FusedMeta<5, 30, 30> M;
  fillThreeTensorLaunch(M, 5);
  for (int T = 0; T < 6; ++T)
    M.state_steps_addresses[T] = reinterpret_cast<const void *>((T < 3 ? Live : Stale) + 0x100000 + T);
  float *LrPtr = reinterpret_cast<float *>(Live + 0x200000);
  std::vector<ParamSlot> Layout = {{0, sizeof(M)}, {sizeof(M), 1}, {sizeof(M) + 8, 8}};
  auto Plan = planFor("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                      "namespace)::FusedOptimizerTensorListMetadata<5>, at::native::(anonymous "
                      "namespace)::FusedAdamMathFunctor<float, 5, (at::native::ADAM_MODE)1, false>, float "
                      "const*, double, double, double, double, double, bool, float const*, float const*>(...)",
                      Layout);
  ASSERT_STREQ(Plan->family(), "multi_tensor_apply");
  char Functor = 0;
  void *Params[] = {&M, &Functor, &LrPtr};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{4, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded).size(), 5u * 3 + 3);
  EXPECT_EQ(words(Out, AccessSource::PointerParameter), std::vector<Addr>{Live + 0x200000});
}

TEST(MultiTensorApplyPlanTest, ScalarListLayoutFollowsTheScalarSize) {
  ScalarListMeta<double, 3, 48> M;
  fillThreeTensorLaunch(M, 3);
  std::vector<ParamSlot> Layout = layoutOf(M);
  auto Plan = planFor("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                      "namespace)::TensorListScalarListMetadata<double, 3>, X>(...)",
                      Layout);
  ASSERT_STREQ(Plan->family(), "multi_tensor_apply");
  void *Params[] = {&M};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{4, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded).size(), 9u);

  ScalarListMeta<float, 1, 96> F;
  fillThreeTensorLaunch(F, 1);
  std::vector<ParamSlot> FLayout = layoutOf(F);
  auto FPlan = planFor("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                       "namespace)::TensorListScalarListMetadata<float, 1>, X>(...)",
                       FLayout);
  ASSERT_STREQ(FPlan->family(), "multi_tensor_apply");
  void *FParams[] = {&F};
  Out.clear();
  ASSERT_TRUE(FPlan->decode(LaunchParams(FLayout, FParams), LaunchGrid{4, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded).size(), 3u);
}

TEST(MultiTensorApplyPlanTest, DecodesAPackedExtraBufferToo) {
  TensorListMeta<2, 64> M;
  fillThreeTensorLaunch(M, 2);
  std::vector<ParamSlot> Layout = layoutOf(M);
  auto Plan = planFor(MtaName2, Layout);
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, reinterpret_cast<const unsigned char *>(&M), sizeof(M)),
                           LaunchGrid{4, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(Out.size(), 6u);
}

// --- TensorIterator ----------------------------------------------------------

TEST(ElementwisePlanTest, LegacyKernelReadsTheDataArrayNotTheCalculatorsGarbage) {
  struct Lambda {
    OffsetCalc<2> offset_calc;
    std::array<char *, 2> data;
    char f;
  } L;
  fillCalculator(L.offset_calc, 2);
  L.data = {reinterpret_cast<char *>(Live + 0x10), reinterpret_cast<char *>(Live + 0x20)};
  int N = 1000;
  std::vector<ParamSlot> Layout = {{0, 4}, {8, sizeof(L)}};
  auto Plan = planFor(DirectCopyName, Layout);
  ASSERT_STREQ(Plan->family(), "tensor_iterator_elementwise");
  void *Params[] = {&N, &L};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{8, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded), (std::vector<Addr>{Live + 0x10, Live + 0x20}));

  Out.clear(); // what the generic rule would have seen
  genericScan(LaunchParams(Layout, Params), Out);
  EXPECT_TRUE(anyStale(Out));
}

TEST(ElementwisePlanTest, LegacyKernelOfUnknownArityStillSkipsTheDividerTable) {
  struct Lambda {
    OffsetCalc<3> offset_calc;
    std::array<char *, 3> data;
  } L;
  fillCalculator(L.offset_calc, 1);
  std::memset(L.offset_calc.strides_, 0, sizeof(L.offset_calc.strides_));
  L.data = {reinterpret_cast<char *>(Live + 0x10), reinterpret_cast<char *>(Live + 0x20),
            reinterpret_cast<char *>(Live + 0x30)};
  int N = 10;
  std::vector<ParamSlot> Layout = {{0, 4}, {8, sizeof(L)}};
  auto Plan = planFor("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
                      "CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> "
                      "const&)::{lambda(int)#1}>(int, X)",
                      Layout);
  ASSERT_STREQ(Plan->family(), "tensor_iterator_elementwise");
  void *Params[] = {&N, &L};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{8, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  // The data pointers come through as generic words (the strides' small
  // numbers too: the engine finds no allocation there).
  std::vector<Addr> Generic = words(Out, AccessSource::GenericScan);
  EXPECT_EQ(std::count_if(Generic.begin(), Generic.end(), [](Addr W) { return (W >> 40) == (Live >> 40); }), 3);
}

TEST(ElementwisePlanTest, VectorizedKernelDecodesItsDataArray) {
  std::array<char *, 3> Data = {reinterpret_cast<char *>(Live + 1), reinterpret_cast<char *>(Live + 2),
                                reinterpret_cast<char *>(Live + 3)};
  struct Functor {
    float alpha;
  } F{2};
  int N = 10;
  std::vector<ParamSlot> Layout = {{0, 4}, {4, 4}, {8, 24}};
  auto Plan = planFor("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
                      Layout);
  ASSERT_STREQ(Plan->family(), "tensor_iterator_elementwise");
  void *Params[] = {&N, &F, &Data};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{1, 1, 1}, Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded), (std::vector<Addr>{Live + 1, Live + 2, Live + 3}));
}

TEST(ReducePlanTest, OneOutputIgnoresTheUnsetSecondDestinationAndTheCalculators) {
  ReduceOpMirror<bool> R;
  fillReduce(R, 1);
  std::vector<ParamSlot> Layout = layoutOf(R);
  auto Plan = planFor(AllReduceName, Layout);
  ASSERT_STREQ(Plan->family(), "tensor_iterator_reduce");
  void *Params[] = {&R};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{1, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded), (std::vector<Addr>{Live + 0x100, Live + 0x200, Live + 0x400}));
}

TEST(ReducePlanTest, TwoOutputsAndASixteenByteAlignedStruct) {
  struct alignas(16) Wide {
    double re, im;
  };
  ReduceOpMirror<Wide> R;
  static_assert(sizeof(R) % 16 == 0, "the mirror must be 16-aligned");
  fillReduce(R, 2);
  std::vector<ParamSlot> Layout = layoutOf(R);
  auto Plan = planFor(AllReduceName, Layout);
  void *Params[] = {&R};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{1, 1, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded),
            (std::vector<Addr>{Live + 0x100, Live + 0x200, Live + 0x300, Live + 0x400}));
}

TEST(ReducePlanTest, RejectsATailWithImpossibleFlags) {
  ReduceOpMirror<bool> R;
  fillReduce(R, 1);
  R.noutputs = 7;
  std::vector<ParamSlot> Layout = layoutOf(R);
  void *Params[] = {&R};
  std::vector<CandidatePointer> Out;
  EXPECT_FALSE(planFor(AllReduceName, Layout)->decode(LaunchParams(Layout, Params), LaunchGrid{}, Out));
  EXPECT_TRUE(Out.empty());
}

// --- torch.cat ---------------------------------------------------------------

TEST(CatBatchedCopyPlanTest, ReadsTheInputsOfThisBatchOnly) {
  struct Meta {
    const float *input[128];
    unsigned offset[128], dimSize[128], nElements[128];
    bool isContiguous[128];
    unsigned sizes[4], strides[4];
  } M;
  std::memset(&M, 0, sizeof(M));
  for (int I = 0; I < 128; ++I)
    M.input[I] = reinterpret_cast<const float *>((I < 2 ? Live : Stale) + 0x1000 * I);
  float *Output = reinterpret_cast<float *>(Live + 0x900000);
  std::vector<ParamSlot> Layout = {{0, 8}, {8, sizeof(M)}, {8 + sizeof(M), 32}, {40 + sizeof(M), 4}};
  auto Plan = planFor("void at::native::(anonymous namespace)::CatArrayBatchedCopy_alignedK_contig<at::native::("
                      "anonymous namespace)::OpaqueType<4u>, unsigned int, 1, 128, 1, 16>(at::native::(anonymous "
                      "namespace)::OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<"
                      "at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, at::native::("
                      "anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
                      Layout);
  ASSERT_STREQ(Plan->family(), "cat_batched_copy");
  unsigned Dummy[8] = {};
  int Dim = 0;
  void *Params[] = {&Output, &M, Dummy, &Dim};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{132, 2, 1}, Out));
  EXPECT_FALSE(anyStale(Out));
  EXPECT_EQ(words(Out, AccessSource::Decoded), (std::vector<Addr>{Live, Live + 0x1000, Live + 0x900000}));
  Out.clear();
  EXPECT_FALSE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{132, 129, 1}, Out));
}

// --- the generic rule ----------------------------------------------------------

TEST(GenericRuleTest, PointerSizedParametersAreTrustedStructWordsAreNot) {
  float *A = reinterpret_cast<float *>(Live + 8);
  struct S {
    int m, n;
    const float *p;
  } P{1, 2, reinterpret_cast<const float *>(Live + 16)};
  int N = 3;
  std::vector<ParamSlot> Layout = {{0, 8}, {8, sizeof(S)}, {24, 4}};
  auto Plan = planFor("void cutlass::Kernel<X>(X::Params)", Layout);
  ASSERT_STREQ(Plan->family(), "generic");
  void *Params[] = {&A, &P, &N};
  std::vector<CandidatePointer> Out;
  ASSERT_TRUE(Plan->decode(LaunchParams(Layout, Params), LaunchGrid{}, Out));
  EXPECT_EQ(words(Out, AccessSource::PointerParameter), std::vector<Addr>{Live + 8});
  // m and n share one word: it is a candidate too, only ever as a generic one.
  EXPECT_EQ(words(Out, AccessSource::GenericScan).size(), 2u);
}

TEST(TemplateArgumentsTest, SplitsAtTopLevelCommasOnly) {
  auto Args = templateArguments("f<a<b, c>, d(e, f), 3ul>(x)", "f<");
  ASSERT_EQ(Args.size(), 3u);
  EXPECT_EQ(Args[0], "a<b, c>");
  EXPECT_EQ(Args[1], "d(e, f)");
  EXPECT_EQ(Args[2], "3ul");
  EXPECT_TRUE(templateArguments("g<int", "g<").empty());
  EXPECT_TRUE(templateArguments("h", "g<").empty());
}

} // namespace
