//===- JsonFormatter.cpp - a plain JSON report for scripts ----------------===//
//
// Shape (version 1):
//   { "version": 1, "tool": {"name": "streamlife", "version": "..."},
//     "summary": {"files": N, "findings": N, "filesWithCompileErrors": N},
//     "findings": [ {"check", "severity", "message", "fingerprint",
//                    "location": {"file", "line", "column"},
//                    "notes": [ {"message", "location"} ],
//                    "baselineState": "new" (with --baseline),
//                    "fix": [ {"file", "offset", "length", "replacement"} ]
//                      (only when the finding has a fix-it: byte ranges,
//                      applied together by --fix) } ],
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
  if (!Finding.Fix.empty()) {
    llvm::json::Array Fix;
    for (const TextEdit &Edit : Finding.Fix)
      Fix.push_back(llvm::json::Object{{"file", Edit.Path},
                                       {"offset", Edit.Offset},
                                       {"length", Edit.Length},
                                       {"replacement", Edit.Replacement}});
    Object["fix"] = std::move(Fix);
  }
  return Value;
}

} // namespace

void writeJsonReport(const CheckReport &Report, llvm::StringRef ToolVersion,
                     llvm::raw_ostream &OS) {
  // Streamed, one finding's value at a time, so that memory does not grow
  // with the number of findings; keys in sorted order, as llvm::json prints
  // a whole Value, so the output is unchanged.
  unsigned BrokenFiles = 0;
  for (const FileResult &File : Report.Files)
    BrokenFiles += !File.parsedCleanly();
  // Findings already in the --baseline are left out.
  auto Reported = [](const Diagnostic &D) { return D.State != BaselineState::Unchanged; };
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attributeArray("files", [&] {
      for (const FileResult &File : Report.Files)
        J.object([&] {
          J.attributeArray("compileErrors", [&] {
            for (const Diagnostic &Error : File.CompileErrors)
              J.value(toJson(Error));
          });
          if (!File.Failure.empty())
            J.attribute("failure", File.Failure);
          J.attribute("findings", static_cast<int64_t>(llvm::count_if(File.Findings, Reported)));
          J.attribute("parsed", File.parsedCleanly());
          J.attribute("path", File.Path);
        });
    });
    J.attributeArray("findings", [&] {
      for (const FileResult &File : Report.Files)
        for (const Diagnostic &Finding : File.Findings)
          if (Reported(Finding))
            J.value(findingToJson(Finding));
    });
    J.attributeObject("summary", [&] {
      if (Report.ComparedToBaseline) {
        int64_t Unchanged = 0;
        for (const FileResult &File : Report.Files)
          Unchanged += llvm::count_if(File.Findings, [&](const Diagnostic &D) { return !Reported(D); });
        J.attribute("baseline",
                    llvm::json::Object{{"absent", static_cast<int64_t>(Report.AbsentFindings.size())},
                                       {"unchanged", Unchanged}});
      }
      J.attribute("files", static_cast<int64_t>(Report.Files.size()));
      J.attribute("filesWithCompileErrors", BrokenFiles);
      J.attribute("findings", Report.findingCount());
    });
    J.attribute("tool", llvm::json::Object{{"name", "streamlife"}, {"version", ToolVersion}});
    J.attribute("version", 1);
  });
  OS << '\n';
}

} // namespace streamlife::check
