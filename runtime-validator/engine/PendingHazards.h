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
#include "engine/VectorClock.h"

#include <algorithm>
#include <memory>
#include <utility>
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

/// What every pending hazard has in common, for a question about all of them.
struct PendingHazardsSummary {
  /// Per access slot, the oldest access's epoch (one entry per slot).
  std::vector<Epoch> OldestAccessBySlot;
  /// The distinct (release stream, pool) pairs.
  std::vector<std::pair<StreamId, PoolId>> ReleasePools;
  /// From the lowest first byte to the highest end of their bytes.
  Range Span;
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
      if (!Stale)
        include(Old);
      return true;
    }
    bool Room = List.size() < Cap;
    if (!Room) {
      List.erase(List.begin());
      Stale = true;
    }
    List.push_back(H);
    if (!Stale)
      include(H);
    return Room;
  }

  /// The summary of the hazards now pending (rebuilt here if a drop made it
  /// stale).
  const PendingHazardsSummary &summary() {
    if (Stale) {
      Summary = PendingHazardsSummary{};
      for (const PendingHazard &H : List)
        include(H);
      Stale = false;
    }
    return Summary;
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
    if (Out != List.size())
      Stale = true;
    List.resize(Out);
  }

  const std::vector<PendingHazard> &all() const { return List; }
  bool empty() const { return List.empty(); }

private:
  /// Brings the summary up to date with H (added, or its bytes grown).
  void include(const PendingHazard &H) {
    const bool First = Summary.ReleasePools.empty();
    bool SlotSeen = false;
    for (Epoch &Oldest : Summary.OldestAccessBySlot)
      if (Oldest.Slot == H.Access.At.Slot) {
        Oldest.Time = std::min(Oldest.Time, H.Access.At.Time);
        SlotSeen = true;
        break;
      }
    if (!SlotSeen)
      Summary.OldestAccessBySlot.push_back(H.Access.At);
    const std::pair<StreamId, PoolId> Pool{H.ReleaseStream, H.Pool};
    if (std::find(Summary.ReleasePools.begin(), Summary.ReleasePools.end(), Pool) ==
        Summary.ReleasePools.end())
      Summary.ReleasePools.push_back(Pool);
    if (First) {
      Summary.Span = H.Bytes;
    } else {
      const Addr Begin = std::min(Summary.Span.Begin, H.Bytes.Begin);
      const Addr End = std::max(Summary.Span.end(), H.Bytes.end());
      Summary.Span = Range{Begin, End - Begin};
    }
  }

  std::vector<PendingHazard> List; ///< release order
  PendingHazardsSummary Summary;
  /// A hazard was dropped since the summary was built: rebuild before use.
  bool Stale = false;
};

} // namespace rt
} // namespace streamlife

#endif
