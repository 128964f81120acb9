//===- PendingHazards.h - caching releases waiting for a reuse ----*- C++ -*-===//
//
// An access that was not ordered before a caching allocator's release is only
// a bug if the allocator can hand the block to new work while the access may
// still run: only an allocation of the same pool on the release stream can.
// Until such an allocation comes (a reuse opportunity, DeferredFrees.cpp), or
// the access is ordered, it waits here with what a report needs. Stream-ordered
// and synchronous frees never wait: they are judged at the release.
// This file only stores them; the rule is DeferredFrees.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_PENDINGHAZARDS_H
#define STREAMLIFE_RT_ENGINE_PENDINGHAZARDS_H

#include "engine/Shadow.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace streamlife {
namespace rt {

struct PendingHazard {
  std::shared_ptr<Allocation> Lifetime; ///< the released lifetime (release stream and site)
  Range Bytes;                          ///< the bytes the access touched
  AccessRecord Access;                  ///< the access not ordered before the release
  StreamId ReleaseStream = NoStream;    ///< the only stream whose allocations reuse
  PoolId Pool = 0;                      ///< ... from this pool
};

class PendingHazards {
public:
  /// Adds H; a hazard of the same lifetime and access (the allocation spans
  /// several shadow segments) grows instead. Returns false when the cap made
  /// room by dropping the oldest.
  bool add(const PendingHazard &H, std::size_t Cap) {
    for (PendingHazard &Old : List) {
      if (Old.Lifetime != H.Lifetime || !(Old.Access == H.Access))
        continue;
      Addr Begin = std::min(Old.Bytes.Begin, H.Bytes.Begin);
      Addr End = std::max(Old.Bytes.end(), H.Bytes.end());
      Old.Bytes = Range{Begin, End - Begin};
      return true;
    }
    bool Room = List.size() < Cap;
    if (!Room)
      List.erase(List.begin());
    List.push_back(H);
    return Room;
  }

  /// Calls Fn(PendingHazard &) for each; drops those for which it returns true.
  template <typename Fn> void dropIf(Fn &&F) {
    std::size_t Out = 0;
    for (std::size_t I = 0; I < List.size(); ++I) {
      if (F(List[I]))
        continue;
      if (Out != I)
        List[Out] = std::move(List[I]);
      ++Out;
    }
    List.resize(Out);
  }

  const std::vector<PendingHazard> &all() const { return List; }
  bool empty() const { return List.empty(); }

private:
  std::vector<PendingHazard> List; ///< release order
};

} // namespace rt
} // namespace streamlife

#endif
