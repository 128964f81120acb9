//===--- Wording.cpp - streamlife -----------------------------------------===//
//
// Sentences are lowercase without a trailing period and name the streams and
// buffers; a stream is "stream 'x'" the first time a sentence names it and
// "'x'" after (shortName), the special streams always by their phrase.
//
//===----------------------------------------------------------------------===//

#include "Wording.h"

namespace streamlife {
namespace core {
namespace {

/// "'ag'" (or the special streams' phrases), for sentences that already said
/// "stream" once.
std::string shortName(const ir::Module &M, const StreamKey &S) {
  StreamName Name = streamName(M, S);
  if (Name.Kind != StreamName::Named || S.Kind == StreamKey::PerThread)
    return describeStream(M, S);
  return "'" + Name.Name + "'";
}

std::string quoted(const ir::Module &M, NameId N) {
  return "'" + nameSpelling(M, N) + "'";
}

std::string allocatedHere(const ir::Module &M, NameId AllocName,
                          const StreamKey &AllocStream) {
  return quoted(M, AllocName) + " allocated on " +
         describeStream(M, AllocStream) + " here";
}

} // namespace

std::string describeStream(const ir::Module &M, const StreamKey &S) {
  // cudaStreamPerThread, and the null stream under per-thread default
  // streams.
  if (S.Kind == StreamKey::PerThread)
    return "the per-thread default stream";
  StreamName Name = streamName(M, S);
  switch (Name.Kind) {
  case StreamName::LegacyDefault:
    return "the legacy default stream";
  case StreamName::Current:
    return "the current stream";
  case StreamName::Named:
    break;
  }
  return "stream '" + Name.Name + "'";
}

std::string perThreadDefaultStreamNote(bool FileDefaultIsPerThread) {
  if (FileDefaultIsPerThread)
    return "the default stream of this file is the per-thread default "
           "stream (nvcc --default-stream per-thread, or "
           "CUDA_API_PER_THREAD_DEFAULT_STREAM): unlike the legacy default "
           "stream it neither waits for other streams' work nor makes them "
           "wait for its own";
  return "the per-thread default stream (cudaStreamPerThread) neither waits "
         "for other streams' work nor makes them wait for its own, unlike the "
         "legacy default stream";
}

Story tell(const ir::Module &M, const FreeBeforeWaitFinding &Finding) {
  Story S{Rule::FreeBeforeWait, Finding.ReleaseSite, {}, {}, {}};
  const auto &First = Finding.Uses.front();
  S.Message = quoted(M, Finding.Buffer) + " is released on " +
              describeStream(M, Finding.ReleaseStream) + " while " +
              describeStream(M, First.Stream) + " may still use it";
  if (Finding.AllocSite != NoId)
    S.Notes.push_back({Finding.AllocSite,
                       allocatedHere(M, Finding.AllocName, Finding.AllocStream)});
  for (const auto &Use : Finding.Uses) {
    S.Notes.push_back(
        {Use.Site, "used on " + describeStream(M, Use.Stream) + " here"});
    if (Use.FromEarlierIteration)
      S.Notes.push_back(
          {Use.Site,
           "the use happens in an earlier loop iteration than the release"});
    for (const auto &[WaitSite, Event] : Use.StaleWaits)
      S.Notes.push_back({WaitSite, describeStream(M, Finding.ReleaseStream) +
                                       " waits on event " + quoted(M, Event) +
                                       " recorded on " +
                                       shortName(M, Use.Stream) +
                                       " before this use"});
    for (const auto &[WaitSite, Waiter] : Use.WrongStreamWaits)
      S.Notes.push_back({WaitSite, "the wait is on " +
                                       describeStream(M, Waiter) +
                                       ", not on the release " +
                                       describeStream(M, Finding.ReleaseStream)});
  }
  if (Finding.ReuseSite != NoId) {
    // Reached through a loop's back edge: the allocation comes before the
    // release in the source.
    bool NextIteration =
        M.site(Finding.ReuseSite).Order < M.site(Finding.ReleaseSite).Order;
    S.Notes.push_back({Finding.ReuseSite,
                       "the released block is in the pool of " +
                           shortName(M, Finding.ReleaseStream) +
                           ", and this allocation there" +
                           (NextIteration ? " in a later iteration" : "") +
                           " may be handed it while the use runs"});
  }
  for (const auto &Late : Finding.LateWaits)
    S.Notes.push_back({Late.WaitSite, describeStream(M, Late.Waiter) +
                                          " waits for " +
                                          shortName(M, Late.Consumer) +
                                          " only after the release"});
  const auto &Last = Finding.Uses.back();
  S.Notes.push_back({Last.Site,
                     "record an event on " + shortName(M, Last.Stream) +
                         " after this use and make " +
                         shortName(M, Finding.ReleaseStream) +
                         " wait on it before the release",
                     /*IsAdvice=*/true});
  // A wait that only comes after the release: moving the release after it
  // is the fix when that wait covers every racing use.
  if (!Finding.LateWaits.empty())
    S.FixNote = "fix: move the release after this wait";
  return S;
}

Story tell(const ir::Module &M, const MissingConsumerEventFinding &Finding) {
  Story S{Rule::MissingConsumerEvent, Finding.WaitSite, {}, {}, {}};
  S.Message = describeStream(M, Finding.WaitingStream) + " waits on event " +
              quoted(M, Finding.Event) + " recorded on " +
              shortName(M, Finding.EventStream) + " before its last use of " +
              quoted(M, Finding.Buffer);
  if (Finding.RecordSite != NoId)
    S.Notes.push_back({Finding.RecordSite,
                       "event " + quoted(M, Finding.Event) + " recorded here"});
  S.Notes.push_back({Finding.LastUseSite, "last use on " +
                                              describeStream(M, Finding.EventStream) +
                                              " here"});
  S.Notes.push_back({Finding.LastUseSite,
                     "record the event on " +
                         shortName(M, Finding.EventStream) +
                         " after this use, then make " +
                         shortName(M, Finding.WaitingStream) + " wait on it",
                     /*IsAdvice=*/true});
  S.FixNote = "fix: move the record after this statement";
  // The free this stale wait makes racy is the same bug: a note, not a
  // second warning.
  for (const auto &[ReleaseSite, Buffer] : Finding.RacingReleases)
    S.Notes.push_back({ReleaseSite, quoted(M, Buffer) + " released on " +
                                        describeStream(M, Finding.WaitingStream) +
                                        " here while " +
                                        describeStream(M, Finding.EventStream) +
                                        " may still use it"});
  return S;
}

Story tell(const ir::Module &M, const UseBeforeAllocFinding &Finding) {
  Story S{Rule::UseBeforeAlloc, Finding.UseSite, {}, {}, {}};
  S.Message = quoted(M, Finding.Buffer) + " is used on " +
              describeStream(M, Finding.UseStream) + " before " +
              shortName(M, Finding.UseStream) +
              " is ordered after its allocation on " +
              describeStream(M, Finding.AllocStream);
  S.Notes.push_back({Finding.AllocSite,
                     allocatedHere(M, Finding.AllocName, Finding.AllocStream)});
  S.Notes.push_back({Finding.UseSite,
                     "record an event on " +
                         shortName(M, Finding.AllocStream) +
                         " after the allocation and make " +
                         shortName(M, Finding.UseStream) +
                         " wait on it before this use",
                     /*IsAdvice=*/true});
  return S;
}

Story tell(const ir::Module &M, const HandOffFinding &Finding) {
  Story S{Rule::FreeBeforeWait, Finding.ReturnSite, {}, {}, {}};
  S.Message = quoted(M, Finding.Buffer) + " is handed to the caller but is "
              "released on " + describeStream(M, Finding.ReleaseStream) +
              ", which the caller does not know; its uses on the caller's "
              "stream will not be ordered before that release";
  if (Finding.AllocSite != NoId)
    S.Notes.push_back({Finding.AllocSite,
                       allocatedHere(M, Finding.AllocName, Finding.AllocStream)});
  S.Notes.push_back({Finding.ReturnSite,
                     "allocate it on the caller's stream, or rebind it to the "
                     "caller's stream after the join (record_stream, "
                     "set_stream)",
                     /*IsAdvice=*/true});
  return S;
}

namespace {
constexpr llvm::StringLiteral HandsReuse =
    " hands buffer reuse to the allocator's event polling; record an event "
    "on the consumer stream and make the allocation stream wait on it before "
    "the release";

std::string quoted(llvm::StringRef Text) { return "'" + Text.str() + "'"; }

// No fix-it: a keepalive queue outlives the loop body (a member or a variable
// before the loop, its pops where the allocation stream waits).
std::string keepaliveAdvice(llvm::StringRef Buffer) {
  return "no automatic fix: instead, keep " + quoted(Buffer) +
         " with an event recorded on the consumer stream after its use in a "
         "keepalive queue, and drop it only after the allocation stream "
         "waited on that event";
}
} // namespace

RecordStreamInLoopWords recordStreamInLoop(llvm::StringRef Buffer) {
  return {"record_stream on " + quoted(Buffer) + " inside a loop" +
              HandsReuse.str(),
          "inside this loop", keepaliveAdvice(Buffer)};
}

RecordStreamInLoopWords recordStreamInLoopThroughCall(llvm::StringRef Buffer,
                                                      llvm::StringRef Recorder,
                                                      llvm::StringRef Callee) {
  std::string How = Recorder == Callee
                        ? ", called inside a loop,"
                        : ", reached from a call of " + quoted(Callee) +
                              " inside a loop,";
  return {"record_stream on " + quoted(Buffer) + " in " + quoted(Recorder) +
              How + HandsReuse.str(),
          "inside this loop", keepaliveAdvice(Buffer)};
}

std::string recordStreamCalledHere(llvm::StringRef Function,
                                   llvm::StringRef Buffer) {
  return quoted(Function) + " calls record_stream on " + quoted(Buffer) +
         " here";
}

std::string callsHere(llvm::StringRef Function, llvm::StringRef Callee) {
  return quoted(Function) + " calls " + quoted(Callee) + " here";
}

} // namespace core
} // namespace streamlife
