//===- NcclCollectivesTest.cpp - byte ranges of NCCL calls ----------------===//
#include "intercept/NcclCollectives.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

const void *at(Addr A) { return reinterpret_cast<const void *>(A); }
constexpr int Float32 = 7, Bfloat16 = 9, Int8 = 0;

TEST(NcclCollectivesTest, ElementSizesFollowNcclDataTypeNumbering) {
  EXPECT_EQ(ncclElementSize(Int8), 1u);
  EXPECT_EQ(ncclElementSize(2), 4u); // int32
  EXPECT_EQ(ncclElementSize(4), 8u); // int64
  EXPECT_EQ(ncclElementSize(6), 2u); // float16
  EXPECT_EQ(ncclElementSize(Float32), 4u);
  EXPECT_EQ(ncclElementSize(8), 8u); // float64
  EXPECT_EQ(ncclElementSize(Bfloat16), 2u);
  EXPECT_EQ(ncclElementSize(42), 0u);
}

TEST(NcclCollectivesTest, AllGatherReceivesEveryRanksShare) {
  NcclBuffers B = ncclBuffers(NcclCall::AllGather, at(0x1000), at(0x8000), 100, Float32, 4);
  ASSERT_EQ(B.Ranges.size(), 2u);
  EXPECT_EQ(B.Ranges[0].Begin, 0x1000u);
  EXPECT_EQ(B.Ranges[0].Size, 400u);
  EXPECT_EQ(B.Ranges[1].Begin, 0x8000u);
  EXPECT_EQ(B.Ranges[1].Size, 1600u);
}

TEST(NcclCollectivesTest, ReduceScatterSendsEveryRanksShare) {
  NcclBuffers B = ncclBuffers(NcclCall::ReduceScatter, at(0x1000), at(0x8000), 100, Bfloat16, 2);
  ASSERT_EQ(B.Ranges.size(), 2u);
  EXPECT_EQ(B.Ranges[0].Size, 400u);
  EXPECT_EQ(B.Ranges[1].Size, 200u);
}

TEST(NcclCollectivesTest, PointToPointTouchesOneBuffer) {
  NcclBuffers S = ncclBuffers(NcclCall::Send, at(0x1000), nullptr, 10, Int8, 2);
  ASSERT_EQ(S.Ranges.size(), 1u);
  EXPECT_EQ(S.Ranges[0].Size, 10u);
  NcclBuffers R = ncclBuffers(NcclCall::Recv, nullptr, at(0x2000), 10, Int8, 2);
  ASSERT_EQ(R.Ranges.size(), 1u);
  EXPECT_EQ(R.Ranges[0].Begin, 0x2000u);
}

TEST(NcclCollectivesTest, UnknownTypesTouchTheWholeAllocationsAndEmptyCallsNothing) {
  NcclBuffers U = ncclBuffers(NcclCall::AllReduce, at(0x1000), at(0x1000), 10, 99, 2);
  ASSERT_EQ(U.Ranges.size(), 2u);
  EXPECT_EQ(U.Ranges[0].Size, WholeAllocation);
  EXPECT_TRUE(ncclBuffers(NcclCall::AllReduce, at(0x1000), at(0x1000), 0, Float32, 2).Ranges.empty());
}

} // namespace
