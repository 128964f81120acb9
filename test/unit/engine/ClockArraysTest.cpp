//===- ClockArraysTest.cpp - the vectorized scans against the plain loops ---===//
//
// maxInto and firstGreater (ClockArrays.h) take four components a step where
// the CPU has AVX2; their answers must be the plain loops' for every width
// (the vector steps and the tail), every start, and times up to 2^63 - 1,
// and a join and an absorb through VectorClock must note exactly the
// components that grew.
//
//===----------------------------------------------------------------------===//

#include "engine/ClockArrays.h"
#include "engine/VectorClock.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace streamlife::rt;

namespace {

/// Components that are mostly equal (a join that learns little), sometimes
/// smaller or larger, some near the top of the signed range.
std::vector<ClockTime> randomTimes(std::mt19937_64 &Rng, std::size_t N, const std::vector<ClockTime> *Near) {
  std::vector<ClockTime> V(N);
  for (std::size_t I = 0; I < N; ++I) {
    ClockTime Base = Near ? (*Near)[I] : Rng() % 1000;
    switch (Rng() % 8) {
    case 0:
      V[I] = Base + 1 + Rng() % 3;
      break;
    case 1:
      V[I] = Base > 0 ? Base - 1 : 0;
      break;
    case 2:
      V[I] = (ClockTime(1) << 63) - 8 - Rng() % 4; // room for case 0: below 2^63
      break;
    default:
      V[I] = Base;
    }
  }
  return V;
}

} // namespace

TEST(ClockArraysTest, MaxIntoIsThePlainMaximum) {
  std::mt19937_64 Rng(7);
  for (std::size_t N = 0; N <= 70; ++N)
    for (int Round = 0; Round < 20; ++Round) {
      std::vector<ClockTime> Into = randomTimes(Rng, N, nullptr);
      std::vector<ClockTime> From = randomTimes(Rng, N, &Into);
      std::vector<ClockTime> Expected = Into;
      maxIntoPlain(Expected.data(), From.data(), N);
      maxInto(Into.data(), From.data(), N);
      ASSERT_EQ(Into, Expected) << "width " << N;
    }
}

TEST(ClockArraysTest, FirstGreaterFindsThePlainAnswerFromEveryStart) {
  std::mt19937_64 Rng(11);
  for (std::size_t N = 0; N <= 70; ++N)
    for (int Round = 0; Round < 10; ++Round) {
      std::vector<ClockTime> Into = randomTimes(Rng, N, nullptr);
      std::vector<ClockTime> From = Into;
      // Exactly one grown component, or none, or several.
      for (int K = 0; K < Round % 3 && N > 0; ++K)
        From[Rng() % N] += 1 + Rng() % 5;
      for (std::size_t Begin = 0; Begin <= N; ++Begin)
        ASSERT_EQ(firstGreater(Into.data(), From.data(), Begin, N),
                  firstGreaterPlain(Into.data(), From.data(), Begin, N))
            << "width " << N << " from " << Begin;
    }
}

TEST(ClockArraysTest, AbsorbNotesExactlyTheGrownComponents) {
  std::mt19937_64 Rng(13);
  for (std::size_t N : {1u, 5u, 16u, 17u, 140u, 301u}) {
    VectorClock A, B;
    std::vector<ClockTime> Want(N);
    for (std::size_t I = 0; I < N; ++I) {
      ClockTime X = Rng() % 50, Y = Rng() % 4 == 0 ? X + 1 : X;
      A.raise(static_cast<ClockSlot>(I), X);
      B.raise(static_cast<ClockSlot>(I), Y);
      Want[I] = Y > X;
    }
    std::vector<ClockTime> Noted(N);
    A.absorb(B, [&](ClockSlot S) { ++Noted[S]; });
    EXPECT_EQ(Noted, Want) << "width " << N;
    EXPECT_TRUE(A.dominates(B));
  }
}
