//===- TextFormatter.cpp - clang-style diagnostics ------------------------===//
#include "ReportFormatters.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

namespace streamlife::check {
namespace {

/// Bytes that would drive the terminal (ESC, BEL, backspace, CR, DEL...) are
/// shown as clang shows them, "<U+001B>", so that a source line or a file name
/// cannot set the title, clear the screen or erase the warning above it.
/// Tabs are kept (they line the caret up); other bytes pass unchanged.
bool isTerminalControl(unsigned char C) { return (C < 0x20 && C != '\t') || C == 0x7F; }

void writeEscaped(llvm::StringRef Text, llvm::raw_ostream &OS) {
  for (unsigned char C : Text) {
    if (isTerminalControl(C))
      OS << llvm::formatv("<U+{0:X-4}>", static_cast<unsigned>(C));
    else
      OS << C;
  }
}

/// How many columns writeEscaped prints for C.
unsigned escapedWidth(unsigned char C) { return isTerminalControl(C) ? 8 : 1; }

// clang's colours (TextDiagnostic.cpp), which clang-tidy shows too: the
// location and the message bold, the level in its colour, the caret green.
// Each is a no-op on a stream whose colours are off (--color).
constexpr auto WarningColor = llvm::raw_ostream::MAGENTA;
constexpr auto ErrorColor = llvm::raw_ostream::RED;
constexpr auto NoteColor = llvm::raw_ostream::BLACK;
constexpr auto CaretColor = llvm::raw_ostream::GREEN;

void writeLocationPrefix(const SourceLocationInfo &Location, llvm::raw_ostream &OS) {
  OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  if (Location.Path.empty()) {
    OS << "streamlife: ";
    OS.resetColor();
    return;
  }
  writeEscaped(displayPath(Location.Path), OS);
  if (Location.hasPosition())
    OS << ':' << Location.Line << ':' << Location.Column;
  OS << ": ";
  OS.resetColor();
}

void writeLevel(llvm::StringRef Level, llvm::raw_ostream::Colors Color, llvm::raw_ostream &OS) {
  OS.changeColor(Color, /*Bold=*/true);
  OS << Level;
  OS.resetColor();
}

/// The source line with its number, and a caret under the column; tabs in
/// the line are kept in the caret line so that the caret lines up. A clipped
/// long line shows "..." where it goes on.
void writeSnippet(const SourceLocationInfo &Location, llvm::raw_ostream &OS) {
  if (!Location.hasPosition())
    return;
  constexpr llvm::StringLiteral Ellipsis = "...";
  bool ClippedBefore = Location.LineTextStart > 0;
  OS << llvm::formatv("{0,5} | ", Location.Line);
  if (ClippedBefore)
    OS << Ellipsis;
  writeEscaped(Location.LineText, OS);
  if (Location.LineTextClippedEnd)
    OS << Ellipsis;
  OS << '\n';
  OS << "      | ";
  if (ClippedBefore)
    OS.indent(Ellipsis.size());
  llvm::StringRef Line = Location.LineText;
  unsigned CaretAt = Location.Column - 1 >= Location.LineTextStart
                         ? Location.Column - 1 - Location.LineTextStart
                         : 0;
  for (unsigned I = 0; I < CaretAt && I < Line.size(); ++I)
    if (Line[I] == '\t')
      OS << '\t';
    else
      OS.indent(escapedWidth(Line[I]));
  OS.changeColor(CaretColor, /*Bold=*/true);
  OS << '^';
  OS.resetColor();
  OS << '\n';
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
  if (Diag.Level == Severity::Error)
    writeLevel("error: ", ErrorColor, OS);
  else
    writeLevel("warning: ", WarningColor, OS);
  OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  writeEscaped(Diag.Message, OS);
  if (!llvm::StringRef(Diag.CheckName).starts_with("clang-diagnostic-"))
    OS << " [" << Diag.CheckName << ']';
  OS.resetColor();
  OS << '\n';
  writeSnippet(Diag.Location, OS);
  for (const DiagnosticNote &Note : Diag.Notes) {
    writeLocationPrefix(Note.Location, OS);
    writeLevel("note: ", NoteColor, OS);
    writeEscaped(Note.Message, OS);
    OS << '\n';
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
