//===- Fingerprint.h - the identity of a finding across runs ---*- C++ -*-===//
//
// A --baseline matches this run's findings against an earlier report's by a
// fingerprint that survives edits elsewhere in the file, so it must not
// contain line or column numbers. It hashes:
//  - the check name;
//  - the file, relative to the source root (--source-root, default the
//    current directory), with '/' separators, so that two checkouts agree;
//  - the message, which names the buffer and the streams
//    ("'prev' is released on stream 'ag' while stream 'compute' may still
//    use it");
//  - the flagged statement's line with its whitespace collapsed (so that
//    re-indenting keeps the match);
//  - the occurrence number of that combination in the file, in source
//    order, so that two identical statements in one file stay two findings.
// Moving the code, or editing other lines, keeps the fingerprint; editing
// the flagged line, renaming the buffer or a stream makes it a new finding.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_FINGERPRINT_H
#define STREAMLIFE_TOOL_CHECK_FINGERPRINT_H

#include "Finding.h"

#include "llvm/ADT/StringRef.h"

namespace streamlife::check {

/// The version tag of the scheme; SARIF stores the fingerprint under
/// partialFingerprints[kFingerprintKey].
inline constexpr const char *FingerprintKey = "streamlife/v1";

/// Sets Diagnostic::Fingerprint of every finding of \p Report.
void assignFingerprints(CheckReport &Report, llvm::StringRef SourceRoot);

/// \p Line with runs of whitespace collapsed to one space and the ends
/// trimmed.
std::string normalizeWhitespace(llvm::StringRef Line);

} // namespace streamlife::check

#endif
