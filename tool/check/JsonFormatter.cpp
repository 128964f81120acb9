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
  // Streamed, one finding's value at a time, so that memory does not grow
  // with the number of findings; keys in sorted order, as llvm::json prints
  // a whole Value, so the output is unchanged.
  unsigned BrokenFiles = 0;
  for (const FileResult &File : Report.Files)
    BrokenFiles += !File.parsedCleanly();
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attributeArray("files", [&] {
      for (const FileResult &File : Report.Files)
        J.object([&] {
          J.attributeArray("compileErrors", [&] {
            for (const Diagnostic &Error : File.CompileErrors)
              J.value(toJson(Error));
          });
          J.attribute("findings", static_cast<int64_t>(File.Findings.size()));
          J.attribute("parsed", File.parsedCleanly());
          J.attribute("path", File.Path);
        });
    });
    J.attributeArray("findings", [&] {
      for (const FileResult &File : Report.Files)
        for (const Diagnostic &Finding : File.Findings)
          J.value(toJson(Finding));
    });
    J.attributeObject("summary", [&] {
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
