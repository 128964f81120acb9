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

// Two paths that waited at different sites have the same ordering: one
// group, naming the smaller wait site (part 1 kept a group per wait site,
// N groups after N if/else branches: reliability sweep #117).
TEST(LatticeTest, GroupsDifferingOnlyInWaitSiteMerge) {
  LifetimeState A, B;
  A.Reachable = B.Reachable = true;
  ObjectId O = objects::make(objects::RecentAlloc, 1);
  WorkFacts FA, FB;
  FA.CoveringEvents = FB.CoveringEvents = {5};
  FA.OrderedStreams[StreamKey::named(2)] = 40;
  FB.OrderedStreams[StreamKey::named(2)] = 30;
  addUse(A.Objects[O].Uses, StreamKey::named(3), FA, SiteList().with(7));
  addUse(B.Objects[O].Uses, StreamKey::named(3), FB, SiteList().with(8));
  A.join(B);
  ASSERT_EQ(A.Objects[O].Uses.size(), 1u);
  const UseGroup &G = A.Objects[O].Uses[0];
  EXPECT_TRUE(G.Sites.contains(7));
  EXPECT_TRUE(G.Sites.contains(8));
  EXPECT_EQ(G.Facts.OrderedStreams.at(StreamKey::named(2)), 30u);
  EXPECT_FALSE(A.GroupsMerged);
}

// Different orderings stay apart: the waited use is ordered, the other not.
TEST(LatticeTest, GroupsOfDifferentOrderingsStayApart) {
  llvm::SmallVector<UseGroup, 2> Uses;
  WorkFacts Waited;
  Waited.OrderedStreams[StreamKey::named(2)] = 40;
  EXPECT_TRUE(addUse(Uses, StreamKey::named(3), Waited, SiteList().with(7)));
  EXPECT_TRUE(addUse(Uses, StreamKey::named(3), WorkFacts(), SiteList().with(8)));
  ASSERT_EQ(Uses.size(), 2u);
}

// A group whose sites are all in a group with weaker facts adds no hazard:
// it goes. The weaker one is kept whole.
TEST(LatticeTest, SubsumedGroupIsDropped) {
  llvm::SmallVector<UseGroup, 2> Uses;
  SiteList Few = SiteList().with(7);
  SiteList More = Few.with(8);
  WorkFacts Covered;
  Covered.CoveringEvents = {5};
  addUse(Uses, StreamKey::named(3), Covered, Few);
  addUse(Uses, StreamKey::named(3), WorkFacts(), More);
  ASSERT_EQ(Uses.size(), 1u);
  EXPECT_TRUE(Uses[0].Facts.CoveringEvents.empty());
  EXPECT_EQ(Uses[0].Sites.size(), 2u);
  // Not subsumed: the covered group has a site the weaker one lacks.
  llvm::SmallVector<UseGroup, 2> Apart;
  addUse(Apart, StreamKey::named(3), Covered, More);
  addUse(Apart, StreamKey::named(3), WorkFacts(), Few);
  EXPECT_EQ(Apart.size(), 2u);
  // Nor on another stream.
  llvm::SmallVector<UseGroup, 2> Streams;
  addUse(Streams, StreamKey::named(3), Covered, Few);
  addUse(Streams, StreamKey::named(4), WorkFacts(), More);
  EXPECT_EQ(Streams.size(), 2u);
}

// Past MaxUseGroupsPerStream incomparable groups, a stream's groups are met
// into one: no site is lost, only orderings every group had survive, and
// the caller learns the bound fired (it becomes a note).
TEST(LatticeTest, TooManyGroupsAreMetIntoOne) {
  llvm::SmallVector<UseGroup, 2> Uses;
  bool WithinBound = true;
  size_t N = MaxUseGroupsPerStream + 1;
  for (size_t I = 0; I < N; ++I) {
    WorkFacts F;
    F.CoveringEvents = {static_cast<NameId>(100 + I), 99};
    WithinBound &= addUse(Uses, StreamKey::named(3), F,
                          SiteList().with(static_cast<SiteId>(I)));
  }
  EXPECT_FALSE(WithinBound);
  ASSERT_EQ(Uses.size(), 1u);
  EXPECT_EQ(Uses[0].Sites.size(), N);
  EXPECT_EQ(Uses[0].Facts.CoveringEvents, std::set<NameId>({99}));
  // One fewer stays exact.
  llvm::SmallVector<UseGroup, 2> Fewer;
  for (size_t I = 0; I + 1 < N; ++I) {
    WorkFacts F;
    F.CoveringEvents = {static_cast<NameId>(100 + I)};
    EXPECT_TRUE(addUse(Fewer, StreamKey::named(3), F,
                       SiteList().with(static_cast<SiteId>(I))));
  }
  EXPECT_EQ(Fewer.size(), N - 1);
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
