//===- FindingText.cpp - text and JSON reports -----------------------------===//
#include "report/FindingText.h"

#include "report/Json.h"

#include <cinttypes>
#include <cstdio>

namespace streamlife {
namespace rt {

namespace {

std::string hex(std::uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%" PRIx64, V);
  return Buf;
}

std::string bytesText(const Range &R) {
  return std::to_string(R.Size) + (R.Size == 1 ? " byte" : " bytes") + " at [" + hex(R.Begin) +
         ", " + hex(R.end()) + ")";
}

std::string orUnknown(const std::string &S, const char *Fallback) {
  return S.empty() ? std::string(Fallback) : S;
}

void appendSite(std::string &Out, const char *Label, const SiteView &S) {
  if (!S.Present)
    return;
  Out += "  ";
  Out += Label;
  Out += ": ";
  Out += orUnknown(S.What, "unknown operation");
  if (!S.Stream.empty())
    Out += " on " + S.Stream;
  Out += "\n";
  if (S.Frames.empty())
    Out += "    (no call stack: stack_depth=0, or only CUDA library frames)\n";
  for (std::size_t I = 0; I < S.Frames.size(); ++I)
    Out += "    #" + std::to_string(I) + " " + S.Frames[I] + "\n";
}

void writeSite(JsonWriter &W, const char *Key, const SiteView &S) {
  if (!S.Present)
    return;
  W.key(Key).beginObject();
  W.key("stream").value(S.Stream);
  W.key("operation").value(S.What);
  W.key("site").value(S.Frames.empty() ? std::string() : S.Frames.front());
  W.key("stack").beginArray();
  for (const std::string &F : S.Frames)
    W.value(F);
  W.endArray();
  W.endObject();
}

} // namespace

const char *allocKindText(AllocKind K) {
  switch (K) {
  case AllocKind::Device:
    return "device";
  case AllocKind::StreamOrdered:
    return "stream-ordered";
  case AllocKind::Managed:
    return "managed";
  case AllocKind::CachingAllocator:
    return "caching-allocator block";
  }
  return "device";
}

std::string fixSentence(const ReportedFinding &F) {
  const std::string Consumer = orUnknown(F.Access.Stream, "the consumer stream");
  const std::string NewUser = orUnknown(F.NewAccess.Stream, "the accessing stream");
  const std::string AllocStream =
      F.Allocated.Stream.empty() ? orUnknown(F.Release.Stream, "the releasing stream") : F.Allocated.Stream;
  switch (F.Kind) {
  case FindingKind::UnsafeFree:
    return "record an event on " + Consumer + " after its last use of the buffer and make " +
           orUnknown(F.Release.Stream, AllocStream.c_str()) +
           " wait on it before the release (wait first, then free), or keep the buffer alive "
           "until then" +
           (F.Alloc == AllocKind::StreamOrdered
                ? std::string("; a stream-ordered free must follow every use in stream order, "
                              "the pool may hand the bytes out from the free on")
                : std::string());
  case FindingKind::ReuseRace:
    if (!F.Access.Present)
      return "make " + NewUser + " wait on an event recorded on " + AllocStream +
             " after the allocation before it uses the buffer";
    return "record an event on " + Consumer + " after its last use of the old buffer and make " +
           AllocStream + " wait on it before the buffer is released, so that its reuse on " +
           NewUser + " is ordered after that use";
  case FindingKind::UseBeforeAlloc:
    return "make " + NewUser + " wait on an event recorded on " + AllocStream +
           " after the allocation before it uses the buffer";
  case FindingKind::UseAfterFree:
    return "enqueue the release after the last use: record an event on " + NewUser +
           " after this use and make " + orUnknown(F.Release.Stream, "the releasing stream") +
           " wait on it before the free";
  }
  return "";
}

std::string formatText(const ReportedFinding &F) {
  std::string Out = "streamlife: error: ";
  Out += findingKindName(F.Kind);
  Out += ": ";
  const std::string Alloc = std::string(allocKindText(F.Alloc)) + " allocation";
  switch (F.Kind) {
  case FindingKind::UnsafeFree:
    Out += Alloc + " " + bytesText(F.Bytes) + " released on " +
           orUnknown(F.Release.Stream, "the host (synchronous free)") + " while " +
           orUnknown(F.Access.Stream, "another stream") + " may still access it";
    break;
  case FindingKind::ReuseRace:
    Out += bytesText(F.Bytes) + " of a reused " + Alloc + " accessed on " +
           orUnknown(F.NewAccess.Stream, "a stream") + " without being ordered after " +
           (F.Access.Present ? orUnknown(F.Access.Stream, "the previous lifetime's access")
                             : std::string("the allocation on ") +
                                   orUnknown(F.Allocated.Stream, "the allocation stream"));
    break;
  case FindingKind::UseBeforeAlloc:
    Out += Alloc + " " + bytesText(F.Bytes) + " accessed on " +
           orUnknown(F.NewAccess.Stream, "a stream") + " before its allocation on " +
           orUnknown(F.Allocated.Stream, "the allocation stream") + " is ordered before it";
    break;
  case FindingKind::UseAfterFree:
    Out += Alloc + " " + bytesText(F.Bytes) + " accessed on " +
           orUnknown(F.NewAccess.Stream, "a stream") + " after its release was enqueued on " +
           orUnknown(F.Release.Stream, "the host");
    break;
  }
  Out += "\n";
  if (F.Allocation.Size && (F.Allocation.Begin != F.Bytes.Begin || F.Allocation.Size != F.Bytes.Size))
    Out += "  the allocation is " + bytesText(F.Allocation) + "\n";
  if (F.Kind == FindingKind::ReuseRace && F.AfterUnsafeFree)
    Out += "  caused by the unsafe free of the previous lifetime reported above\n";
  appendSite(Out, "new access", F.NewAccess);
  appendSite(Out, "new allocation", F.Reallocated);
  appendSite(Out, "unordered access", F.Access);
  appendSite(Out, "release", F.Release);
  appendSite(Out, F.ReusedConcurrently
                      ? "could be reused by (another thread, not ordered before the release)"
                      : "could be reused by",
             F.ReusedBy);
  appendSite(Out, "allocation", F.Allocated);
  Out += "  fix: " + fixSentence(F) + "\n";
  return Out;
}

static void writeFindingJson(JsonWriter &W, const ReportedFinding &F) {
  W.beginObject();
  W.key("kind").value(findingKindName(F.Kind));
  W.key("range").beginObject();
  W.key("begin").value(hex(F.Bytes.Begin));
  W.key("end").value(hex(F.Bytes.end()));
  W.key("size").value(static_cast<std::uint64_t>(F.Bytes.Size));
  W.endObject();
  W.key("allocation").beginObject();
  W.key("kind").value(allocKindText(F.Alloc));
  W.key("begin").value(hex(F.Allocation.Begin));
  W.key("size").value(static_cast<std::uint64_t>(F.Allocation.Size));
  W.key("stream").value(F.Allocated.Stream);
  W.key("operation").value(F.Allocated.What);
  W.key("site").value(F.Allocated.Frames.empty() ? std::string() : F.Allocated.Frames.front());
  W.endObject();
  writeSite(W, "access", F.Access);
  writeSite(W, "release", F.Release);
  writeSite(W, "reused_by", F.ReusedBy);
  if (F.Kind == FindingKind::UnsafeFree && F.ReusedBy.Present)
    W.key("reused_concurrently").value(F.ReusedConcurrently);
  writeSite(W, "new_access", F.NewAccess);
  writeSite(W, "new_allocation", F.Reallocated);
  if (F.Kind == FindingKind::ReuseRace)
    W.key("after_unsafe_free").value(F.AfterUnsafeFree);
  W.key("fix").value(fixSentence(F));
  W.endObject();
}

std::string formatFindingJson(const ReportedFinding &F) {
  JsonWriter W;
  writeFindingJson(W, F);
  return W.str();
}

std::string formatJson(const std::vector<ReportedFinding> &Findings,
                       const std::vector<std::string> &Notes) {
  JsonWriter W;
  W.beginObject();
  W.key("findings").beginArray();
  for (const ReportedFinding &F : Findings)
    writeFindingJson(W, F);
  W.endArray();
  W.key("notes").beginArray();
  for (const std::string &N : Notes)
    W.value(N);
  W.endArray();
  W.key("summary").beginObject();
  W.key("findings").value(static_cast<std::uint64_t>(Findings.size()));
  W.endObject();
  W.endObject();
  return W.str() + "\n";
}

std::string summaryLine(std::size_t Count) {
  return "streamlife: summary: " + std::to_string(Count) + (Count == 1 ? " finding" : " findings");
}

std::string deferredSummaryLine(std::size_t NotReported, std::size_t StillUnordered) {
  return "streamlife: deferred: " + std::to_string(NotReported) +
         (NotReported == 1 ? " unordered access at a release" : " unordered accesses at a release") +
         " not reported: no allocation that could reuse the block came while " +
         (NotReported == 1 ? "it was" : "they were") + " unordered (" +
         std::to_string(StillUnordered) + " still unordered at exit)";
}

std::string deferredReleaseLine(const DeferredReleaseView &D) {
  std::string Out = "streamlife: deferred release: " +
                    orUnknown(D.ReleaseSite, "<unknown site>") + " on " +
                    orUnknown(D.ReleaseStream, "an unknown stream") + ": " +
                    std::to_string(D.Count) + (D.Count == 1 ? " release" : " releases") +
                    " left " + orUnknown(D.Access, "an access");
  if (!D.AccessSite.empty())
    Out += " (" + D.AccessSite + ")";
  Out += " on " + orUnknown(D.AccessStream, "another stream") +
         " unordered; no allocation could reuse the block before it was ordered";
  if (D.StillUnordered)
    Out += " (" + std::to_string(D.StillUnordered) + " still unordered at exit)";
  return Out;
}

std::string blockSummaryLine(const BlockSiteSummary &S) {
  auto Count = [](std::size_t N, const char *One, const char *Many) {
    return std::to_string(N) + " " + (N == 1 ? One : Many);
  };
  std::string Out = "streamlife: blocks: " + (S.Site.empty() ? std::string("<unknown site>") : S.Site) +
                    ": " + Count(S.Allocations, "allocation", "allocations") + ", " +
                    Count(S.DistinctBlocks, "distinct block", "distinct blocks") + ", at most " +
                    std::to_string(S.PeakLiveBlocks) + " alive at once, ";
  if (S.PeakHeldBackBytes == 0) {
    Out += "no bytes held back after release";
  } else {
    char MiB[32];
    std::snprintf(MiB, sizeof(MiB), "%.1f", double(S.PeakHeldBackBytes) / (1024.0 * 1024.0));
    Out += "up to " + std::to_string(S.PeakHeldBackBytes) + " bytes (" + MiB +
           " MiB) held back after release (record_stream)";
  }
  return Out + " (" + S.Allocator + ")";
}

} // namespace rt
} // namespace streamlife
