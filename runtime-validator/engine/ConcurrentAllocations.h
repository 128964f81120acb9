//===- ConcurrentAllocations.h - caching allocations per stream and thread -*- C++ -*-===//
//
// A caching allocator hands a released block to the next allocation on the
// block's stream. "Next" must not mean "arrived next": when thread T1 releases
// a block of stream R while thread T2 allocates on R, which of the two calls
// reaches the allocator first is up to the scheduler. So an allocation on R by
// another thread that does not happen before the release (host
// happens-before, HostClocks.h) is a reuse opportunity for it, whether it
// arrived before the release or after (DeferredFrees.cpp).
//
// This file keeps what the "arrived before" half needs: per stream and
// thread, the caching allocations made there, one entry per epoch of the
// thread (allocations within one epoch are indistinguishable to other
// threads), with the thread's clock at the first of them (what that
// allocation's new owner knew). An entry is dropped once every CUDA thread's
// clock covers its epoch: every later release happens after it. A cap per
// stream and thread bounds the rest (the oldest go first, counted).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_CONCURRENTALLOCATIONS_H
#define STREAMLIFE_RT_ENGINE_CONCURRENTALLOCATIONS_H

#include "engine/Engine.h"
#include "engine/HostClocks.h"
#include "engine/VectorClock.h"

#include <deque>
#include <map>
#include <utility>

namespace streamlife {
namespace rt {

struct RecentAllocation {
  Epoch Stamp;           ///< the allocating thread's epoch (HostClocks::stamp)
  VectorClock Knowledge; ///< the thread's clock at that epoch's first allocation
  OpId Site = NoOp;      ///< that allocation's site, for "could be reused by"
  std::uint32_t Pool = 0;
};

class ConcurrentAllocations {
public:
  explicit ConcurrentAllocations(std::size_t CapPerThread)
      : CapPerThread(CapPerThread ? CapPerThread : 1) {}

  /// A caching allocation of Pool on S by H, stamped Stamp. Returns false when
  /// the cap dropped an older entry.
  bool record(StreamId S, const HostClock &H, Epoch Stamp, OpId Site, std::uint32_t Pool) {
    std::deque<RecentAllocation> &List = Lists[{S, H.Thread}];
    if (!List.empty() && List.back().Stamp.Time == Stamp.Time && List.back().Pool == Pool)
      return true;
    RecentAllocation A;
    A.Stamp = Stamp;
    A.Knowledge.assign(H.Clock);
    A.Site = Site;
    A.Pool = Pool;
    List.push_back(std::move(A));
    if (List.size() <= CapPerThread)
      return true;
    List.pop_front();
    return false;
  }

  /// Calls Fn(const RecentAllocation &) with, for every thread other than
  /// Releaser that allocated from Pool on S, its earliest allocation that the
  /// clock Release does not cover (not ordered before the release): the one
  /// whose new owner knew the least.
  template <typename Fn>
  void forEachUnorderedBefore(StreamId S, ThreadId Releaser, const VectorClock &Release,
                              std::uint32_t Pool, Fn &&F) const {
    for (auto It = Lists.lower_bound({S, 0}); It != Lists.end() && It->first.first == S; ++It) {
      if (It->first.second == Releaser)
        continue;
      for (const RecentAllocation &A : It->second) {
        if (A.Pool != Pool || Release.covers(A.Stamp))
          continue;
        F(A);
        break;
      }
    }
  }

  /// Drops the entries every CUDA thread is ordered after.
  void prune(const VectorClock &Common) {
    for (auto It = Lists.begin(); It != Lists.end();) {
      std::deque<RecentAllocation> &List = It->second;
      while (!List.empty() && Common.covers(List.front().Stamp))
        List.pop_front();
      It = List.empty() ? Lists.erase(It) : std::next(It);
    }
  }

  std::size_t entries() const {
    std::size_t N = 0;
    for (const auto &Entry : Lists)
      N += Entry.second.size();
    return N;
  }

private:
  std::size_t CapPerThread;
  std::map<std::pair<StreamId, ThreadId>, std::deque<RecentAllocation>> Lists;
};

} // namespace rt
} // namespace streamlife

#endif
