//===--- SharedMapTest.cpp - streamlife -----------------------------------===//
//
// The copy-on-write map of lattice states: a write to one copy never shows
// in another, a join adds what is missing and joins only values that
// differ.
//
//===----------------------------------------------------------------------===//

#include "SharedMap.h"
#include "gtest/gtest.h"
#include <string>

namespace streamlife {
namespace core {
namespace {

using Map = SharedMap<int, std::string>;

TEST(SharedMapTest, AWriteToACopyLeavesTheOriginalAlone) {
  Map A;
  A[2] = "two";
  A[1] = "one";
  Map B = A;
  B[1] += "!";
  *B.findMutable(2) += "?";
  B.mutableAt(B.find(1)) += "!";
  EXPECT_EQ(A.find(1)->second, "one");
  EXPECT_EQ(A.find(2)->second, "two");
  EXPECT_EQ(B.find(1)->second, "one!!");
  EXPECT_EQ(B.find(2)->second, "two?");
  EXPECT_FALSE(A == B);
}

TEST(SharedMapTest, KeysStaySortedThroughInsertsAndErases) {
  Map A;
  for (int K : {5, 1, 3, 4, 2})
    EXPECT_TRUE(A.insert(K, std::to_string(K)));
  EXPECT_FALSE(A.insert(3, "again"));
  EXPECT_EQ(A.erase(4), 1u);
  EXPECT_EQ(A.erase(4), 0u);
  std::string Seen;
  for (const auto &[K, V] : A)
    Seen += V;
  EXPECT_EQ(Seen, "1235");
  EXPECT_EQ(A.count(3), 1u);
  EXPECT_EQ(A.find(4), A.end());
}

TEST(SharedMapTest, SharedValuesAreEqualAndAKeyCanShareAnother) {
  Map A;
  A[1] = "x";
  A.assignShared(2, A, A.find(1));
  EXPECT_TRUE(Map::shared(A.find(1), A.find(2)));
  A[2] = "y"; // copied first: key 1 keeps its value
  EXPECT_EQ(A.find(1)->second, "x");
  EXPECT_FALSE(Map::shared(A.find(1), A.find(2)));
}

TEST(SharedMapTest, JoinAddsMissingKeysAndJoinsOnlyDifferentValues) {
  Map A, B;
  A[1] = "a";
  A[2] = "same";
  B[2] = "same"; // equal, not shared: skipped too
  B[3] = "c";
  B[1] = "b";
  Map Before = A;
  int Joins = 0;
  A.joinWith(B, [&](std::string &Mine, const std::string &Theirs) {
    ++Joins;
    Mine += Theirs;
  });
  EXPECT_EQ(Joins, 1);
  EXPECT_EQ(A.find(1)->second, "ab");
  EXPECT_EQ(A.find(2)->second, "same");
  EXPECT_EQ(A.find(3)->second, "c");
  EXPECT_EQ(A.size(), 3u);
  // The state A was copied from is unchanged by the join.
  EXPECT_EQ(Before.find(1)->second, "a");
  EXPECT_EQ(Before.size(), 2u);
}

} // namespace
} // namespace core
} // namespace streamlife
