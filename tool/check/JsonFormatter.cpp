//===- JsonFormatter.cpp - a plain JSON report for scripts ----------------===//
//
// Shape (version 1):
//   { "version": 1, "tool": {"name": "streamlife", "version": "..."},
//     "summary": {"files": N, "findings": N, "filesWithCompileErrors": N},
//     "findings": [ {"check", "severity", "message",
//                    "location": {"file", "line", "column"},
//                    "notes": [ {"message", "location"} ]} ],
//     "files": [ {"path", "parsed": bool, "findings": N,
//                 "compileErrors": [ same shape as a finding ]} ] }
//
//===----------------------------------------------------------------------===//
#include "ReportFormatters.h"

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

} // namespace

void writeJsonReport(const CheckReport &Report, llvm::StringRef ToolVersion,
                     llvm::raw_ostream &OS) {
  llvm::json::Array Findings, Files;
  unsigned BrokenFiles = 0;
  for (const FileResult &File : Report.Files) {
    for (const Diagnostic &Finding : File.Findings)
      Findings.push_back(toJson(Finding));
    llvm::json::Array CompileErrors;
    for (const Diagnostic &Error : File.CompileErrors)
      CompileErrors.push_back(toJson(Error));
    BrokenFiles += !File.parsedCleanly();
    Files.push_back(llvm::json::Object{
        {"path", File.Path},
        {"parsed", File.parsedCleanly()},
        {"findings", static_cast<int64_t>(File.Findings.size())},
        {"compileErrors", std::move(CompileErrors)},
    });
  }
  llvm::json::Value Document = llvm::json::Object{
      {"version", 1},
      {"tool", llvm::json::Object{{"name", "streamlife"}, {"version", ToolVersion}}},
      {"summary", llvm::json::Object{{"files", static_cast<int64_t>(Report.Files.size())},
                                     {"findings", Report.findingCount()},
                                     {"filesWithCompileErrors", BrokenFiles}}},
      {"findings", std::move(Findings)},
      {"files", std::move(Files)},
  };
  OS << llvm::formatv("{0:2}", Document) << '\n';
}

} // namespace streamlife::check
