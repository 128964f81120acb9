//===--- PythonReporter.cpp - streamlife ----------------------------------===//

#include "PythonReporter.h"

namespace streamlife::python {
namespace {

using core::StreamKey;
using core::StreamName;

/// "stream 'ag'", "the legacy default stream", "the current stream".
std::string describe(const ir::Module &M, const StreamKey &S) {
  StreamName N = core::streamName(M, S);
  switch (N.Kind) {
  case StreamName::LegacyDefault:
    return "the legacy default stream";
  case StreamName::Current:
    return "the current stream";
  case StreamName::Named:
    break;
  }
  if (N.Name == UnnamedCurrentStream)
    return "the current stream";
  return "stream '" + N.Name + "'";
}

/// "'ag'", for sentences that already said "stream" once.
std::string shortName(const ir::Module &M, const StreamKey &S) {
  StreamName N = core::streamName(M, S);
  if (N.Kind != StreamName::Named || N.Name == UnnamedCurrentStream)
    return describe(M, S);
  return "'" + N.Name + "'";
}

std::string quoted(const ir::Module &M, ir::NameId N) {
  return "'" + core::nameSpelling(M, N) + "'";
}

void report(const ir::Module &M, const core::FreeBeforeWaitFinding &Finding,
            std::vector<PyDiagnostic> &Out) {
  const auto &First = Finding.Uses.front();
  PyDiagnostic D;
  D.Check = "streamlife-free-before-wait";
  D.Site = Finding.ReleaseSite;
  D.Message = quoted(M, Finding.Buffer) + " is released on " +
              describe(M, Finding.ReleaseStream) + " while " +
              describe(M, First.Stream) + " may still use it";
  if (Finding.AllocSite != ir::NoId)
    D.Notes.push_back({Finding.AllocSite,
                       quoted(M, Finding.AllocName) + " allocated on " +
                           describe(M, Finding.AllocStream) + " here"});
  for (const auto &Use : Finding.Uses) {
    D.Notes.push_back({Use.Site, "used on " + describe(M, Use.Stream) + " here"});
    if (Use.FromEarlierIteration)
      D.Notes.push_back(
          {Use.Site,
           "the use happens in an earlier loop iteration than the release"});
    for (const auto &[WaitSite, Event] : Use.StaleWaits)
      D.Notes.push_back({WaitSite, describe(M, Finding.ReleaseStream) +
                                       " waits on event " + quoted(M, Event) +
                                       " recorded on " +
                                       shortName(M, Use.Stream) +
                                       " before this use"});
    for (const auto &[WaitSite, Waiter] : Use.WrongStreamWaits)
      D.Notes.push_back({WaitSite, "the wait is on " + describe(M, Waiter) +
                                       ", not on the release " +
                                       describe(M, Finding.ReleaseStream)});
  }
  for (const auto &Late : Finding.LateWaits)
    D.Notes.push_back({Late.WaitSite, describe(M, Late.Waiter) + " waits for " +
                                          shortName(M, Late.Consumer) +
                                          " only after the release"});
  const auto &Last = Finding.Uses.back();
  D.Notes.push_back({Last.Site, "record an event on " +
                                    shortName(M, Last.Stream) +
                                    " after this use and make " +
                                    shortName(M, Finding.ReleaseStream) +
                                    " wait on it before the release"});
  Out.push_back(std::move(D));
}

void report(const ir::Module &M,
            const core::MissingConsumerEventFinding &Finding,
            std::vector<PyDiagnostic> &Out) {
  PyDiagnostic D;
  D.Check = "streamlife-missing-consumer-event";
  D.Site = Finding.WaitSite;
  D.Message = describe(M, Finding.WaitingStream) + " waits on event " +
              quoted(M, Finding.Event) + " recorded on " +
              shortName(M, Finding.EventStream) + " before its last use of " +
              quoted(M, Finding.Buffer);
  if (Finding.RecordSite != ir::NoId)
    D.Notes.push_back(
        {Finding.RecordSite, "event " + quoted(M, Finding.Event) + " recorded here"});
  D.Notes.push_back({Finding.LastUseSite,
                     "last use on " + describe(M, Finding.EventStream) + " here"});
  for (const auto &[ReleaseSite, Buffer] : Finding.RacingReleases)
    D.Notes.push_back({ReleaseSite, quoted(M, Buffer) + " released on " +
                                        describe(M, Finding.WaitingStream) +
                                        " here"});
  D.Notes.push_back({Finding.LastUseSite,
                     "record the event on " + shortName(M, Finding.EventStream) +
                         " after this use, then make " +
                         shortName(M, Finding.WaitingStream) + " wait on it"});
  Out.push_back(std::move(D));
}

void report(const ir::Module &M, const core::UseBeforeAllocFinding &Finding,
            std::vector<PyDiagnostic> &Out) {
  PyDiagnostic D;
  D.Check = "streamlife-use-before-alloc";
  D.Site = Finding.UseSite;
  D.Message = quoted(M, Finding.Buffer) + " is used on " +
              describe(M, Finding.UseStream) + " before " +
              shortName(M, Finding.UseStream) +
              " is ordered after its allocation on " +
              describe(M, Finding.AllocStream);
  D.Notes.push_back({Finding.AllocSite, quoted(M, Finding.AllocName) +
                                            " allocated on " +
                                            describe(M, Finding.AllocStream) +
                                            " here"});
  D.Notes.push_back({Finding.UseSite,
                     "record an event on " + shortName(M, Finding.AllocStream) +
                         " after the allocation and make " +
                         shortName(M, Finding.UseStream) +
                         " wait on it before this use"});
  Out.push_back(std::move(D));
}

} // namespace

void reportFindings(const ir::Module &M, const core::FunctionFindings &Findings,
                    std::vector<PyDiagnostic> &Out) {
  for (const auto &F : Findings.FreeBeforeWait)
    if (F.ExplainedByStaleWaits.empty() && !F.Uses.empty())
      report(M, F, Out);
  // A stale wait matters when the buffer is then released relying on it;
  // a wait meant for another buffer (keepalive: the previous layer's) while
  // this one is still in use and kept is not a finding.
  for (const auto &F : Findings.MissingConsumerEvent)
    if (!F.RacingReleases.empty())
      report(M, F, Out);
  for (const auto &F : Findings.UseBeforeAlloc)
    report(M, F, Out);
}

void reportRecordStreamInLoop(const RecordStreamInLoop &Finding,
                              std::vector<PyDiagnostic> &Out) {
  PyDiagnostic D;
  D.Check = "streamlife-record-stream-in-loop";
  D.Site = Finding.Call;
  D.Message = "record_stream on '" + Finding.Buffer +
              "' inside a loop hands buffer reuse to the allocator's event "
              "polling; record an event on the consumer stream and make the "
              "allocation stream wait on it before the release";
  D.Notes.push_back({Finding.Loop, "inside this loop"});
  Out.push_back(std::move(D));
}

} // namespace streamlife::python
