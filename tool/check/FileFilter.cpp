//===- FileFilter.cpp - --files / --exclude -------------------------------===//
#include "FileFilter.h"

namespace streamlife::check {

FileFilter::FileFilter(const CheckOptions &Options) {
  if (Options.FilesRegex)
    Include.emplace(*Options.FilesRegex);
  if (Options.ExcludeRegex)
    Exclude.emplace(*Options.ExcludeRegex);
}

bool FileFilter::accepts(llvm::StringRef AbsolutePath) const {
  if (Include && !Include->match(AbsolutePath))
    return false;
  return !(Exclude && Exclude->match(AbsolutePath));
}

} // namespace streamlife::check
