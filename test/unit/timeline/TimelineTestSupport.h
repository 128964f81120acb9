//===- TimelineTestSupport.h - files and lines for the timeline tests -*- C++ -*-===//
#ifndef STREAMLIFE_TEST_UNIT_TIMELINE_TIMELINETESTSUPPORT_H
#define STREAMLIFE_TEST_UNIT_TIMELINE_TIMELINETESTSUPPORT_H

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace streamlife::rt::test {

/// A fresh folder under $TMPDIR, removed with its files at the end.
class ScratchDir {
public:
  ScratchDir() {
    std::string Pattern = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                          "/timeline-test.XXXXXX";
    Dir = mkdtemp(Pattern.data()) ? Pattern : "";
  }
  ~ScratchDir() {
    if (!Dir.empty())
      std::system(("rm -rf '" + Dir + "'").c_str());
  }
  std::string file(const std::string &Name) const { return Dir + "/" + Name; }

private:
  std::string Dir;
};

inline bool exists(const std::string &Path) { return access(Path.c_str(), F_OK) == 0; }

inline std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

inline std::vector<std::string> lines(const std::string &Text) {
  std::vector<std::string> Out;
  std::stringstream S(Text);
  for (std::string Line; std::getline(S, Line);)
    Out.push_back(Line);
  return Out;
}

inline std::size_t count(const std::string &Text, const std::string &What) {
  std::size_t N = 0;
  for (std::size_t At = Text.find(What); At != std::string::npos; At = Text.find(What, At + 1))
    ++N;
  return N;
}

} // namespace streamlife::rt::test

#endif
