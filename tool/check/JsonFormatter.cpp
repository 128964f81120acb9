//===- JsonFormatter.cpp - a plain JSON report for scripts ----------------===//
//
// Shape (version 1):
//   { "version": 1, "tool": {"name": "streamlife", "version": "..."},
//     "summary": {"files": N, "findings": N, "filesWithCompileErrors": N},
//     "findings": [ {"check", "severity", "message", "fingerprint",
//                    "location": {"file", "line", "column"},
//                    "notes": [ {"message", "location"} ],
//                    "baselineState": "new" (with --baseline)} ],
//   With --baseline the findings already in it are left out, and summary
//   gains "baseline": {"unchanged": N, "absent": N}.
//     "files": [ {"path", "parsed": bool, "findings": N,
//                 "compileErrors": [ same shape as a finding ],
//                 "failure": "why it was not checked" (only when it was not)} ] }
//
//===----------------------------------------------------------------------===//
#include "ReportFormatters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

namespace streamlife::check {
namespace {

llvm::json::Value toJson(const SourceLocationInfo &Location) {
  llvm::json::Object Object{{"file", Location.Path}};
  if (Location.hasPosition()) {
    Object["line"] = Location.Line;
    Object["column"] = Location.Column;
  }
  return Object;
}

llvm::json::Value toJson(const Diagnostic &Diag) {
  llvm::json::Array Notes;
  for (const DiagnosticNote &Note : Diag.Notes)
    Notes.push_back(llvm::json::Object{{"message", Note.Message},
                                       {"location", toJson(Note.Location)}});
  return llvm::json::Object{
      {"check", Diag.CheckName},
      {"severity", Diag.Level == Severity::Error ? "error" : "warning"},
      {"message", Diag.Message},
      {"location", toJson(Diag.Location)},
      {"notes", std::move(Notes)},
  };
}

llvm::json::Value findingToJson(const Diagnostic &Finding) {
  llvm::json::Value Value = toJson(Finding);
  llvm::json::Object &Object = *Value.getAsObject();
  Object["fingerprint"] = Finding.Fingerprint;
  if (Finding.State == BaselineState::New)
    Object["baselineState"] = "new";
  return Value;
}

} // namespace

void writeJsonReport(const CheckReport &Report, llvm::StringRef ToolVersion,
                     llvm::raw_ostream &OS) {
  llvm::json::Array Findings, Files;
  unsigned BrokenFiles = 0;
  for (const FileResult &File : Report.Files) {
    for (const Diagnostic &Finding : File.Findings)
      if (Finding.State != BaselineState::Unchanged) // in the --baseline
        Findings.push_back(findingToJson(Finding));
    llvm::json::Array CompileErrors;
    for (const Diagnostic &Error : File.CompileErrors)
      CompileErrors.push_back(toJson(Error));
    BrokenFiles += !File.parsedCleanly();
    llvm::json::Object Entry{
        {"path", File.Path},
        {"parsed", File.parsedCleanly()},
        {"findings", static_cast<int64_t>(llvm::count_if(File.Findings, [](const Diagnostic &D) {
           return D.State != BaselineState::Unchanged;
         }))},
        {"compileErrors", std::move(CompileErrors)},
    };
    if (!File.Failure.empty())
      Entry["failure"] = File.Failure;
    Files.push_back(std::move(Entry));
  }
  llvm::json::Object Summary{{"files", static_cast<int64_t>(Report.Files.size())},
                             {"findings", Report.findingCount()},
                             {"filesWithCompileErrors", BrokenFiles}};
  if (Report.ComparedToBaseline) {
    int64_t Unchanged = 0;
    for (const FileResult &File : Report.Files)
      Unchanged += llvm::count_if(File.Findings, [](const Diagnostic &D) {
        return D.State == BaselineState::Unchanged;
      });
    Summary["baseline"] = llvm::json::Object{
        {"unchanged", Unchanged},
        {"absent", static_cast<int64_t>(Report.AbsentFindings.size())}};
  }
  llvm::json::Value Document = llvm::json::Object{
      {"version", 1},
      {"tool", llvm::json::Object{{"name", "streamlife"}, {"version", ToolVersion}}},
      {"summary", std::move(Summary)},
      {"findings", std::move(Findings)},
      {"files", std::move(Files)},
  };
  OS << llvm::formatv("{0:2}", Document) << '\n';
}

} // namespace streamlife::check
