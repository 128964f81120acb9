//===- NcclCollectives.h - which bytes an NCCL call reads and writes -*- C++ -*-===//
//
// NCCL's kernels carry no user pointers in their parameters (device-side
// work descriptors hold them), so a collective's buffers are taken from the
// API call itself. This header is the pure part (no NCCL, no CUDA): the byte
// ranges of each call from its arguments, unit-tested on the CPU;
// InterceptNccl.cpp interposes the API.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_INTERCEPT_NCCLCOLLECTIVES_H
#define STREAMLIFE_RT_INTERCEPT_NCCLCOLLECTIVES_H

#include "engine/Engine.h"

#include <cstddef>
#include <vector>

namespace streamlife {
namespace rt {

/// Bytes of one element of ncclDataType_t (nccl.h numbering: int8, uint8,
/// int32, uint32, int64, uint64, float16, float32, float64, bfloat16,
/// float8e4m3, float8e5m2); 0 for a type this table does not know.
std::size_t ncclElementSize(int DataType);

enum class NcclCall { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, Send, Recv };

struct NcclBuffers {
  std::vector<Range> Ranges; ///< read and written ranges (empty ones dropped)
};

/// The ranges a call touches on this rank. Count is the call's count
/// argument (sendcount for AllGather, recvcount for ReduceScatter); Ranks the
/// communicator's size. Send is the send buffer (null for Recv), Recv the
/// receive buffer (null for Send). Unknown element types touch the whole
/// allocations the pointers lie in.
NcclBuffers ncclBuffers(NcclCall Call, const void *Send, const void *Recv, std::size_t Count,
                        int DataType, int Ranks);

} // namespace rt
} // namespace streamlife

#endif
