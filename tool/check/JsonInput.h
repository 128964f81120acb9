//===- JsonInput.h - parse a JSON input file safely --------------*- C++ -*-===//
//
// A baseline (often a CI artifact someone else produced) and a compile
// database are JSON files from outside. llvm::json::parse, and the YAML
// parser clang's JSONCompilationDatabase reads the file with, recurse once
// per nesting level: 100,000 nested brackets overflowed the stack (SIGSEGV,
// exit 139). Real ones nest a few levels (a SARIF log about fifteen). So the
// file is read as a bounded regular file (support/InputFile.h), its nesting
// is measured without recursion, and only then is it parsed.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_JSONINPUT_H
#define STREAMLIFE_TOOL_CHECK_JSONINPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <string>

namespace streamlife::check {

/// Deeper than any baseline or compile database, shallow enough for the
/// parsers' recursion on the main thread's stack.
constexpr unsigned MaxJsonNesting = 512;

/// The deepest nesting of arrays and objects in Text (strings skipped), or
/// Limit + 1 as soon as it is exceeded.
unsigned jsonNestingDepth(llvm::StringRef Text, unsigned Limit = MaxJsonNesting);

/// Reads Path (a regular file of at most Limit bytes) and parses it. On
/// failure, one lowercase phrase without the path: "cannot read it: ...",
/// "invalid JSON: ..." or "nested more than 512 levels deep".
llvm::Expected<llvm::json::Value> readJsonInput(const std::string &Path, std::size_t Limit);

} // namespace streamlife::check

#endif
