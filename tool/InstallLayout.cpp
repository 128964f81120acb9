//===- InstallLayout.cpp - where streamlife's own files are ---------------===//
#include "InstallLayout.h"

#include <climits>
#include <unistd.h>

#ifndef STREAMLIFE_BIN_TO_PKGLIBDIR
#define STREAMLIFE_BIN_TO_PKGLIBDIR "../lib/streamlife"
#endif

namespace streamlife {

std::string executableDirectory() {
  char Self[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
  if (N <= 0)
    return "";
  std::string Path(Self, static_cast<size_t>(N));
  return Path.substr(0, Path.rfind('/'));
}

std::string findSupportFile(const std::string &FileName) {
  std::string Dir = executableDirectory();
  if (Dir.empty())
    return FileName;
  std::string Installed = Dir + "/" STREAMLIFE_BIN_TO_PKGLIBDIR "/" + FileName;
  std::string BuildTree = Dir + "/../lib/" + FileName;
  for (const std::string &Candidate : {Installed, BuildTree})
    if (access(Candidate.c_str(), R_OK) == 0)
      return Candidate;
  return Installed;
}

} // namespace streamlife
