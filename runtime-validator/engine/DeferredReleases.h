//===- DeferredReleases.h - release sites left unordered, not reported -*- C++ -*-===//
//
// A caching release that leaves another stream's access unordered, but that
// no allocation could reuse before the access was ordered, is not a finding
// (DeferredFrees.cpp). It is not silent either: the summary lists each
// distinct (release site, access) pair once, with how many releases it
// covers, so that a team enforcing "wait before free, never after" sees every
// place to fix (or turns them into findings, EngineOptions::WaitBeforeFree).
// The table is capped; what it cannot hold is counted.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_ENGINE_DEFERREDRELEASES_H
#define STREAMLIFE_RT_ENGINE_DEFERREDRELEASES_H

#include "engine/Engine.h"

#include <map>
#include <tuple>
#include <vector>

namespace streamlife {
namespace rt {

class DeferredReleases {
public:
  static constexpr std::size_t MaxSites = 256;

  /// One more release at Release that left Access unordered, decided unreported.
  void add(AccessPoint Release, AccessPoint Access) {
    if (Engine::DeferredRelease *D = slot(Release, Access))
      ++D->Count;
  }

  /// The table, plus the still-undecided ones (Pending: release, access pairs).
  std::vector<Engine::DeferredRelease>
  withPending(const std::vector<std::pair<AccessPoint, AccessPoint>> &Pending) const {
    DeferredReleases Copy = *this;
    for (const auto &P : Pending)
      if (Engine::DeferredRelease *D = Copy.slot(P.first, P.second)) {
        ++D->Count;
        ++D->StillUnordered;
      }
    return Copy.Sites;
  }
  std::size_t overflow() const { return Overflow; }

private:
  using Key = std::tuple<StreamId, OpId, StreamId, OpId>;

  Engine::DeferredRelease *slot(AccessPoint Release, AccessPoint Access) {
    Key K{Release.Stream, Release.Op, Access.Stream, Access.Op};
    auto It = Index.find(K);
    if (It != Index.end())
      return &Sites[It->second];
    if (Sites.size() >= MaxSites) {
      ++Overflow;
      return nullptr;
    }
    Index.emplace(K, Sites.size());
    Engine::DeferredRelease D;
    D.Release = Release;
    D.Access = Access;
    Sites.push_back(D);
    return &Sites.back();
  }

  std::vector<Engine::DeferredRelease> Sites;
  std::map<Key, std::size_t> Index;
  std::size_t Overflow = 0;
};

} // namespace rt
} // namespace streamlife

#endif
