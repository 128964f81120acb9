//===- TextFormatter.cpp - clang-style diagnostics ------------------------===//
#include "ReportFormatters.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

namespace streamlife::check {
namespace {

void writeLocationPrefix(const SourceLocationInfo &Location, llvm::raw_ostream &OS) {
  if (Location.Path.empty()) {
    OS << "streamlife: ";
    return;
  }
  OS << displayPath(Location.Path);
  if (Location.hasPosition())
    OS << ':' << Location.Line << ':' << Location.Column;
  OS << ": ";
}

/// The source line with its number, and a caret under the column; tabs in
/// the line are kept in the caret line so that the caret lines up.
void writeSnippet(const SourceLocationInfo &Location, llvm::raw_ostream &OS) {
  if (!Location.hasPosition())
    return;
  OS << llvm::formatv("{0,5} | ", Location.Line) << Location.LineText << '\n';
  OS << "      | ";
  llvm::StringRef Line = Location.LineText;
  for (unsigned I = 0; I + 1 < Location.Column && I < Line.size(); ++I)
    OS << (Line[I] == '\t' ? '\t' : ' ');
  OS << "^\n";
}

} // namespace

std::string displayPath(llvm::StringRef Path) {
  llvm::SmallString<256> Cwd;
  if (llvm::sys::fs::current_path(Cwd))
    return Path.str();
  Cwd += llvm::sys::path::get_separator();
  if (Path.starts_with(Cwd))
    return Path.drop_front(Cwd.size()).str();
  return Path.str();
}

void writeTextDiagnostic(const Diagnostic &Diag, llvm::raw_ostream &OS) {
  writeLocationPrefix(Diag.Location, OS);
  OS << (Diag.Level == Severity::Error ? "error: " : "warning: ") << Diag.Message;
  if (!llvm::StringRef(Diag.CheckName).starts_with("clang-diagnostic-"))
    OS << " [" << Diag.CheckName << ']';
  OS << '\n';
  writeSnippet(Diag.Location, OS);
  for (const DiagnosticNote &Note : Diag.Notes) {
    writeLocationPrefix(Note.Location, OS);
    OS << "note: " << Note.Message << '\n';
    writeSnippet(Note.Location, OS);
  }
}

void writeTextReport(const CheckReport &Report, llvm::raw_ostream &OS) {
  for (const FileResult &File : Report.Files)
    for (const Diagnostic &Finding : File.Findings)
      if (Finding.State != BaselineState::Unchanged) // in the --baseline
        writeTextDiagnostic(Finding, OS);
}

} // namespace streamlife::check
