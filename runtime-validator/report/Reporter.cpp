//===- Reporter.cpp - finding queue, dedup, text and JSON output -----------===//
#include "report/Reporter.h"

#include "report/CallSiteNames.h"
#include "report/LogFile.h"
#include "report/SourceLocations.h"
#include "report/SharedReport.h"
#include "support/ProcessTally.h"

#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cstring>

namespace streamlife {
namespace rt {

StreamNamer::~StreamNamer() = default;
FindingObserver::~FindingObserver() = default;

namespace {

/// The first line of a printed finding, without its "streamlife: error: ".
std::string headline(const std::string &Text) {
  std::string Line = Text.substr(0, Text.find('\n'));
  const std::string Prefix = "streamlife: error: ";
  return Line.compare(0, Prefix.size(), Prefix) == 0 ? Line.substr(Prefix.size()) : Line;
}

} // namespace

const char *notAnalysedText(NotAnalysed N) {
  switch (N) {
  case NotAnalysed::HostFunctions:
    return "host functions enqueued on streams (cuLaunchHostFunc, cuStreamAddCallback): what they "
           "do on the host is not modelled, only their place in stream order";
  case NotAnalysed::GraphLaunches:
    return "kernels and copies inside CUDA graphs (cuGraphLaunch): only the graph launch's place "
           "in stream order is modelled";
  case NotAnalysed::StreamCapture:
    return "work captured into a CUDA graph (stream capture) is not recorded as accesses";
  case NotAnalysed::BatchCopies3D:
    return "3D batch copies (cuMemcpy3DBatchAsync)";
  case NotAnalysed::VirtualMemory:
    return "virtual memory mappings (cuMemMap/cuMemUnmap, e.g. PyTorch expandable segments): "
           "their ranges are not tracked";
  case NotAnalysed::KernelParameters:
    return "the parameters of some kernels could not be decoded (no parameter info from the "
           "driver): their pointer arguments are not recorded as accesses";
  case NotAnalysed::StreamMemoryOperations:
    return "stream memory operations (cuStreamWaitValue/cuStreamWriteValue/cuStreamBatchMemOp)";
  case NotAnalysed::LibraryPointerArrays:
    return "the matrices of batched cuBLAS gemms given as device arrays of pointers "
           "(cublas*gemmBatched): only the pointer arrays are recorded as accesses";
  case NotAnalysed::Count:
    break;
  }
  return "";
}

Reporter::Reporter(const Options &Opts, OpTable &Ops, std::FILE *Out)
    : Opts(Opts), Ops(Ops), Fixed(Out) {
  if (!Opts.suppressions.empty()) {
    std::string Error;
    if (!Supp.load(Opts.suppressions, Error)) {
      // `streamlife run` rejects such a file before starting the program; set
      // through STREAMLIFE_OPTIONS alone, it is said and nothing is suppressed.
      std::fprintf(out(), "streamlife: error: %s\n", Error.c_str());
      Supp = Suppressions();
    }
  }
}

std::FILE *Reporter::out() const { return Fixed ? Fixed : validatorLog(); }

bool Reporter::suppressed(const ReportedFinding &R) {
  if (Supp.empty())
    return false;
  FindingView V;
  V.Kind = findingKindName(R.Kind);
  for (const SiteView *S :
       {&R.Access, &R.NewAccess, &R.Release, &R.ReusedBy, &R.Allocated, &R.Reallocated}) {
    if (!S->Present)
      continue;
    V.Names.push_back(S->What);
    for (const std::string &F : S->SearchFrames.empty() ? S->Frames : S->SearchFrames)
      V.Frames.push_back(F);
  }
  return Supp.match(V) != nullptr;
}

Reporter::~Reporter() = default;

void Reporter::report(const Finding &F) {
  std::lock_guard<std::mutex> Guard(QueueLock);
  Queue.push_back(F);
  Pending.fetch_add(1, std::memory_order_release);
}

std::string Reporter::siteKey(OpId Op) const {
  if (Op == NoOp)
    return "-";
  // The call site is the innermost user frame (a Python line, or the first
  // native frame outside the CUDA libraries); two ops that differ only deeper
  // in the stack are the same site.
  return std::to_string(callSiteKey(Ops.op(Op)));
}

std::string Reporter::dedupKey(const Finding &F) const {
  OpId AccessOp = F.Unordered.Op != NoOp ? F.Unordered.Op : F.NewAccess.Op;
  return std::string(findingKindName(F.Kind)) + "|" + siteKey(AccessOp) + "|" +
         siteKey(F.Released.Op) + "|" + siteKey(F.NewAccess.Op);
}

SiteView Reporter::resolveSite(const AccessPoint &P, StreamNamer &Namer,
                               const char *DefaultWhat) const {
  SiteView S;
  if (P.Stream == NoStream && P.Op == NoOp)
    return S;
  S.Present = true;
  if (P.Stream != NoStream)
    S.Stream = Namer.streamName(P.Stream);
  OpRecord R = Ops.op(P.Op);
  S.What = Ops.name(R.Name);
  if (S.What.empty())
    S.What = DefaultWhat;
  int Print = static_cast<int>(Opts.report_frames);
  int Keep = Supp.needsFrames() ? std::max(Print, SuppressionFrameDepth) : Print;
  // Python frames for a call from Python code, native ones otherwise.
  for (std::string &Text : reportFrames(R, Keep, symbolizer())) {
    if (static_cast<int>(S.Frames.size()) < Print)
      S.Frames.push_back(Text);
    if (Keep > Print)
      S.SearchFrames.push_back(std::move(Text));
  }
  return S;
}

std::string Reporter::symbolizer() const {
  // Source file and line from a symbolizer process: only where a finding is
  // printed.
  return Opts.symbolize ? findSymbolizer(Opts.symbolizer_path) : std::string();
}

ReportedFinding Reporter::resolve(const Finding &F, StreamNamer &Namer) const {
  // Every site's native frames in one request per module.
  std::vector<OpRecord> Records;
  for (const AccessPoint *P : {&F.Allocated, &F.Unordered, &F.Released, &F.ReusedBy, &F.NewAccess,
                               &F.Reallocated})
    if (P->Op != NoOp)
      Records.push_back(Ops.op(P->Op));
  int Keep = std::max(static_cast<int>(Opts.report_frames),
                      Supp.needsFrames() ? SuppressionFrameDepth : 0);
  prefetchSourceLocations(Records, Keep, symbolizer());
  ReportedFinding R;
  R.Kind = F.Kind;
  R.Alloc = F.Alloc;
  R.Bytes = F.Bytes;
  R.Allocation = F.Allocation;
  R.Allocated = resolveSite(F.Allocated, Namer, "allocation");
  R.Access = resolveSite(F.Unordered, Namer, "access");
  R.Release = resolveSite(F.Released, Namer, "release");
  if (F.Kind == FindingKind::UnsafeFree) {
    R.ReusedBy = resolveSite(F.ReusedBy, Namer, "allocation");
    R.ReusedConcurrently = F.ReusedConcurrently;
  }
  R.NewAccess = resolveSite(F.NewAccess, Namer, "access");
  if (F.Kind == FindingKind::ReuseRace) {
    R.AfterUnsafeFree = F.AfterUnsafeFree;
    R.NewAllocation = F.NewAllocation;
    R.Reallocated = resolveSite(F.Reallocated, Namer, "allocation");
  }
  return R;
}

std::vector<std::string>
Reporter::deferredReleaseLines(const std::vector<Engine::DeferredRelease> &D, StreamNamer &Namer,
                               std::size_t Max) const {
  // Several ops share a call site (a Python line reached through different
  // stacks, or stacks sampled per op): one line per site pair and streams.
  std::vector<std::string> Keys;
  std::vector<DeferredReleaseView> Views;
  for (const Engine::DeferredRelease &Entry : D) {
    std::string Key = siteKey(Entry.Release.Op) + "|" + std::to_string(Entry.Release.Stream) +
                      "|" + siteKey(Entry.Access.Op) + "|" + std::to_string(Entry.Access.Stream);
    std::size_t I = 0;
    while (I < Keys.size() && Keys[I] != Key)
      ++I;
    if (I == Keys.size()) {
      SiteView Release = resolveSite(Entry.Release, Namer, "release");
      SiteView Access = resolveSite(Entry.Access, Namer, "access");
      DeferredReleaseView V;
      V.ReleaseSite = Release.Frames.empty() ? Release.What : Release.Frames.front();
      V.ReleaseStream = Release.Stream;
      V.Access = Access.What;
      V.AccessSite = Access.Frames.empty() ? std::string() : Access.Frames.front();
      V.AccessStream = Access.Stream;
      Keys.push_back(Key);
      Views.push_back(V);
    }
    Views[I].Count += Entry.Count;
    Views[I].StillUnordered += Entry.StillUnordered;
  }
  std::vector<std::string> Lines;
  for (std::size_t I = 0; I < Views.size() && I < Max; ++I)
    Lines.push_back(deferredReleaseLine(Views[I]));
  if (Views.size() > Max)
    Lines.push_back("streamlife: deferred release: " + std::to_string(Views.size() - Max) +
                    " more sites not listed");
  return Lines;
}

void Reporter::drain(StreamNamer &Namer) {
  if (!hasPending())
    return;
  std::lock_guard<std::mutex> Draining(DrainLock);
  std::vector<Finding> Batch;
  {
    std::lock_guard<std::mutex> Guard(QueueLock);
    Batch.swap(Queue);
    Pending.store(0, std::memory_order_release);
  }
  bool Added = false;
  for (const Finding &F : Batch) {
    std::string Key = Opts.dedup ? dedupKey(F) : std::string();
    if (Opts.dedup && !Observer) {
      // Another occurrence of a reported pair of sites (a training step's
      // finding, step after step) is neither printed nor marked: not resolved
      // either. Naming its sites' frames took 92 us a step on the program's
      // threads (FSDP2 under cudaMallocAsync, bench/runtime/README.md, session 28).
      std::lock_guard<std::mutex> Guard(StateLock);
      if (SeenKeys.count(Key))
        continue;
    }
    ReportedFinding R = resolve(F, Namer);
    ResolvedByDrain.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> Guard(StateLock);
    if (Opts.dedup && !SeenKeys.insert(Key).second) {
      // Another occurrence of a reported pair of sites: not printed again,
      // but the timeline marks it where it happened.
      bool Mark = Observer && ReportedKeys.count(Key);
      Guard.unlock();
      if (Mark)
        Observer->observed(F, headline(formatText(R)));
      continue;
    }
    if (suppressed(R))
      continue;
    ReportedKeys.insert(Key);
    Reported.push_back(R);
    Added = true;
    std::string Text = formatText(R);
    std::fputs(Text.c_str(), out());
    std::fflush(out());
    Guard.unlock();
    if (Observer)
      Observer->observed(F, headline(Text));
  }
  if (Added) {
    writeJsonReport();
    updateTally();
  }
}

void Reporter::writeJsonReport() {
  if (Opts.report.empty())
    return;
  std::vector<ReportedFinding> All;
  std::vector<std::string> AllNotes;
  {
    std::lock_guard<std::mutex> Guard(StateLock);
    All = Reported;
    AllNotes = Notes;
  }
  // Merged with the other processes of this run (SharedReport.h), through a
  // temporary that is renamed into place, so a reader never sees half a report.
  ProcessCount Self = describeThisProcess(All.size());
  ReportPart Part;
  Part.RunId = currentRunId();
  Part.Pid = Self.Pid;
  Part.Image = Self.Image;
  Part.Rank = Self.Rank;
  Part.Command = Self.Command;
  for (const ReportedFinding &F : All)
    Part.FindingObjects.push_back(formatFindingJson(F));
  Part.Notes = AllNotes;
  std::string Why;
  bool Ok = mergeIntoReport(Opts.report, Part, Why);
  if (!Ok) {
    std::lock_guard<std::mutex> Guard(StateLock);
    if (!ReportWriteFailed) {
      ReportWriteFailed = true;
      std::fprintf(out(), "streamlife: error: cannot write the report '%s': %s\n",
                   Opts.report.c_str(), Why.c_str());
      std::fflush(out());
    }
  }
}

void Reporter::updateTally() {
  int Err = 0;
  if (appendToTally(describeThisProcess(findingCount())))
    return;
  Err = errno;
  if (TallyWriteFailed.exchange(true))
    return;
  std::lock_guard<std::mutex> Guard(StateLock);
  std::fprintf(out(),
               "streamlife: warning: cannot add this process's findings to the launcher's tally "
               "(%s): the exit status of 'streamlife run --error-exitcode' may miss them\n",
               std::strerror(Err));
  std::fflush(out());
}

void Reporter::noteNotAnalysed(NotAnalysed N) {
  unsigned I = static_cast<unsigned>(N);
  if (I >= static_cast<unsigned>(NotAnalysed::Count) || NoteShown[I].exchange(true))
    return;
  note(std::string("not analysed: ") + notAnalysedText(N));
}

void Reporter::note(const std::string &Text) {
  std::lock_guard<std::mutex> Guard(StateLock);
  for (const std::string &Seen : Notes)
    if (Seen == Text)
      return;
  Notes.push_back(Text);
  std::fprintf(out(), "streamlife: note: %s\n", Text.c_str());
  std::fflush(out());
}

void Reporter::setSummaryDetails(std::vector<std::string> Lines) {
  std::lock_guard<std::mutex> Guard(StateLock);
  SummaryDetails = std::move(Lines);
}

std::size_t Reporter::findingCount() const {
  std::lock_guard<std::mutex> Guard(StateLock);
  return Reported.size();
}

std::vector<ReportedFinding> Reporter::findings() const {
  std::lock_guard<std::mutex> Guard(StateLock);
  return Reported;
}

void Reporter::finish(StreamNamer &Namer, bool PrintSummary, bool UsedCuda) {
  if (Finished.exchange(true))
    return;
  drain(Namer);
  {
    // out() opens log_path's file: only when there is a line to write.
    std::lock_guard<std::mutex> Guard(StateLock);
    if (Supp.anyHits())
      Supp.printCounts(out());
  }
  if (PrintSummary) {
    std::vector<std::string> Details;
    {
      std::lock_guard<std::mutex> Guard(StateLock);
      Details = SummaryDetails;
    }
    for (const std::string &Line : Details)
      std::fprintf(out(), "%s\n", Line.c_str());
    std::fprintf(out(), "%s\n", summaryLine(findingCount()).c_str());
    std::fflush(out());
  }
  // A process that made no CUDA call (a wrapper shell, a Python launcher) has
  // nothing to say: it must neither write a report nor count in the tally.
  if (!UsedCuda && findingCount() == 0)
    return;
  writeJsonReport();
  updateTally();
}

} // namespace rt
} // namespace streamlife
