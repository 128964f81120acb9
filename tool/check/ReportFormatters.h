//===- ReportFormatters.h - the three output formats -----------*- C++ -*-===//
//
// One formatter per file: TextFormatter.cpp (clang-style diagnostics),
// JsonFormatter.cpp (a plain JSON document for scripts), SarifFormatter.cpp
// (SARIF 2.1.0 for GitHub code scanning and IDEs). They only read the
// CheckReport; nothing here touches the file system.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_REPORTFORMATTERS_H
#define STREAMLIFE_TOOL_CHECK_REPORTFORMATTERS_H

#include "Finding.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace streamlife::check {

/// \p Path relative to the current directory when it lies under it, as a
/// compiler invoked there would print it; otherwise unchanged.
std::string displayPath(llvm::StringRef Path);

/// `file:line:col: warning: message [check]`, the source line and a caret,
/// then each note the same way, like clang-tidy.
void writeTextDiagnostic(const Diagnostic &Diag, llvm::raw_ostream &OS);
void writeTextReport(const CheckReport &Report, llvm::raw_ostream &OS);

void writeJsonReport(const CheckReport &Report, llvm::StringRef ToolVersion,
                     llvm::raw_ostream &OS);

struct SarifSettings {
  std::string ToolVersion;
  /// Absolute directory that %SRCROOT% stands for; locations under it get URIs
  /// relative to it, so results from different checkouts match.
  std::string SourceRoot;
};
void writeSarifReport(const CheckReport &Report, const SarifSettings &Settings,
                      llvm::raw_ostream &OS);

} // namespace streamlife::check

#endif
