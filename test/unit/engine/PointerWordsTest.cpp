//===- PointerWordsTest.cpp - provenance of a launch's candidate pointers -===//
//
// A word decoded from a kernel's parameters is an access wherever it points; a
// word found by a generic scan of bytes of unknown meaning counts only when it
// points into a live allocation (KernelPlans.h).
//
//===----------------------------------------------------------------------===//
#include "EngineTestSupport.h"

namespace streamlife {
namespace rt {
namespace test {
namespace {

class PointerWordsTest : public EngineTest {};

TEST_F(PointerWordsTest, DecodedWordIntoReleasedMemoryIsAUseAfterFree) {
  StreamId A = stream(0x100);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  freeOn(0x1000, A, ReleaseKind::StreamOrdered);
  PointerWord W{0x1010, false};
  EXPECT_EQ(E->launchedWithPointerWords(0, A, &W, 1, ConsumerKernel, OtherKernel), 0u);
  ASSERT_EQ(count(FindingKind::UseAfterFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UseAfterFree)->NewAccess.Op, ConsumerKernel);
}

TEST_F(PointerWordsTest, GenericScanWordIntoReleasedMemoryIsIgnoredAndCounted) {
  StreamId A = stream(0x100);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  freeOn(0x1000, A, ReleaseKind::StreamOrdered);
  PointerWord W{0x1010, true};
  EXPECT_EQ(E->launchedWithPointerWords(0, A, &W, 1, ConsumerKernel, OtherKernel), 1u);
  EXPECT_TRUE(Sink.Findings.empty());
}

TEST_F(PointerWordsTest, GenericScanWordIntoLiveMemoryIsAnAccessNamedAsSuch) {
  StreamId A = stream(0x100), B = stream(0x200);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  PointerWord W{0x1010, true};
  EXPECT_EQ(E->launchedWithPointerWords(0, B, &W, 1, ConsumerKernel, OtherKernel), 0u);
  freeAndReuse(0x1000, A, ReleaseKind::StreamOrdered); // B's use is not ordered before it
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Op, OtherKernel);
}

TEST_F(PointerWordsTest, UntrackedWordsAreIgnored) {
  StreamId A = stream(0x100);
  PointerWord Ws[] = {{0x5000, false}, {0x6000, true}};
  EXPECT_EQ(E->launchedWithPointerWords(0, A, Ws, 2, ConsumerKernel, OtherKernel), 0u);
  EXPECT_TRUE(Sink.Findings.empty());
}

} // namespace
} // namespace test
} // namespace rt
} // namespace streamlife

namespace streamlife {
namespace rt {
namespace test {
namespace {

TEST_F(PointerWordsTest, AnAllocationNamedByManyWordsIsOneAccessByTheDecodedWord) {
  StreamId A = stream(0x100), B = stream(0x200);
  alloc({0x1000, 0x1000}, A, AllocKind::StreamOrdered);
  // A generic-scan word first, then decoded words into the same allocation.
  std::vector<PointerWord> Ws = {{0x1800, true}};
  for (Addr W = 0x1000; W < 0x2000; W += 0x40)
    Ws.push_back({W, false});
  E->launchedWithPointerWords(0, B, Ws.data(), Ws.size(), ConsumerKernel, OtherKernel);
  freeAndReuse(0x1000, A, ReleaseKind::StreamOrdered);
  ASSERT_EQ(count(FindingKind::UnsafeFree), 1u);
  EXPECT_EQ(Sink.first(FindingKind::UnsafeFree)->Unordered.Op, ConsumerKernel);
  EXPECT_EQ(E->stats().RecordedAccesses, 1u);
}

TEST_F(PointerWordsTest, AWordIntoAnAllocationOfSeveralSegmentsTouchesThemAll) {
  // A launch that touched the middle of the allocation split it in three
  // segments; a pointer word into the first is an access to all of them, not
  // only to the segment it points into.
  StreamId A = stream(0x100), B = stream(0x200);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  E->launched(0, A, {Range{0x1040, 0x40}}, ProducerKernel);
  ASSERT_EQ(E->stats().ShadowSegments, 3u);
  PointerWord W{0x1010, false};
  E->launchedWithPointerWords(0, B, &W, 1, ConsumerKernel, OtherKernel);
  EXPECT_EQ(E->stats().RecordedAccesses, 4u); // B's in each segment, A's in the middle one
}

TEST_F(PointerWordsTest, AnInPlaceKernelsRepeatedWordIsOneAccess) {
  // The same pointer as input and output: one access, one verdict, whichever
  // of the two words the engine reads (it skips the repeat before its lookup).
  StreamId A = stream(0x100), B = stream(0x200);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  alloc({0x3000, 0x100}, A, AllocKind::StreamOrdered);
  PointerWord Ws[] = {{0x1010, false}, {0x1010, false}, {0x3010, false}, {0x3010, false}};
  EXPECT_EQ(E->launchedWithPointerWords(0, B, Ws, 4, ConsumerKernel, OtherKernel), 0u);
  EXPECT_EQ(E->stats().RecordedAccesses, 2u);
  freeOn(0x1000, A, ReleaseKind::StreamOrdered);
  freeAndReuse(0x3000, A, ReleaseKind::StreamOrdered);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
}

TEST_F(PointerWordsTest, RepeatedGenericWordsIntoReleasedMemoryAreEachIgnoredAndCounted) {
  StreamId A = stream(0x100);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  freeOn(0x1000, A, ReleaseKind::StreamOrdered);
  PointerWord Ws[] = {{0x1010, true}, {0x1010, true}, {0x1010, false}, {0x1010, false}};
  EXPECT_EQ(E->launchedWithPointerWords(0, A, Ws, 4, ConsumerKernel, OtherKernel), 2u);
  EXPECT_EQ(count(FindingKind::UseAfterFree), 1u);
}

TEST_F(PointerWordsTest, WordsIntoDifferentAllocationsAreEachAnAccess) {
  StreamId A = stream(0x100), B = stream(0x200);
  alloc({0x1000, 0x100}, A, AllocKind::StreamOrdered);
  alloc({0x3000, 0x100}, A, AllocKind::StreamOrdered);
  PointerWord Ws[] = {{0x3010, false}, {0x1010, false}, {0x3020, false}};
  E->launchedWithPointerWords(0, B, Ws, 3, ConsumerKernel, OtherKernel);
  freeOn(0x1000, A, ReleaseKind::StreamOrdered);
  freeAndReuse(0x3000, A, ReleaseKind::StreamOrdered);
  EXPECT_EQ(count(FindingKind::UnsafeFree), 2u);
}

} // namespace
} // namespace test
} // namespace rt
} // namespace streamlife
