//===- StreamSchedule.cpp - where each stream operation goes in time ------===//
#include "timeline/StreamSchedule.h"

#include <algorithm>

namespace streamlife {
namespace rt {

SlotSink::~SlotSink() = default;

std::uint64_t StreamSchedule::add(Slot S) {
  S.Seq = NextSeq++;
  ++Counts.Slots;
  Lane &L = Lanes[S.Stream];
  if (expectsGpu(S))
    for (std::uint32_t Id : S.Correlation)
      if (Id)
        ByCorrelation[Id] = {S.Stream, S.Seq};
  if (S.Kind == SlotKind::EventWait && S.WaitsFor) {
    Awaited.emplace(S.WaitsFor, 0);
    ++Waiters[S.WaitsFor];
  }
  std::uint64_t Seq = S.Seq;
  L.Pending.push_back(std::move(S));
  if (L.Pending.size() > MaxPendingPerStream)
    L.Pending.front().Stale = true;
  // Only this lane's head can have become ready, unless the new slot is a
  // record a wait on another lane depends on, which is placed with its head.
  if (placeHeads(L))
    placeReady();
  return Seq;
}

bool StreamSchedule::attach(StreamId S, std::uint64_t Seq, const FlowEnd &End) {
  Slot *Found = find(S, Seq);
  if (!Found)
    return false;
  Found->Flows.push_back(End);
  return true;
}

std::uint64_t StreamSchedule::laneEnd(StreamId S) const {
  auto It = Lanes.find(S);
  return It == Lanes.end() ? 0 : It->second.End;
}

Slot *StreamSchedule::find(StreamId S, std::uint64_t Seq) {
  auto It = Lanes.find(S);
  if (It == Lanes.end())
    return nullptr;
  std::deque<Slot> &Q = It->second.Pending;
  auto At = std::lower_bound(Q.begin(), Q.end(), Seq,
                             [](const Slot &A, std::uint64_t B) { return A.Seq < B; });
  return At != Q.end() && At->Seq == Seq ? &*At : nullptr;
}

bool StreamSchedule::gpuInterval(std::uint32_t Correlation, std::uint64_t Start,
                                 std::uint64_t End) {
  auto It = ByCorrelation.find(Correlation);
  if (It == ByCorrelation.end()) {
    ++Counts.UnmatchedRecords;
    return false;
  }
  auto [Stream, Seq] = It->second;
  Slot *S = find(Stream, Seq);
  if (!S) {
    ByCorrelation.erase(It);
    ++Counts.UnmatchedRecords;
    return false;
  }
  for (std::uint32_t Id : S->Correlation)
    if (Id)
      ByCorrelation.erase(Id);
  S->HaveGpu = true;
  S->GpuStart = Start;
  S->GpuEnd = std::max(End, Start);
  if (placeHeads(Lanes[Stream]))
    placeReady();
  return true;
}

void StreamSchedule::endOfGpuBatch() {
  for (auto &[Stream, L] : Lanes) {
    auto Last = std::find_if(L.Pending.rbegin(), L.Pending.rend(),
                             [](const Slot &S) { return S.HaveGpu; });
    if (Last == L.Pending.rend())
      continue;
    for (auto It = std::next(Last); It != L.Pending.rend(); ++It)
      if (!It->HaveGpu)
        It->Stale = true;
  }
  placeReady();
}

void StreamSchedule::placeAll() {
  for (auto &[Stream, L] : Lanes)
    for (Slot &S : L.Pending)
      if (!S.HaveGpu)
        S.Stale = true;
  placeReady();
  // Records are added before the waits on them, so every wait is placed
  // now; should one be left, it is placed where its stream stands.
  for (auto &[Stream, L] : Lanes)
    for (Slot &S : L.Pending)
      S.WaitsFor = 0;
  placeReady();
}

std::size_t StreamSchedule::pending() const {
  std::size_t N = 0;
  for (const auto &[Stream, L] : Lanes)
    N += L.Pending.size();
  return N;
}

bool StreamSchedule::ready(const Slot &S) const {
  if (expectsGpu(S) && !S.HaveGpu && !S.Stale)
    return false;
  if (S.Kind == SlotKind::EventWait && S.WaitsFor) {
    auto It = Awaited.find(S.WaitsFor);
    return It != Awaited.end() && It->second != 0;
  }
  return true;
}

Placement StreamSchedule::place(const Slot &S, std::uint64_t LaneEnd,
                                 std::uint64_t NextGpuStart) const {
  Placement P;
  if (S.HaveGpu) {
    P.Start = std::max(S.GpuStart, LaneEnd);
    P.End = std::max(S.GpuEnd, P.Start + 1);
    P.GpuTime = true;
    return P;
  }
  P.Start = std::max(S.HostNs, LaneEnd);
  switch (S.Kind) {
  case SlotKind::Work:
    if (!GpuTime) {
      P.End = P.Start + OrderOnlyNs;
      break;
    }
    // Among work placed at its GPU time, work without a record is a marker
    // where the stream stood, which must not push the work after it.
    if (NextGpuStart > LaneEnd + MarkerNs)
      P.Start = std::min(P.Start, NextGpuStart - MarkerNs);
    P.End = P.Start + MarkerNs;
    break;
  case SlotKind::EventRecord:
    P.End = P.Start + MarkerNs;
    break;
  case SlotKind::EventWait: {
    std::uint64_t Until = S.WaitUntil;
    if (S.WaitsFor)
      if (auto It = Awaited.find(S.WaitsFor); It != Awaited.end())
        Until = std::max(Until, It->second);
    P.End = std::max(P.Start + MarkerNs, Until);
    break;
  }
  }
  return P;
}

bool StreamSchedule::placeHeads(Lane &L) {
  bool PlacedRecord = false;
  while (!L.Pending.empty() && ready(L.Pending.front())) {
    Slot S = std::move(L.Pending.front());
    L.Pending.pop_front();
    std::uint64_t NextGpuStart = ~std::uint64_t(0);
    for (const Slot &Later : L.Pending)
      if (Later.HaveGpu) {
        NextGpuStart = Later.GpuStart;
        break;
      } else if (expectsGpu(Later) && !Later.Stale) {
        break;
      }
    Placement P = place(S, L.End, NextGpuStart);
    L.End = P.End;
    if (expectsGpu(S)) {
      ++(P.GpuTime ? Counts.PlacedByGpu : Counts.PlacedByOrder);
      for (std::uint32_t Id : S.Correlation)
        if (Id)
          if (auto It = ByCorrelation.find(Id); It != ByCorrelation.end() && It->second.second == S.Seq)
            ByCorrelation.erase(It);
    }
    if (S.Kind == SlotKind::EventRecord)
      if (auto It = Awaited.find(S.Seq); It != Awaited.end()) {
        It->second = P.End;
        PlacedRecord = true;
      }
    if (S.Kind == SlotKind::EventWait && S.WaitsFor)
      if (auto It = Waiters.find(S.WaitsFor); It != Waiters.end() && --It->second == 0) {
        Waiters.erase(It);
        Awaited.erase(S.WaitsFor);
      }
    Sink.placed(S, P);
  }
  return PlacedRecord;
}

void StreamSchedule::placeReady() {
  for (bool Progress = true; Progress;) {
    Progress = false;
    for (auto &[Stream, L] : Lanes) {
      std::size_t Before = L.Pending.size();
      placeHeads(L);
      Progress |= L.Pending.size() != Before;
    }
  }
}

} // namespace rt
} // namespace streamlife
