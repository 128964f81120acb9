//===--- LatticeTest.cpp - streamlife -------------------------------------===//
//
// The lattice on its own: must-joins of orderings, may-joins of pending
// uses, shared site lists.
//
//===----------------------------------------------------------------------===//

#include "LifetimeLattice.h"
#include "UseGroups.h"
#include "gtest/gtest.h"

namespace streamlife {
namespace core {
namespace {

TEST(LatticeTest, MeetKeepsOnlyOrderingsOnBothPaths) {
  WorkFacts A, B;
  A.OrderedStreams[StreamKey::named(1)] = 10;
  A.OrderedStreams[StreamKey::named(2)] = 11;
  B.OrderedStreams[StreamKey::named(2)] = 12;
  A.CoveringEvents = {5, 6};
  B.CoveringEvents = {6};
  A.OrderedByLegacyStream = true;
  A.meet(B);
  EXPECT_EQ(A.OrderedStreams.size(), 1u);
  EXPECT_TRUE(A.OrderedStreams.count(StreamKey::named(2)));
  EXPECT_EQ(A.CoveringEvents, std::set<NameId>({6}));
  EXPECT_FALSE(A.OrderedByLegacyStream);
}

TEST(LatticeTest, PendingUseOnAnyPathStaysPending) {
  LifetimeState A, B;
  A.Reachable = B.Reachable = true;
  ObjectId O = objects::make(objects::RecentAlloc, 1);
  addUse(B.Objects[O].Uses, StreamKey::named(3), WorkFacts(),
         SiteList().with(7));
  A.Objects[O];
  A.join(B);
  ASSERT_EQ(A.Objects[O].Uses.size(), 1u);
  EXPECT_TRUE(A.Objects[O].Uses[0].Sites.contains(7));
}

TEST(LatticeTest, UnreachableIsBottom) {
  LifetimeState A, B;
  B.Reachable = true;
  B.Events[4] = EventState{StreamKey::named(1), 9};
  A.join(B);
  EXPECT_TRUE(A == B);
  LifetimeState C;
  B.join(C);
  EXPECT_EQ(B.Events.size(), 1u);
}

TEST(LatticeTest, EventRecordedOnDisagreeingStreamsIsUnknown) {
  LifetimeState A, B;
  A.Reachable = B.Reachable = true;
  A.Events[4] = EventState{StreamKey::named(1), 9};
  B.Events[4] = EventState{StreamKey::named(2), 10};
  A.join(B);
  EXPECT_FALSE(A.Events[4].Stream.has_value());
}

TEST(LatticeTest, SiteListsShareTheirTails) {
  SiteList Base = SiteList().with(1).with(2);
  SiteList Branch = Base.with(3);
  SiteList Joined = Base.unite(Branch);
  EXPECT_EQ(Joined.size(), 3u);
  EXPECT_TRUE(Joined == Branch);
  SiteList Other = Base.with(4);
  SiteList Both = Branch.unite(Other);
  EXPECT_EQ(Both.size(), 4u);
  EXPECT_TRUE(Both.contains(3) && Both.contains(4));
  EXPECT_TRUE(SiteList().with(1).with(2) == SiteList().with(2).with(1));
  EXPECT_EQ(Both.without(3).size(), 3u);
}

TEST(LatticeTest, GroupsWithEqualFactsMerge) {
  llvm::SmallVector<UseGroup, 2> Groups;
  addUse(Groups, StreamKey::named(1), WorkFacts(), SiteList().with(1));
  addUse(Groups, StreamKey::named(1), WorkFacts(), SiteList().with(2));
  WorkFacts Ordered;
  Ordered.OrderedStreams[StreamKey::named(9)] = 3;
  addUse(Groups, StreamKey::named(1), Ordered, SiteList().with(4));
  EXPECT_EQ(Groups.size(), 2u);
  Groups[1].Facts = WorkFacts();
  Groups[0].Facts = WorkFacts();
  normalizeGroups(Groups);
  ASSERT_EQ(Groups.size(), 1u);
  EXPECT_EQ(Groups[0].Sites.size(), 3u);
}

} // namespace
} // namespace core
} // namespace streamlife
