//===- ClockArrays.h - element-wise scans of clock components ---*- C++ -*-===//
//
// The whole-clock joins that are left (a wait joins an event's snapshot into
// its stream, a host sync joins a stream's or an event's clock into its
// thread, the legacy default stream joins the blocking streams) read every
// component: about 140 on FSDP2 one rank. One component a step costs about 8
// instructions (two loads, a compare, a conditional move, a store and the
// loop's own), so a join was about 1,100 instructions at that width. With
// AVX2 (every x86-64 host of a data-centre GPU has it; asked of the CPU once)
// four components go per step. Without it, and on other architectures, the
// plain loops run; the results are the same.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_CLOCKARRAYS_H
#define STREAMLIFE_RT_ENGINE_CLOCKARRAYS_H

#include <cstddef>
#include <cstdint>

namespace streamlife {
namespace rt {

/// VectorClock.h's ClockTime (this header comes before it).
using ClockTime = std::uint64_t;

/// Into[I] = max(Into[I], From[I]) for I < N.
void maxInto(ClockTime *Into, const ClockTime *From, std::size_t N);

/// The first I in [Begin, N) with From[I] > Into[I], or N when there is none:
/// a join that must learn which components grow (a logged clock notes each)
/// walks the growing ones only.
std::size_t firstGreater(const ClockTime *Into, const ClockTime *From, std::size_t Begin,
                         std::size_t N);

/// The plain loops, whatever the CPU (the reference ClockArraysTest compares with).
void maxIntoPlain(ClockTime *Into, const ClockTime *From, std::size_t N);
std::size_t firstGreaterPlain(const ClockTime *Into, const ClockTime *From, std::size_t Begin,
                              std::size_t N);

} // namespace rt
} // namespace streamlife

#endif
