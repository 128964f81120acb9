//===- ProgressReporter.cpp - how far a run is ----------------------------===//
#include "ProgressReporter.h"

#include "ParallelRunner.h"
#include "ReportFormatters.h"

#include "llvm/Support/FormatVariadic.h"

namespace streamlife::check {
namespace {

std::string plural(size_t N, llvm::StringRef Word) {
  return std::to_string(N) + " " + Word.str() + (N == 1 ? "" : "s");
}

} // namespace

ProgressReporter::ProgressReporter(llvm::raw_ostream &OS, size_t TotalFiles, bool Enabled,
                                   bool Terminal)
    : OS(OS), Total(TotalFiles), Enabled(Enabled && TotalFiles > 1), Terminal(Terminal),
      Start(std::chrono::steady_clock::now()) {}

void ProgressReporter::fileDone(const FileResult &Result) {
  ++Done;
  size_t NewFindings = 0;
  for (const Diagnostic &Finding : Result.Findings)
    NewFindings += Seen.insert(repeatedFindingKey(Finding)).second;
  Findings += NewFindings;
  Failed += !Result.parsedCleanly();
  if (!Enabled)
    return;
  if (Terminal) {
    auto Elapsed = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
    // "\r" and erase-to-end-of-line: the line shrinks cleanly.
    long Seconds = Elapsed % 60;
    OS << llvm::formatv("\rstreamlife: [{0}/{1}] {2}:{3}{4} elapsed, {5}", Done, Total,
                        Elapsed / 60, Seconds < 10 ? "0" : "", Seconds,
                        plural(Findings, "finding"));
    if (Failed)
      OS << ", " << Failed << " failed";
    OS << "\x1b[K";
    OS.flush();
    return;
  }
  std::string Outcome;
  if (!Result.Failure.empty())
    Outcome = "failed, " + Result.Failure;
  else if (!Result.CompileErrors.empty())
    Outcome = "failed, " + plural(Result.CompileErrors.size(), "compile error");
  else
    Outcome = plural(NewFindings, "finding");
  OS << llvm::formatv("streamlife: [{0}/{1}] {2}: {3} ({4:f1} s)\n", Done, Total,
                      displayPath(Result.Path), Outcome, Result.Seconds);
  OS.flush();
}

void ProgressReporter::finish() {
  if (Enabled && Terminal && Done) {
    OS << '\n';
    OS.flush();
  }
}

} // namespace streamlife::check
