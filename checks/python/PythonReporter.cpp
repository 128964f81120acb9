//===--- PythonReporter.cpp - streamlife ----------------------------------===//

#include "PythonReporter.h"
#include "Wording.h"

namespace streamlife::python {
namespace {

/// Python has no fix-its: the story as the core tells it.
void report(core::Story Story, std::vector<PyDiagnostic> &Out) {
  PyDiagnostic D;
  D.Check = core::ruleName(Story.Id).str();
  D.Site = Story.Site;
  D.Message = std::move(Story.Message);
  for (core::StoryNote &Note : Story.Notes)
    D.Notes.push_back({Note.Site, std::move(Note.Text)});
  Out.push_back(std::move(D));
}

} // namespace

void reportFindings(const ir::Module &M, const core::FunctionFindings &Findings,
                    std::vector<PyDiagnostic> &Out) {
  for (const auto &F : Findings.FreeBeforeWait)
    if (F.ExplainedByStaleWaits.empty() && !F.Uses.empty())
      report(core::tell(M, F), Out);
  // A stale wait matters when the buffer is then released relying on it;
  // a wait meant for another buffer (keepalive: the previous layer's) while
  // this one is still in use and kept is not a finding.
  for (const auto &F : Findings.MissingConsumerEvent)
    if (!F.RacingReleases.empty())
      report(core::tell(M, F), Out);
  for (const auto &F : Findings.UseBeforeAlloc)
    report(core::tell(M, F), Out);
}

void reportRecordStreamInLoop(const RecordStreamInLoop &Finding,
                              std::vector<PyDiagnostic> &Out) {
  PyDiagnostic D;
  D.Check = core::ruleName(core::Rule::RecordStreamInLoop).str();
  D.Site = Finding.Call;
  if (Finding.Through.empty()) {
    core::RecordStreamInLoopWords Words = core::recordStreamInLoop(Finding.Buffer);
    D.Message = std::move(Words.Message);
    D.Notes.push_back({Finding.Loop, std::move(Words.LoopNote)});
    D.Notes.push_back({Finding.Call, std::move(Words.Advice)});
    Out.push_back(std::move(D));
    return;
  }
  // The story: the loop, each call on the way, the record_stream call.
  const auto &Through = Finding.Through;
  core::RecordStreamInLoopWords Words = core::recordStreamInLoopThroughCall(
      Finding.Buffer, Through.back().Function, Through.front().Function);
  D.Message = std::move(Words.Message);
  D.Notes.push_back({Finding.Loop, std::move(Words.LoopNote)});
  for (size_t I = 0; I + 1 < Through.size(); ++I)
    D.Notes.push_back({Through[I].At,
                       core::callsHere(Through[I].Function,
                                       Through[I + 1].Function)});
  D.Notes.push_back({Through.back().At,
                     core::recordStreamCalledHere(Through.back().Function,
                                                  Finding.Buffer)});
  D.Notes.push_back({Through.back().At, std::move(Words.Advice)});
  Out.push_back(std::move(D));
}

} // namespace streamlife::python
