//===- FreeListTest.cpp - recycled storage of the lifetime records --------===//
//
// The engine makes its Allocation records with std::allocate_shared over a
// FreeList (FreeList.h): a record that died gives its block back, and the
// next record takes it instead of a new one. Objects of one size through
// allocate_shared: constructed and destroyed as with make_shared, blocks
// handed out again (the same addresses, no new ones while some are free),
// and blocks of another size passing through unrecycled.
//
//===----------------------------------------------------------------------===//
#include "engine/FreeList.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

using namespace streamlife::rt;

namespace {

struct Counted {
  explicit Counted(int &Alive) : Alive(Alive) { ++Alive; }
  ~Counted() { --Alive; }
  int &Alive;
  char Payload[64] = {};
};

} // namespace

TEST(FreeListTest, DeadRecordsBlocksAreHandedOutAgain) {
  FreeList List;
  int Alive = 0;
  std::vector<std::shared_ptr<Counted>> Records;
  std::set<const void *> Blocks;
  for (int I = 0; I < 8; ++I) {
    Records.push_back(std::allocate_shared<Counted>(FreeListAllocator<Counted>(List), Alive));
    Blocks.insert(Records.back().get());
  }
  EXPECT_EQ(Alive, 8);
  Records.clear();
  EXPECT_EQ(Alive, 0) << "destroyed as with make_shared";
  // Kept by the list, not freed: malloc cannot hand them to anyone else
  // (blocks freed to malloc would come back here first).
  std::vector<void *> Others;
  for (std::size_t Size = 64; Size <= 192; Size += 8)
    for (int I = 0; I < 8; ++I) {
      Others.push_back(::operator new(Size));
      // A block starts a little before its record (the control block's counts).
      const auto *At = static_cast<const char *>(Others.back());
      auto Next = Blocks.lower_bound(At);
      EXPECT_TRUE(Next == Blocks.end() || static_cast<const char *>(*Next) - At > 32)
          << "a kept block was freed";
    }
  for (void *P : Others)
    ::operator delete(P);
  // Eight blocks were given back: the next eight records take them, and a
  // ninth needs a new one.
  for (int I = 0; I < 8; ++I) {
    Records.push_back(std::allocate_shared<Counted>(FreeListAllocator<Counted>(List), Alive));
    EXPECT_EQ(Blocks.count(Records.back().get()), 1u) << "record " << I << " got a new block";
  }
  Records.push_back(std::allocate_shared<Counted>(FreeListAllocator<Counted>(List), Alive));
  EXPECT_EQ(Blocks.count(Records.back().get()), 0u);
  EXPECT_EQ(Alive, 9);
}

TEST(FreeListTest, OtherSizesAreNotRecycled) {
  FreeList List;
  void *First = List.take(96); // the list's size from now on
  List.give(First, 96);
  void *Other = List.take(200);
  EXPECT_NE(Other, First);
  List.give(Other, 200); // freed, not kept
  EXPECT_EQ(List.take(96), First);
  List.give(First, 96);
}
