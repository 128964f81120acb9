//===- SteadyStateAllocationTest.cpp - the launch path does not allocate --===//
//
// The launch path runs on every kernel launch of the program, so once streams,
// events and blocks have been seen it must not touch the heap. This binary
// replaces the global operator new to count allocations inside a window.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> Counting{false};
std::atomic<std::size_t> Allocations{0};
} // namespace

void *operator new(std::size_t Size) {
  if (Counting.load(std::memory_order_relaxed))
    Allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *P = std::malloc(Size ? Size : 1))
    return P;
  throw std::bad_alloc();
}
void operator delete(void *P) noexcept { std::free(P); }
void operator delete(void *P, std::size_t) noexcept { std::free(P); }

using namespace streamlife::rt;
using namespace streamlife::rt::test;

namespace {

class SteadyStateTest : public EngineTest {};

TEST_F(SteadyStateTest, LaunchesEventsAndWaitsDoNotAllocateOnceWarm) {
  StreamId A = stream(0xa), B = stream(0xb);
  Range X{Block.Begin, 4096}, W{Block.Begin + 0x100000, 4096};
  alloc(X, A);
  alloc(W, NoStream, AllocKind::Device);
  std::vector<Range> OnA{X}, OnB{X, W};
  Addr Words[] = {X.Begin + 8, 0x3f800000, W.Begin};
  auto step = [&] {
    E->launched(0, A, OnA, ProducerKernel);
    E->eventRecorded(0, 0xe0, A);
    E->streamWaitsEvent(0, B, 0xe0);
    E->launched(0, B, OnB, ConsumerKernel);
    E->launchedWithPointers(0, B, Words, 3, OtherKernel);
    E->eventRecorded(0, 0xe1, B);
    E->streamWaitsEvent(0, A, 0xe1);
    E->hostSyncsEvent(0, 0xe1);
  };
  for (int I = 0; I < 10000; ++I) // warm up, and pass at least one sweep
    step();
  Allocations = 0;
  Counting = true;
  for (int I = 0; I < 10000; ++I)
    step();
  Counting = false;
  EXPECT_EQ(Allocations.load(), 0u);
  EXPECT_EQ(total(), 0u);
}

TEST_F(SteadyStateTest, IsTrackedCostIsPrinted) {
  StreamId A = stream(0xa);
  for (unsigned I = 0; I < 64; ++I)
    alloc(Range{Block.Begin + I * 0x10000, 4096}, A);
  constexpr unsigned N = 1000000;
  std::size_t Hits = 0;
  auto Start = std::chrono::steady_clock::now();
  for (unsigned I = 0; I < N; ++I)
    Hits += E->isTracked(Block.Begin + (I * 4093u) % (64 * 0x10000));
  double InRange =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - Start).count() /
      N;
  Start = std::chrono::steady_clock::now();
  for (unsigned I = 0; I < N; ++I)
    Hits += E->isTracked(I); // small integers: rejected without the lock
  double OutOfRange =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - Start).count() /
      N;
  std::printf("[engine] isTracked: %.1f ns inside the tracked address span, %.1f ns outside\n",
              InRange, OutOfRange);
  EXPECT_GT(Hits, 0u);
  EXPECT_LT(Hits, N);
}

} // namespace
