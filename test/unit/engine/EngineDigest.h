//===- EngineDigest.h - an engine's findings and statistics as text -*- C++ -*-===//
//
// Tests that run one program through two engines (a faster path against the
// reference, a filtered event stream against the whole one) demand the same
// findings and statistics from both; these spell out every field, so that a
// difference in any of them fails the comparison and shows in the message.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TEST_UNIT_ENGINE_ENGINEDIGEST_H
#define STREAMLIFE_TEST_UNIT_ENGINE_ENGINEDIGEST_H

#include "engine/Engine.h"

#include <sstream>
#include <string>

namespace streamlife {
namespace rt {
namespace test {

inline std::string describe(const Finding &F) {
  std::ostringstream O;
  auto P = [&](const AccessPoint &A) { O << A.Stream << ':' << A.Op << ' '; };
  O << findingKindName(F.Kind) << ' ' << F.Bytes.Begin << '+' << F.Bytes.Size << ' '
    << F.Allocation.Begin << '+' << F.Allocation.Size << ' ' << int(F.Alloc) << ' ';
  P(F.Allocated);
  P(F.Unordered);
  P(F.Released);
  P(F.NewAccess);
  P(F.ReusedBy);
  P(F.Reallocated);
  O << F.ReusedConcurrently << F.AfterUnsafeFree << ' ' << F.NewAllocation.Begin << '+'
    << F.NewAllocation.Size;
  return O.str();
}

inline std::string describe(const Engine::Stats &S) {
  std::ostringstream O;
  O << S.Streams << ' ' << S.LiveAllocations << ' ' << S.ShadowSegments << ' '
    << S.RecordedAccesses << ' ' << S.Findings << ' ' << S.DroppedRecords << ' ' << S.HostClocks
    << ' ' << S.ClockSlots << ' ' << S.Events << ' ' << S.DeferredNotReported << ' '
    << S.DeferredPending << ' ' << S.SyncObjects << ' ' << S.ConcurrentAllocations;
  return O.str();
}

} // namespace test
} // namespace rt
} // namespace streamlife

#endif
