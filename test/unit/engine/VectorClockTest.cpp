//===- VectorClockTest.cpp - join, meet and epoch coverage ----------------===//

#include "engine/VectorClock.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

TEST(VectorClockTest, MissingComponentsAreZero) {
  VectorClock C;
  EXPECT_EQ(C.get(7), 0u);
  EXPECT_TRUE(C.covers(Epoch{7, 0}));
  EXPECT_FALSE(C.covers(Epoch{7, 1}));
}

TEST(VectorClockTest, TickAdvancesOnlyTheOwnComponent) {
  VectorClock C;
  EXPECT_EQ(C.tick(2), 1u);
  EXPECT_EQ(C.tick(2), 2u);
  EXPECT_EQ(C.get(0), 0u);
  EXPECT_EQ(C.get(2), 2u);
}

TEST(VectorClockTest, JoinTakesTheMaximumAndGrows) {
  VectorClock A, B;
  A.tick(0);
  A.tick(0);
  B.tick(0);
  B.tick(3);
  A.join(B);
  EXPECT_EQ(A.get(0), 2u);
  EXPECT_EQ(A.get(3), 1u);
  EXPECT_TRUE(A.covers(Epoch{3, 1}));
  EXPECT_FALSE(A.covers(Epoch{3, 2}));
}

TEST(VectorClockTest, MeetKeepsOnlyCommonKnowledge) {
  VectorClock A, B;
  A.tick(0);
  A.tick(1);
  A.tick(1);
  B.tick(1);
  B.tick(2);
  A.meet(B);
  EXPECT_EQ(A.get(0), 0u);
  EXPECT_EQ(A.get(1), 1u);
  EXPECT_EQ(A.get(2), 0u);
}

TEST(VectorClockTest, AssignCopiesExactly) {
  VectorClock A, B;
  A.tick(5);
  B.tick(1);
  B.assign(A);
  EXPECT_EQ(B.get(1), 0u);
  EXPECT_EQ(B.get(5), 1u);
}

TEST(VectorClockTest, DominatesIsComponentWise) {
  VectorClock A, B;
  A.tick(0);
  A.tick(2);
  B.tick(2);
  EXPECT_TRUE(A.dominates(B));
  EXPECT_FALSE(B.dominates(A));
  B.tick(2);
  EXPECT_FALSE(A.dominates(B));
}

// The engine's tests link the checked engine (STREAMLIFE_DCHECKS=1): a broken
// invariant stops the program instead of corrupting later verdicts.
TEST(VectorClockDeathTest, TickingNoSlotIsAnInvariantFailure) {
  ASSERT_EQ(STREAMLIFE_DCHECKS, 1);
  VectorClock C;
  EXPECT_DEATH(C.tick(NoSlot), "engine invariant 'Own != NoSlot' broken");
}
