//===- Reporter.h - gathers, deduplicates and prints findings ---*- C++ -*-===//
//
// The engine calls report() with its lock held, so report() only queues.
// drain() runs later on the intercepting thread, outside every engine and CUDA
// call: it resolves stream ids and call sites to text, drops findings whose
// (access site, release site) pair was already reported, and prints the rest
// to stderr at once, and rewrites the JSON report (if one was asked for), so
// nothing is lost if the program dies early (abort, _exit, a crash in the CUDA
// runtime). finish() prints the summary and writes the final JSON report; it
// runs once (at exit or at library unload, whichever comes first).
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_REPORTER_H
#define STREAMLIFE_RT_REPORT_REPORTER_H

#include "engine/Engine.h"
#include "callsites/CallSites.h"
#include "report/FindingText.h"
#include "config/Suppressions.h"
#include "config/Options.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace streamlife {
namespace rt {

/// Names a stream for messages ("stream #2 (0x5581...)"); intercept/ implements
/// it over Engine::streamInfo. Never called with the engine lock held.
class StreamNamer {
public:
  virtual ~StreamNamer();
  virtual std::string streamName(StreamId S) = 0;
};

/// What the validator saw but cannot analyse; each is printed once.
enum class NotAnalysed : unsigned {
  HostFunctions,
  GraphLaunches,
  StreamCapture,
  BatchCopies3D,
  VirtualMemory,
  KernelParameters,
  StreamMemoryOperations,
  LibraryPointerArrays,
  Count
};
const char *notAnalysedText(NotAnalysed N);

/// Sees each finding drain() reports, with its headline (the first line as
/// printed, without "streamlife: error: "), and each later occurrence of a
/// reported pair of call sites, which deduplication does not print; never a
/// suppressed one. The timeline marks them (intercept/ installs it when asked
/// to). Called on the draining thread, outside every engine and CUDA call.
class FindingObserver {
public:
  virtual ~FindingObserver();
  virtual void observed(const Finding &F, const std::string &Headline) = 0;
};

class Reporter : public FindingSink {
public:
  /// Out is where text goes (a buffer in tests); nullptr: the validator's log
  /// (report/LogFile.h: stderr, or log_path's file of this process).
  Reporter(const Options &Opts, OpTable &Ops, std::FILE *Out);
  ~Reporter() override;

  void report(const Finding &F) override;
  bool hasPending() const { return Pending.load(std::memory_order_acquire) != 0; }
  void drain(StreamNamer &Namer);

  void noteNotAnalysed(NotAnalysed N);
  /// Prints "streamlife: note: ..." once per distinct Text (e.g. a failed init).
  void note(const std::string &Text);

  /// Unique findings so far (after deduplication).
  std::size_t findingCount() const;
  std::vector<ReportedFinding> findings() const;

  /// Lines printed just before the summary line (the block accounting).
  void setSummaryDetails(std::vector<std::string> Lines);
  /// One "streamlife: deferred release:" line per distinct pair of call sites
  /// (release, access) and streams, at most Max (the rest counted in a last line).
  std::vector<std::string> deferredReleaseLines(const std::vector<Engine::DeferredRelease> &D,
                                                StreamNamer &Namer, std::size_t Max) const;

  /// Drains, prints the summary (if PrintSummary) and writes the JSON report
  /// when the report option names a file, unless this process neither used
  /// CUDA nor found anything. Only the first call does anything.
  void finish(StreamNamer &Namer, bool PrintSummary, bool UsedCuda = true);
  bool finished() const { return Finished.load(); }

  /// Set once, before the program runs (null: nobody).
  void setObserver(FindingObserver *O) { Observer = O; }

  /// Resolves one engine finding to text (exposed for tests).
  ReportedFinding resolve(const Finding &F, StreamNamer &Namer) const;
  /// Findings drain() resolved so far (for tests: a repeat of a reported
  /// finding is not resolved unless an observer marks it).
  std::size_t resolvedByDrain() const { return ResolvedByDrain.load(std::memory_order_relaxed); }

private:
  SiteView resolveSite(const AccessPoint &P, StreamNamer &Namer, const char *DefaultWhat) const;
  /// The symbolizer for source lines (symbolize, symbolizer_path); "" for none.
  std::string symbolizer() const;
  std::string dedupKey(const Finding &F) const;
  std::string siteKey(OpId Op) const;
  /// (Re)writes the JSON report with what was found so far.
  void writeJsonReport();
  /// This process's count into `streamlife run`'s tally; said once if that fails.
  void updateTally();

  /// True when a suppression rule matches R (counted there).
  bool suppressed(const ReportedFinding &R);

  const Options &Opts;
  OpTable &Ops;
  std::FILE *Fixed;
  std::FILE *out() const;
  Suppressions Supp; ///< from Opts.suppressions; used under StateLock

  std::mutex QueueLock; ///< guards Queue; taken under the engine lock
  /// Held for a whole drain, so that findings are printed in the order the
  /// engine queued them when several threads drain at once (a batch taken
  /// later must not be resolved and printed first). Taken before any other.
  std::mutex DrainLock;
  std::vector<Finding> Queue;
  std::atomic<std::size_t> Pending{0};
  std::atomic<std::size_t> ResolvedByDrain{0};

  mutable std::mutex StateLock; ///< guards everything below; never held across CUDA
  std::set<std::string> SeenKeys;
  std::set<std::string> ReportedKeys; ///< of SeenKeys, those not suppressed
  FindingObserver *Observer = nullptr;
  std::vector<ReportedFinding> Reported;
  std::vector<std::string> Notes;
  std::vector<std::string> SummaryDetails;
  bool ReportWriteFailed = false;
  std::atomic<bool> TallyWriteFailed{false};
  std::atomic<bool> NoteShown[static_cast<unsigned>(NotAnalysed::Count)] = {};
  std::atomic<bool> Finished{false};
};

} // namespace rt
} // namespace streamlife

#endif
