//===- Shadow.cpp - shadow state of device memory as byte ranges ----------===//

#include "engine/Shadow.h"

#include "engine/Check.h"

#include <algorithm>
#include <iterator>

namespace streamlife {
namespace rt {

bool Allocation::firstReport(const ReportKey &K, std::size_t Cap) {
  if (std::find(Reported.begin(), Reported.end(), K) != Reported.end())
    return false;
  // Past the cap we keep reporting (report/ deduplicates by call site) rather
  // than grow this lifetime's memory without bound.
  if (Reported.size() < Cap)
    Reported.push_back(K);
  return true;
}

Shadow::SegmentMap::iterator Shadow::splitInside(SegmentMap::iterator Containing, Addr A) {
  STREAMLIFE_DCHECK(Containing->first < A && A < Containing->second.End);
  Segment Upper = Containing->second; // same owner and records: both halves saw them
  Containing->second.End = A;
  auto Inserted = Segments.emplace_hint(std::next(Containing), A, std::move(Upper));
  // The entry that found the lower part no longer answers for A; the upper
  // part is what the next lookup of A wants.
  LookupCache[lookupCacheIndex(A)] = Inserted;
  STREAMLIFE_DCHECK(wellFormed());
  return Inserted;
}

void Shadow::fillGaps(Range R, const std::shared_ptr<Allocation> &Owner) {
  if (R.Size == 0)
    return;
  Addr Cursor = R.Begin;
  auto It = Segments.lower_bound(R.Begin);
  if (It != Segments.begin() && std::prev(It)->second.End > Cursor)
    Cursor = std::prev(It)->second.End;
  while (Cursor < R.end()) {
    Addr GapEnd = R.end();
    if (It != Segments.end() && It->first < GapEnd)
      GapEnd = It->first;
    if (Cursor < GapEnd) {
      Segment S;
      S.End = GapEnd;
      S.Owner = Owner;
      S.Live = true;
      Segments.emplace_hint(It, Cursor, std::move(S));
    }
    if (It == Segments.end() || It->first >= R.end())
      break;
    Cursor = std::max(Cursor, It->second.End);
    ++It;
  }
  if (R.Begin < Lowest.load(std::memory_order_relaxed))
    Lowest.store(R.Begin, std::memory_order_relaxed);
  if (R.end() > Highest.load(std::memory_order_relaxed))
    Highest.store(R.end(), std::memory_order_relaxed);
  STREAMLIFE_DCHECK(wellFormed());
}

Segment *Shadow::find(Addr A, Addr *Begin) {
  SegmentMap::iterator It = containing(A);
  if (It == Segments.end())
    return nullptr;
  if (Begin)
    *Begin = It->first;
  return &It->second;
}

Shadow::SegmentMap::iterator Shadow::containingNotCached(Addr A) {
  SegmentMap::iterator Node = findInMap(A);
  if (Node != Segments.end())
    LookupCache[lookupCacheIndex(A)] = Latest = Node;
  return Node;
}

Shadow::SegmentMap::iterator Shadow::findInMap(Addr A) {
  auto It = Segments.upper_bound(A);
  if (It == Segments.begin())
    return Segments.end();
  --It;
  if (It->second.End <= A)
    return Segments.end();
  return It;
}

const Segment *Shadow::find(Addr A, Addr *Begin) const {
  return const_cast<Shadow *>(this)->find(A, Begin);
}

void Shadow::mergeEqualNeighbours() {
  if (Segments.empty())
    return;
  auto It = Segments.begin();
  auto Next = std::next(It);
  bool Erased = false;
  while (Next != Segments.end()) {
    if (It->second.End == Next->first && It->second.sameStateAs(Next->second)) {
      It->second.End = Next->second.End;
      Next = Segments.erase(Next);
      Erased = true;
      continue;
    }
    It = Next;
    ++Next;
  }
  afterMerges(Erased);
}

void Shadow::afterMerges(bool Erased) {
  if (Erased)
    forgetLookups();
  STREAMLIFE_DCHECK(wellFormed());
}

bool Shadow::wellFormed() const {
  Addr PreviousEnd = 0;
  for (const auto &[Begin, Seg] : Segments) {
    if (Begin >= Seg.End || Begin < PreviousEnd || !Seg.Owner)
      return false;
    if (Begin < Lowest.load(std::memory_order_relaxed) ||
        Seg.End > Highest.load(std::memory_order_relaxed))
      return false;
    for (std::size_t I = 0; I < Seg.Current.size(); ++I)
      for (std::size_t J = I + 1; J < Seg.Current.size(); ++J)
        if (Seg.Current[I].Stream == Seg.Current[J].Stream)
          return false;
    PreviousEnd = Seg.End;
  }
  return true;
}

} // namespace rt
} // namespace streamlife
