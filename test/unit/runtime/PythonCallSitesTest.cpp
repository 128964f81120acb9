//===- PythonCallSitesTest.cpp - remembered Python call sites -------------===//
//
// A remembered op is returned only for exactly the key it was interned under:
// the same table, name and raw frames (each frame's code object, its name
// objects and its instruction). Anything else must miss, so that it is named
// and interned afresh.
//
//===----------------------------------------------------------------------===//
#include "callsites/PythonCallSites.h"
#include "callsites/PythonFrameWalker.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace streamlife::rt;

namespace {

const void *at(std::uintptr_t A) { return reinterpret_cast<const void *>(A); }

struct RawStackMemoryTest : ::testing::Test {
  RawStackMemory Memory;
  RawPythonFrame Stack[3] = {{at(0x1000), at(0x1100), at(0x1200), 14},
                             {at(0x2000), at(0x2100), at(0x2200), 40},
                             {at(0x3000), at(0x3100), at(0x3200), 2}};
  static constexpr std::uint64_t Table = 7;
  static constexpr NameId Name = 3;
  static constexpr OpId Op = 42;
  void SetUp() override { Memory.remember(Table, Name, Stack, 3, hashRawPythonFrames(Stack, 3), Op); }
};

TEST_F(RawStackMemoryTest, TheSameKeyFindsTheOp) {
  EXPECT_EQ(Memory.find(Table, Name, Stack, 3, hashRawPythonFrames(Stack, 3)), Op);
}

TEST_F(RawStackMemoryTest, AnotherTableOrNameMisses) {
  EXPECT_EQ(Memory.find(Table + 1, Name, Stack, 3, hashRawPythonFrames(Stack, 3)), NoOp);
  EXPECT_EQ(Memory.find(Table, Name + 1, Stack, 3, hashRawPythonFrames(Stack, 3)), NoOp);
}

TEST_F(RawStackMemoryTest, AnyFrameThatDiffersMisses) {
  for (int Frame = 0; Frame < 3; ++Frame) {
    for (int Field = 0; Field < 4; ++Field) {
      RawPythonFrame Other[3] = {Stack[0], Stack[1], Stack[2]};
      RawPythonFrame &F = Other[Frame];
      switch (Field) {
      case 0: // another instruction: another line
        F.Lasti += 1;
        break;
      case 1: // a new code object at the same address with other names
        F.File = at(0x9100);
        break;
      case 2:
        F.Name = at(0x9200);
        break;
      case 3:
        F.Code = at(0x9000);
        break;
      }
      EXPECT_EQ(Memory.find(Table, Name, Other, 3, hashRawPythonFrames(Other, 3)), NoOp)
          << "frame " << Frame << ", field " << Field;
    }
  }
}

TEST_F(RawStackMemoryTest, ADeeperOrShallowerStackMisses) {
  EXPECT_EQ(Memory.find(Table, Name, Stack, 2, hashRawPythonFrames(Stack, 2)), NoOp);
  RawPythonFrame Deeper[4] = {Stack[0], Stack[1], Stack[2], {at(0x4000), at(0x4100), at(0x4200), 1}};
  EXPECT_EQ(Memory.find(Table, Name, Deeper, 4, hashRawPythonFrames(Deeper, 4)), NoOp);
  EXPECT_EQ(Memory.find(Table, Name, Stack, 0, hashRawPythonFrames(Stack, 0)), NoOp);
}

TEST_F(RawStackMemoryTest, RememberingAnotherKeyInTheSameSlotReplacesIt) {
  RawPythonFrame Other[1] = {{at(0x5000), at(0x5100), at(0x5200), 8}};
  Memory.remember(Table, Name, Other, 1, hashRawPythonFrames(Other, 1), 43);
  EXPECT_EQ(Memory.find(Table, Name, Other, 1, hashRawPythonFrames(Other, 1)), 43u);
  OpId Found = Memory.find(Table, Name, Stack, 3, hashRawPythonFrames(Stack, 3));
  EXPECT_TRUE(Found == Op || Found == NoOp); // kept, or evicted: never the other op
}

// What a capture compares its walk with (walkRawPythonStackExpecting): the
// stack last found or remembered for the same table and name, never another
// key's, so that a walk equal to it may take its op.
TEST_F(RawStackMemoryTest, TheExpectationIsTheLastStackOfTheSameKey) {
  RawStackMemory::Expectation E = Memory.expected(Table, Name);
  ASSERT_EQ(E.N, 3);
  EXPECT_EQ(std::memcmp(E.Frames, Stack, sizeof(Stack)), 0);
  EXPECT_EQ(E.Op, Op);
  EXPECT_EQ(Memory.expected(Table + 1, Name).N, 0);
  EXPECT_EQ(Memory.expected(Table + 1, Name).Op, NoOp);
  EXPECT_EQ(Memory.expected(Table, Name + 1).N, 0);
  // Another name of the same expectation slot (names are taken by their low
  // bits) takes the slot; the first name then expects nothing.
  RawPythonFrame Other[1] = {{at(0x5000), at(0x5100), at(0x5200), 8}};
  Memory.remember(Table, Name + 256, Other, 1, hashRawPythonFrames(Other, 1), 44);
  EXPECT_EQ(Memory.expected(Table, Name).N, 0);
  EXPECT_EQ(Memory.expected(Table, Name).Op, NoOp);
  EXPECT_EQ(Memory.expected(Table, Name + 256).Op, 44u);
  // Finding a stack makes it the expectation again.
  EXPECT_EQ(Memory.find(Table, Name, Stack, 3, hashRawPythonFrames(Stack, 3)), Op);
  EXPECT_EQ(Memory.expected(Table, Name).Op, Op);
  // Of two stacks of one name, the last remembered or found.
  RawPythonFrame Second[2] = {Stack[1], Stack[2]};
  Memory.remember(Table, Name, Second, 2, hashRawPythonFrames(Second, 2), 45);
  EXPECT_EQ(Memory.expected(Table, Name).Op, 45u);
  EXPECT_EQ(Memory.expected(Table, Name).N, 2);
  EXPECT_EQ(Memory.find(Table, Name, Stack, 3, hashRawPythonFrames(Stack, 3)), Op);
  EXPECT_EQ(Memory.expected(Table, Name).Op, Op);
  // A failed expectation: nothing is expected of the name until a plain
  // capture finds the stack it would have expected.
  Memory.expectationFailed(Name);
  EXPECT_EQ(Memory.expected(Table, Name).Frames, nullptr);
  EXPECT_EQ(Memory.find(Table, Name, Second, 2, hashRawPythonFrames(Second, 2)), 45u);
  EXPECT_EQ(Memory.expected(Table, Name).Frames, nullptr) << "the stacks take turns: still nothing";
  EXPECT_EQ(Memory.find(Table, Name, Second, 2, hashRawPythonFrames(Second, 2)), 45u);
  EXPECT_EQ(Memory.expected(Table, Name).Op, 45u) << "the same stack again: expected again";
}

// Keys of one set compete for its Ways entries, and the least recently found
// or remembered one makes room: a thread's few hundred call sites, several of
// which share a set, are all kept (direct-mapped, two sites of one slot
// evicted each other at every capture).
TEST(RawStackMemorySets, KeysOfOneSetAreKeptUpToItsWaysAndTheLeastRecentlyUsedMakesRoom) {
  RawStackMemory Memory;
  constexpr std::uint64_t Table = 7;
  constexpr NameId Name = 3;
  // Ways + 1 stacks (one frame, another instruction each) whose keys fall in one set.
  std::vector<RawPythonFrame> Stacks;
  std::size_t Set = ~std::size_t(0);
  for (int Lasti = 0; Stacks.size() < RawStackMemory::Ways + 1 && Lasti < 1000000; ++Lasti) {
    RawPythonFrame Frame{at(0x1000), at(0x1100), at(0x1200), Lasti};
    std::size_t Its = RawStackMemory::setOf(Table, Name, hashRawPythonFrames(&Frame, 1));
    if (Stacks.empty())
      Set = Its;
    if (Its == Set)
      Stacks.push_back(Frame);
  }
  ASSERT_EQ(Stacks.size(), RawStackMemory::Ways + 1);
  auto find = [&](std::size_t I) {
    return Memory.find(Table, Name, &Stacks[I], 1, hashRawPythonFrames(&Stacks[I], 1));
  };
  for (std::size_t I = 0; I < RawStackMemory::Ways; ++I)
    Memory.remember(Table, Name, &Stacks[I], 1, hashRawPythonFrames(&Stacks[I], 1), OpId(100 + I));
  for (std::size_t I = 0; I < RawStackMemory::Ways; ++I)
    EXPECT_EQ(find(I), OpId(100 + I)) << "stack " << I;
  // Found again in this order, the second is the least recently used: the new key takes its entry.
  for (std::size_t I : {0, 2, 3})
    EXPECT_EQ(find(I), OpId(100 + I));
  static_assert(RawStackMemory::Ways == 4, "the order above names each way");
  Memory.remember(Table, Name, &Stacks[4], 1, hashRawPythonFrames(&Stacks[4], 1), 104);
  EXPECT_EQ(find(4), 104u);
  EXPECT_EQ(find(1), NoOp);
  for (std::size_t I : {0, 2, 3})
    EXPECT_EQ(find(I), OpId(100 + I)) << "stack " << I;
}

} // namespace
