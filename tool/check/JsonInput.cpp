//===- JsonInput.cpp - parse a JSON input file safely ---------------------===//
#include "JsonInput.h"

#include "support/InputFile.h"

namespace streamlife::check {

unsigned jsonNestingDepth(llvm::StringRef Text, unsigned Limit) {
  unsigned Depth = 0, Deepest = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Deepest && (Deepest = Depth) > Limit)
        return Limit + 1;
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return Deepest;
}

llvm::Expected<llvm::json::Value> readJsonInput(const std::string &Path, std::size_t Limit) {
  std::string Text, Why;
  if (!readInputFile(Path, Limit, Text, Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "cannot read it: " + Why);
  if (jsonNestingDepth(Text) > MaxJsonNesting)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "nested more than " + std::to_string(MaxJsonNesting) +
                                       " levels deep");
  llvm::Expected<llvm::json::Value> Json = llvm::json::parse(Text);
  if (!Json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid JSON: " + llvm::toString(Json.takeError()));
  return Json;
}

} // namespace streamlife::check
