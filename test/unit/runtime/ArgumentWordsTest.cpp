//===- ArgumentWordsTest.cpp - pointer words in kernel argument bytes -----===//
#include "intercept/KernelArguments.h"

#include <cuda.h>

#include <gtest/gtest.h>

#include <cstring>

using namespace streamlife::rt;

namespace {

TEST(ArgumentWordsTest, ReadsEachPointerParameter) {
  float *A = reinterpret_cast<float *>(0x7f0000001000);
  float *B = reinterpret_cast<float *>(0x7f0000002000);
  int N = 42;
  void *Params[] = {&A, &B, &N};
  std::vector<ParamSlot> Layout = {{0, 8}, {8, 8}, {16, 4}};
  std::vector<Addr> Words;
  wordsFromKernelParams(Params, Layout, Words);
  ASSERT_EQ(Words.size(), 2u);
  EXPECT_EQ(Words[0], 0x7f0000001000u);
  EXPECT_EQ(Words[1], 0x7f0000002000u);
}

TEST(ArgumentWordsTest, FindsPointersInsideByValueStructs) {
  // Like cuBLAS's one params struct: ints around two pointers.
  struct Params {
    int M, N;
    const float *In;
    long Stride;
    float *Out;
  } P{4, 5, reinterpret_cast<const float *>(0x1000), 0, reinterpret_cast<float *>(0x2000)};
  void *Args[] = {&P};
  std::vector<Addr> Words;
  wordsFromKernelParams(Args, {{0, sizeof(Params)}}, Words);
  // M and N share the first word; the zero stride is dropped.
  ASSERT_EQ(Words.size(), 3u);
  EXPECT_EQ(Words[1], 0x1000u);
  EXPECT_EQ(Words[2], 0x2000u);
}

TEST(ArgumentWordsTest, SkipsParametersTooSmallToHoldAPointer) {
  int A = 1, B = 2;
  void *Args[] = {&A, &B};
  std::vector<Addr> Words;
  wordsFromKernelParams(Args, {{0, 4}, {4, 4}}, Words);
  EXPECT_TRUE(Words.empty());
}

TEST(ArgumentWordsTest, ToleratesUnalignedArgumentStorage) {
  alignas(8) unsigned char Storage[24] = {};
  Addr Ptr = 0xdeadbeef000;
  std::memcpy(Storage + 3, &Ptr, sizeof(Ptr));
  void *Args[] = {Storage + 3};
  std::vector<Addr> Words;
  wordsFromKernelParams(Args, {{0, 8}}, Words);
  ASSERT_EQ(Words.size(), 1u);
  EXPECT_EQ(Words[0], Ptr);
}

TEST(ArgumentWordsTest, ReadsThePackedExtraBuffer) {
  alignas(8) unsigned char Buffer[32] = {};
  Addr P1 = 0x5000, P2 = 0x6000;
  int N = 7;
  std::memcpy(Buffer, &P1, 8);
  std::memcpy(Buffer + 8, &N, 4);
  std::memcpy(Buffer + 16, &P2, 8);
  std::size_t Size = 24;
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &Size,
                   CU_LAUNCH_PARAM_END};
  std::vector<Addr> Words;
  ASSERT_TRUE(wordsFromExtra(Extra, Words));
  ASSERT_EQ(Words.size(), 3u);
  EXPECT_EQ(Words[0], 0x5000u);
  EXPECT_EQ(Words[1], 7u);
  EXPECT_EQ(Words[2], 0x6000u);
}

TEST(ArgumentWordsTest, ExtraBufferSizeBoundsTheScan) {
  alignas(8) unsigned char Buffer[16] = {};
  Addr P1 = 0x5000, P2 = 0x6000;
  std::memcpy(Buffer, &P1, 8);
  std::memcpy(Buffer + 8, &P2, 8);
  std::size_t Size = 8;
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &Size, CU_LAUNCH_PARAM_BUFFER_POINTER, Buffer,
                   CU_LAUNCH_PARAM_END};
  std::vector<Addr> Words;
  ASSERT_TRUE(wordsFromExtra(Extra, Words));
  ASSERT_EQ(Words.size(), 1u);
  EXPECT_EQ(Words[0], 0x5000u);
}

TEST(ArgumentWordsTest, MalformedExtraListsAreRejected) {
  std::vector<Addr> Words;
  alignas(8) unsigned char Buffer[8] = {1};
  void *NoSize[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Buffer, CU_LAUNCH_PARAM_END};
  EXPECT_FALSE(wordsFromExtra(NoSize, Words));
  void *UnknownTag[] = {reinterpret_cast<void *>(0x77), Buffer, CU_LAUNCH_PARAM_END};
  EXPECT_FALSE(wordsFromExtra(UnknownTag, Words));
  EXPECT_FALSE(wordsFromExtra(nullptr, Words));
  EXPECT_TRUE(Words.empty());
}

} // namespace
