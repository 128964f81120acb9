//===- LibraryOperandsTest.cpp - the bytes a math-library call touches ----===//
#include "intercept/LibraryOperands.h"

#include <gtest/gtest.h>
#include <library_types.h>

using namespace streamlife::rt;

namespace {

TEST(LibraryOperandsTest, ColumnMajorSpansFirstToLastElement) {
  // 3 rows of a 4 x 5 float matrix with leading dimension 8: the last column
  // starts 4 * 8 elements in and ends 3 elements later.
  MatrixOperand M{0x1000, 3, 5, 8, 4};
  Range R = operandSpan(M);
  EXPECT_EQ(R.Begin, 0x1000u);
  EXPECT_EQ(R.Size, (4u * 8 + 3) * 4);
}

TEST(LibraryOperandsTest, RowMajorLeadsWithRows) {
  MatrixOperand M{0x1000, 3, 5, 8, 2};
  M.RowMajor = true;
  EXPECT_EQ(operandSpan(M).Size, (2u * 8 + 5) * 2);
}

TEST(LibraryOperandsTest, BatchesAddTheirStride) {
  MatrixOperand M{0x1000, 4, 4, 4, 4};
  M.Batches = 3;
  M.BatchStride = 32;
  EXPECT_EQ(operandSpan(M).Size, (16u + 2 * 32) * 4);
  M.BatchStride = 0; // one matrix broadcast over the batch
  EXPECT_EQ(operandSpan(M).Size, 16u * 4);
}

TEST(LibraryOperandsTest, EmptyOperandsTouchNothing) {
  EXPECT_EQ(operandSpan(MatrixOperand{0, 4, 4, 4, 4}).Size, 0u);
  EXPECT_EQ(operandSpan(MatrixOperand{0x1000, 0, 4, 4, 4}).Size, 0u);
  EXPECT_EQ(operandSpan(MatrixOperand{0x1000, 4, 0, 4, 4}).Size, 0u);
}

TEST(LibraryOperandsTest, UnboundedLayoutsTouchTheWholeAllocation) {
  EXPECT_EQ(operandSpan(MatrixOperand{0x1000, 4, 4, 4, 0}).Size, WholeAllocation); // sub-byte type
  EXPECT_EQ(operandSpan(MatrixOperand{0x1000, 4, 4, 2, 4}).Size, WholeAllocation); // ld < rows
  MatrixOperand Negative{0x1000, 4, 4, 4, 4};
  Negative.Batches = 2;
  Negative.BatchStride = -16;
  EXPECT_EQ(operandSpan(Negative).Size, WholeAllocation);
  MatrixOperand Huge{0x1000, 1, std::int64_t(1) << 40, std::int64_t(1) << 40, 16};
  EXPECT_EQ(operandSpan(Huge).Size, WholeAllocation); // no real memory is that large
}

TEST(LibraryOperandsTest, ElementSizes) {
  EXPECT_EQ(dataTypeSize(CUDA_R_32F), 4u);
  EXPECT_EQ(dataTypeSize(CUDA_R_16BF), 2u);
  EXPECT_EQ(dataTypeSize(CUDA_R_16F), 2u);
  EXPECT_EQ(dataTypeSize(CUDA_C_64F), 16u);
  EXPECT_EQ(dataTypeSize(CUDA_R_8F_E4M3), 1u);
  EXPECT_EQ(dataTypeSize(CUDA_R_4F_E2M1), 0u);
  EXPECT_EQ(dataTypeSize(12345), 0u);
}

TEST(LibraryOperandsTest, GemmStoresTransposedOperandsTheOtherWayRound) {
  // C (8 x 6) = A^T * B with A stored k x m = 4 x 8 (lda 4), B k x n = 4 x 6.
  GemmCall G;
  G.TransA = 1;
  G.M = 8;
  G.N = 6;
  G.K = 4;
  G.A = 0x10000;
  G.B = 0x20000;
  G.C = 0x30000;
  G.Lda = 4;
  G.Ldb = 4;
  G.Ldc = 8;
  G.SizeA = G.SizeB = G.SizeC = 2;
  std::vector<Range> Ranges;
  gemmRanges(G, Ranges);
  ASSERT_EQ(Ranges.size(), 3u);
  EXPECT_EQ(Ranges[0].Size, (7u * 4 + 4) * 2); // 8 columns of 4
  EXPECT_EQ(Ranges[1].Size, (5u * 4 + 4) * 2); // 6 columns of 4
  EXPECT_EQ(Ranges[2].Size, (5u * 8 + 8) * 2); // 6 columns of 8
}

TEST(LibraryOperandsTest, GemmWithoutInnerDimensionReadsNoInput) {
  GemmCall G;
  G.M = G.N = 4;
  G.K = 0;
  G.A = 0x1000;
  G.B = 0x2000;
  G.C = 0x3000;
  G.Lda = G.Ldb = G.Ldc = 4;
  G.SizeA = G.SizeB = G.SizeC = 4;
  std::vector<Range> Ranges;
  gemmRanges(G, Ranges);
  ASSERT_EQ(Ranges.size(), 1u);
  EXPECT_EQ(Ranges[0].Begin, 0x3000u);
}

} // namespace
