//===- FindingQueue.cpp - findings of one engine call, reported once ------===//

#include "engine/FindingQueue.h"

#include <algorithm>

namespace streamlife {
namespace rt {

Finding describeFinding(FindingKind K, Range Bytes, const Allocation &A) {
  Finding F;
  F.Kind = K;
  F.Bytes = Bytes;
  F.Allocation = A.Bytes;
  F.Alloc = A.Kind;
  F.Allocated = AccessPoint{A.Stream, A.Site};
  return F;
}

void FindingQueue::offer(Allocation &Remember, const Finding &F, AllocId OldLifetime) {
  ReportKey Key{F.Kind, OldLifetime, F.Unordered, F.NewAccess};
  for (Queued &Q : Pending) {
    if (Q.Lifetime != &Remember || !(Q.Key == Key))
      continue;
    Addr Begin = std::min(Q.F.Bytes.Begin, F.Bytes.Begin);
    Addr End = std::max(Q.F.Bytes.end(), F.Bytes.end());
    Q.F.Bytes = Range{Begin, End - Begin};
    return;
  }
  if (Remember.firstReport(Key, RememberCap))
    Pending.push_back(Queued{F, Key, &Remember});
}

std::size_t FindingQueue::report(FindingSink &Sink) {
  for (const Queued &Q : Pending)
    Sink.report(Q.F);
  std::size_t N = Pending.size();
  Pending.clear();
  return N;
}

} // namespace rt
} // namespace streamlife
