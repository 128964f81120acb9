//===- FileResultCodec.h - a FileResult across a pipe ----------*- C++ -*-===//
//
// A worker process sends its FileResult to the parent as one JSON document
// (llvm::json): lossless for every field the formatters read, and a truncated
// or garbled message fails to parse instead of being half-read.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_CHECK_FILERESULTCODEC_H
#define STREAMLIFE_TOOL_CHECK_FILERESULTCODEC_H

#include "Finding.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace streamlife::check {

std::string encodeFileResult(const FileResult &Result);
std::optional<FileResult> decodeFileResult(llvm::StringRef Text);

} // namespace streamlife::check

#endif
