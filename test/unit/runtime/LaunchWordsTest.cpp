//===- LaunchWordsTest.cpp - a generic-rule launch read straight into words ===//
//
// launchPointerWords reads a kernelParams launch of a kernel whose plan is the
// generic rule with genericScanWords, at the word slots laid out at the
// kernel's first sight (KernelInfo::GenericPlan, GenericWords); every other launch goes through the plan and its
// candidate list. Both must give the same words, in the same order, with the
// same generic-scan marks and the same family.
//
//===----------------------------------------------------------------------===//
#include "intercept/LaunchWords.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace streamlife::rt;

namespace {

/// One random launch: parameters of 1 to 40 bytes, some words zero, some
/// parameters missing (a null kernelParams entry).
struct RandomLaunch {
  std::vector<ParamSlot> Layout;
  std::vector<std::vector<unsigned char>> Bytes;
  std::vector<void *> Params;

  explicit RandomLaunch(std::mt19937_64 &Rng) {
    std::size_t Count = Rng() % 7;
    std::uint32_t Offset = 0;
    for (std::size_t I = 0; I < Count; ++I) {
      static const std::uint32_t Sizes[] = {1, 2, 4, 8, 8, 8, 12, 16, 24, 40};
      std::uint32_t Size = Sizes[Rng() % (sizeof(Sizes) / sizeof(Sizes[0]))];
      Layout.push_back(ParamSlot{Offset, Size});
      Offset += (Size + 7) / 8 * 8;
      std::vector<unsigned char> B(Size);
      for (std::size_t At = 0; At < Size; At += 8) {
        std::uint64_t W = Rng() % 3 == 0 ? 0 : (0x7f0000000000ull | (Rng() & 0xffffff0));
        std::memcpy(B.data() + At, &W, std::min<std::size_t>(8, Size - At));
      }
      Bytes.push_back(std::move(B));
    }
    for (std::size_t I = 0; I < Count; ++I)
      Params.push_back(Rng() % 8 == 0 ? nullptr : Bytes[I].data());
  }
};

KernelInfo genericKernel(const std::vector<ParamSlot> &Layout, bool Hoisted) {
  KernelInfo Info;
  Info.LayoutKnown = true;
  Info.Layout = Layout;
  Info.Plan = planFor("void someKernel(float*, int)", Layout);
  Info.GenericPlan = Hoisted;
  if (Hoisted)
    Info.GenericWords = genericWordSlots(Layout);
  return Info;
}

bool sameWords(const std::vector<PointerWord> &A, const std::vector<PointerWord> &B) {
  if (A.size() != B.size())
    return false;
  for (std::size_t I = 0; I < A.size(); ++I)
    if (A[I].Word != B[I].Word || A[I].FromGenericScan != B[I].FromGenericScan)
      return false;
  return true;
}

} // namespace

TEST(LaunchWordsTest, OnlyTheGenericRuleIsMarkedGeneric) {
  std::vector<ParamSlot> Layout = {{0, 8}, {8, 16}};
  EXPECT_TRUE(planFor("void someKernel(float*, int)", Layout)->generic());
  EXPECT_STREQ(genericKernel(Layout, false).Plan->family(), "generic");
}

TEST(LaunchWordsTest, TheHoistedGenericPathEqualsThePlansPath) {
  std::mt19937_64 Rng(12345);
  std::vector<PointerWord> Fast, Slow;
  // Stale contents must be replaced, not appended to.
  Fast.push_back(PointerWord{0x1234, true});
  Slow.push_back(PointerWord{0x5678, false});
  for (int Round = 0; Round < 2000; ++Round) {
    RandomLaunch L(Rng);
    KernelInfo Hoisted = genericKernel(L.Layout, true);
    KernelInfo Planned = genericKernel(L.Layout, false);
    LaunchDecoding F = launchPointerWords(Hoisted, L.Params.data(), nullptr, LaunchGrid{}, Fast);
    LaunchDecoding S = launchPointerWords(Planned, L.Params.data(), nullptr, LaunchGrid{}, Slow);
    ASSERT_TRUE(sameWords(Fast, Slow)) << "round " << Round;
    ASSERT_EQ(F.Analysed, S.Analysed);
    ASSERT_STREQ(F.Family, S.Family);
  }
}

TEST(LaunchWordsTest, APackedLaunchOfAGenericKernelTakesThePlansPath) {
  // The hoisted path reads kernelParams only; `extra` launches are unchanged.
  std::vector<ParamSlot> Layout = {{0, 8}, {8, 8}};
  std::uint64_t Packed[2] = {0x7f0000001000ull, 0x7f0000002000ull};
  std::size_t Size = sizeof(Packed);
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &Size,
                   CU_LAUNCH_PARAM_END};
  std::vector<PointerWord> Fast, Slow;
  launchPointerWords(genericKernel(Layout, true), nullptr, Extra, LaunchGrid{}, Fast);
  launchPointerWords(genericKernel(Layout, false), nullptr, Extra, LaunchGrid{}, Slow);
  ASSERT_EQ(Fast.size(), 2u);
  EXPECT_TRUE(sameWords(Fast, Slow));
}
