//===- FindingText.h - every sentence a user reads --------------*- C++ -*-===//
//
// Turns a finding whose ids are already resolved to names (streams, kernels,
// call sites) into the text report, the JSON report and the one-sentence fix.
// Pure functions, so the wording is unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_FINDINGTEXT_H
#define STREAMLIFE_RT_REPORT_FINDINGTEXT_H

#include "engine/Engine.h"

#include <string>
#include <vector>

namespace streamlife {
namespace rt {

/// One side of a finding (allocation, access, release), resolved to text.
struct SiteView {
  bool Present = false;
  std::string Stream;              ///< "stream #2 (0x5581...)"; empty if none
  std::string What;                ///< "kernel 'consume'", "cuMemFreeAsync"
  std::vector<std::string> Frames; ///< symbolized, call site first
  /// Deeper frames for suppression rules (filled only when a rule needs them).
  std::vector<std::string> SearchFrames;
};

struct ReportedFinding {
  FindingKind Kind = FindingKind::UnsafeFree;
  AllocKind Alloc = AllocKind::Device;
  Range Bytes;
  Range Allocation;
  SiteView Allocated;
  SiteView Access;    ///< the unordered access of the old lifetime
  SiteView Release;
  /// UnsafeFree: the allocation that could be handed the bytes while Access
  /// may still run (where the deferred verdict was made); absent for cudaFree.
  SiteView ReusedBy;
  /// ReusedBy is another thread's allocation that arrived before the release
  /// without being ordered before it.
  bool ReusedConcurrently = false;
  SiteView NewAccess; ///< the access that races (reuse, use before alloc/after free)
  // ReuseRace only: the new lifetime (Allocation/Allocated/Release above are the old one).
  bool AfterUnsafeFree = false;
  Range NewAllocation;
  SiteView Reallocated;
};

const char *allocKindText(AllocKind K); ///< "stream-ordered", "managed", ...
std::string fixSentence(const ReportedFinding &F);
/// The multi-line text report; its first line starts "streamlife: error: <kind>:".
std::string formatText(const ReportedFinding &F);
/// One finding as a JSON object on one line (no newline inside).
std::string formatFindingJson(const ReportedFinding &F);
/// {"findings":[...],"notes":[...],"summary":{"findings":N}}
std::string formatJson(const std::vector<ReportedFinding> &Findings,
                       const std::vector<std::string> &Notes);
/// "streamlife: summary: 1 finding" / "streamlife: summary: 0 findings"
std::string summaryLine(std::size_t Count);

/// "streamlife: deferred: 3 unordered accesses at a release not reported: no
/// allocation that could reuse the block came while they were unordered (1
/// still unordered at exit)": Engine::Stats::DeferredNotReported/Pending.
std::string deferredSummaryLine(std::size_t NotReported, std::size_t StillUnordered);

/// One deferred release site (Engine::deferredReleases, merged by call site).
struct DeferredReleaseView {
  std::string ReleaseSite;   ///< first report frame of the release ("train.py:41")
  std::string ReleaseStream; ///< "stream #3 (0x...)"
  std::string Access;        ///< "kernel 'adamw'"
  std::string AccessSite;
  std::string AccessStream;
  std::size_t Count = 0;
  std::size_t StillUnordered = 0;
};
/// "streamlife: deferred release: train.py:41 on stream #3 ...: 3 releases
/// left kernel 'k' (train.py:38) on stream #1 unordered; ..."
std::string deferredReleaseLine(const DeferredReleaseView &D);

/// How an annotated allocator's blocks cycled at one allocation site.
struct BlockSiteSummary {
  std::string Allocator; ///< "PyTorch caching allocator"
  std::string Site;      ///< the call site's first report frame
  std::size_t Allocations = 0;
  std::size_t DistinctBlocks = 0;
  std::size_t PeakLiveBlocks = 0;
  std::uint64_t PeakHeldBackBytes = 0;
};
/// "streamlife: blocks: <site>: 4 allocations, 1 distinct block, at most 1
/// alive at once, no bytes held back after release (<allocator>)".
std::string blockSummaryLine(const BlockSiteSummary &S);

} // namespace rt
} // namespace streamlife

#endif
