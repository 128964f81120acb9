//===- NcclCollectives.cpp - byte ranges of NCCL calls --------------------===//
#include "intercept/NcclCollectives.h"

namespace streamlife {
namespace rt {

std::size_t ncclElementSize(int DataType) {
  static const std::size_t Sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return DataType >= 0 && DataType < static_cast<int>(sizeof(Sizes) / sizeof(Sizes[0])) ? Sizes[DataType] : 0;
}

NcclBuffers ncclBuffers(NcclCall Call, const void *Send, const void *Recv, std::size_t Count,
                        int DataType, int Ranks) {
  NcclBuffers B;
  std::size_t Element = ncclElementSize(DataType);
  if (Ranks < 1)
    Ranks = 1;
  auto Add = [&](const void *Ptr, std::size_t Elements) {
    if (!Ptr)
      return;
    Addr Begin = reinterpret_cast<Addr>(Ptr);
    if (Element == 0) {
      B.Ranges.push_back(Range{Begin, WholeAllocation});
      return;
    }
    if (Elements)
      B.Ranges.push_back(Range{Begin, Elements * Element});
  };
  std::size_t All = Count * static_cast<std::size_t>(Ranks);
  switch (Call) {
  case NcclCall::AllReduce:
  case NcclCall::Broadcast:
  case NcclCall::Reduce:
    Add(Send, Count);
    Add(Recv, Count);
    break;
  case NcclCall::AllGather:
    Add(Send, Count);
    Add(Recv, All);
    break;
  case NcclCall::ReduceScatter:
    Add(Send, All);
    Add(Recv, Count);
    break;
  case NcclCall::Send:
    Add(Send, Count);
    break;
  case NcclCall::Recv:
    Add(Recv, Count);
    break;
  }
  return B;
}

} // namespace rt
} // namespace streamlife
