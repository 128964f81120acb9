//===- OpTableTest.cpp - one call site under two names --------------------===//
//
// OpTable::sameStack remembers its answers per thread (a launch whose
// parameters the generic rule read asks for the same pair at every launch):
// the answers must be the table's own, and the same as computing them afresh.
//
//===----------------------------------------------------------------------===//
#include "callsites/CallSites.h"

#include <gtest/gtest.h>

#include <optional>

using namespace streamlife::rt;

namespace {

void *frame(std::uintptr_t A) { return reinterpret_cast<void *>(A); }

TEST(OpTableSameStackTest, KeepsTheStackUnderTheOtherName) {
  OpTable Ops;
  void *Frames[] = {frame(0x1000), frame(0x2000)};
  OpId Op = Ops.intern(Ops.internName("kernel 'k'"), Frames, 2);
  NameId Generic = Ops.internName("kernel 'k' (generic)");
  OpId Same = Ops.sameStack(Op, Generic);
  EXPECT_NE(Same, Op);
  EXPECT_EQ(Ops.op(Same).Name, Generic);
  EXPECT_EQ(Ops.op(Same).Frames, Ops.op(Op).Frames);
  // Asked again (answered from the thread's memory): the same op, and the
  // same one interning that stack under that name gives.
  EXPECT_EQ(Ops.sameStack(Op, Generic), Same);
  EXPECT_EQ(Ops.intern(Generic, Frames, 2), Same);
}

TEST(OpTableSameStackTest, OtherStacksAndNamesGetTheirOwnOps) {
  OpTable Ops;
  NameId Name = Ops.internName("kernel 'k'");
  void *First[] = {frame(0x1000)}, *Second[] = {frame(0x3000)};
  OpId A = Ops.intern(Name, First, 1), B = Ops.intern(Name, Second, 1);
  NameId G1 = Ops.internName("g1"), G2 = Ops.internName("g2");
  OpId A1 = Ops.sameStack(A, G1), B1 = Ops.sameStack(B, G1), A2 = Ops.sameStack(A, G2);
  EXPECT_NE(A1, B1);
  EXPECT_NE(A1, A2);
  EXPECT_EQ(Ops.op(B1).Frames, std::vector<void *>{frame(0x3000)});
  EXPECT_EQ(Ops.op(A2).Name, G2);
  EXPECT_EQ(Ops.sameStack(B, G1), B1);
}

TEST(OpTableSameStackTest, ANewTableAtTheSameAddressDoesNotReadTheOldOnesAnswers) {
  std::optional<OpTable> Ops;
  Ops.emplace();
  void *Old[] = {frame(0x1000)};
  OpId Op = Ops->intern(Ops->internName("kernel 'k'"), Old, 1);
  NameId Generic = Ops->internName("generic");
  OpId OldAnswer = Ops->sameStack(Op, Generic);
  // The same storage, the same ids for other stacks: op Op now has New's
  // frames, and the answer in the old table's place (OldAnswer) is another op.
  Ops.emplace();
  void *New[] = {frame(0x7000)}, *Filler[] = {frame(0x9000)};
  ASSERT_EQ(Ops->intern(Ops->internName("kernel 'k'"), New, 1), Op);
  ASSERT_EQ(Ops->internName("generic"), Generic);
  ASSERT_EQ(Ops->intern(Ops->internName("filler"), Filler, 1), OldAnswer);
  OpId Same = Ops->sameStack(Op, Generic);
  EXPECT_NE(Same, OldAnswer);
  EXPECT_EQ(Ops->op(Same).Name, Generic);
  EXPECT_EQ(Ops->op(Same).Frames, std::vector<void *>{frame(0x7000)});
}

TEST(OpTableSameStackTest, AnUnknownOpHasNoStackAndIsNotRemembered) {
  OpTable Ops;
  NameId Generic = Ops.internName("generic");
  OpId Unknown = 5;
  OpId Empty = Ops.sameStack(Unknown, Generic);
  EXPECT_TRUE(Ops.op(Empty).Frames.empty());
  // Op 5 comes to exist with a stack: its answer has that stack.
  NameId Name = Ops.internName("kernel 'k'");
  OpId Made = NoOp;
  for (std::uintptr_t I = 1; Made < Unknown; ++I) {
    void *Frames[] = {frame(0x1000 * I)};
    Made = Ops.intern(Name, Frames, 1);
  }
  ASSERT_EQ(Made, Unknown);
  EXPECT_EQ(Ops.op(Ops.sameStack(Unknown, Generic)).Frames, Ops.op(Unknown).Frames);
}

} // namespace
