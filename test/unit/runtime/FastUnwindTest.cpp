//===- FastUnwindTest.cpp - the return-address table against DWARF --------===//
#include "callsites/FastUnwind.h"

#include <gtest/gtest.h>

#include <alloca.h>

#include <cstring>
#include <thread>
#include <vector>

using namespace streamlife::rt;

namespace {

struct Pair {
  std::vector<void *> Fast, Slow;
};

/// Both unwinds from the same frame; their first frames are two different
/// call sites in this function, every later one must agree.
__attribute__((noinline)) Pair leaf() {
  void *F[64], *S[64];
  int NF = fastBacktrace(F, 64);
  int NS = slowBacktrace(S, 64);
  return Pair{std::vector<void *>(F, F + NF), std::vector<void *>(S, S + NS)};
}

__attribute__((noinline)) Pair recurse(int Depth) {
  Pair P = Depth == 0 ? leaf() : recurse(Depth - 1);
  __asm__ __volatile__("" ::: "memory"); // no tail call: every level keeps its frame
  return P;
}

__attribute__((noinline)) Pair withAlloca(std::size_t Bytes) {
  char *Scratch = static_cast<char *>(alloca(Bytes));
  std::memset(Scratch, 0, Bytes);
  Pair P = leaf();
  __asm__ __volatile__("" : : "r"(Scratch) : "memory");
  return P;
}

void expectSameCallers(const Pair &P) {
  ASSERT_GT(P.Slow.size(), 3u);
  ASSERT_EQ(P.Fast.size(), P.Slow.size());
  for (std::size_t I = 1; I < P.Fast.size(); ++I)
    EXPECT_EQ(P.Fast[I], P.Slow[I]) << "frame " << I;
}

TEST(FastUnwindTest, AgreesWithTheDwarfUnwinderAndServesRepeatsFromTheTable) {
  expectSameCallers(recurse(6)); // teaches the table
  FastUnwindStats Before = fastUnwindStats();
  for (int I = 0; I < 10; ++I)
    expectSameCallers(recurse(6));
  FastUnwindStats After = fastUnwindStats();
  EXPECT_GE(After.Fast - Before.Fast, 9u); // at most one periodic full unwind
  EXPECT_GT(After.KnownAddresses, 6u);
}

TEST(FastUnwindTest, ANewCallPathFallsBackToTheFullUnwind) {
  expectSameCallers(recurse(3));
  expectSameCallers(recurse(9)); // deeper: new return addresses on the way
}

TEST(FastUnwindTest, WorksOnOtherThreads) {
  std::thread T([] {
    for (int I = 0; I < 5; ++I)
      expectSameCallers(recurse(4));
  });
  T.join();
}

TEST(FastUnwindTest, FramesOfVaryingSizeAreEventuallyMarkedVariable) {
  // alloca makes withAlloca's frame size vary between calls: the periodic full
  // unwind sees two distances for one return address and marks it variable,
  // after which every stack through it is exact again.
  for (int I = 0; I < 600; ++I)
    withAlloca(I % 2 ? 64 : 8192);
  EXPECT_GE(fastUnwindStats().Variable, 1u);
  expectSameCallers(withAlloca(64));
  expectSameCallers(withAlloca(8192));
}

TEST(FastUnwindTest, RespectsTheLimit) {
  void *F[3];
  EXPECT_EQ(fastBacktrace(F, 3), 3);
  EXPECT_EQ(fastBacktrace(F, 0), 0);
}

} // namespace
