//===- CopyRangesTest.cpp - spans of pitched copies and sets ---------------===//
#include "intercept/CopyRanges.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

TEST(CopyRangesTest, PitchedRowsSpanFirstToLastByte) {
  // 3 rows of 100 bytes, 256 apart, from (x=8, y=2).
  Range R = pitchedSpan(0x10000, 8, 2, 256, 100, 3);
  EXPECT_EQ(R.Begin, 0x10000u + 2 * 256 + 8);
  EXPECT_EQ(R.Size, 2u * 256 + 100);
}

TEST(CopyRangesTest, ZeroPitchMeansPackedRows) {
  Range R = pitchedSpan(0x10000, 0, 1, 0, 64, 4);
  EXPECT_EQ(R.Begin, 0x10000u + 64);
  EXPECT_EQ(R.Size, 4u * 64);
}

TEST(CopyRangesTest, EmptyCopiesTouchNothing) {
  EXPECT_EQ(pitchedSpan(0x10000, 0, 0, 256, 0, 3).Size, 0u);
  EXPECT_EQ(pitchedSpan(0x10000, 0, 0, 256, 100, 0).Size, 0u);
  EXPECT_EQ(pitchedSpan(0, 0, 0, 256, 100, 3).Size, 0u);
  EXPECT_EQ(pitchedSpan3D(0x10000, 0, 0, 0, 256, 4, 100, 3, 0).Size, 0u);
}

TEST(CopyRangesTest, SlicesUseTheSliceHeight) {
  // 2 slices of 3 rows (of a 4-row slice), 100 bytes wide, pitch 128, from z=1.
  Range R = pitchedSpan3D(0x20000, 4, 1, 1, 128, 4, 100, 3, 2);
  EXPECT_EQ(R.Begin, 0x20000u + (1 * 4 + 1) * 128 + 4);
  EXPECT_EQ(R.Size, (1u * 4 + 2) * 128 + 100);
}

TEST(CopyRangesTest, OneSliceEqualsTheTwoDimensionalSpan) {
  Range A = pitchedSpan3D(0x30000, 16, 2, 0, 512, 0, 200, 5, 1);
  Range B = pitchedSpan(0x30000, 16, 2, 512, 200, 5);
  EXPECT_EQ(A.Begin, B.Begin);
  EXPECT_EQ(A.Size, B.Size);
}

} // namespace
