//===- TimelineTestSupport.h - files and lines for the timeline tests -*- C++ -*-===//
#ifndef STREAMLIFE_TEST_UNIT_TIMELINE_TIMELINETESTSUPPORT_H
#define STREAMLIFE_TEST_UNIT_TIMELINE_TIMELINETESTSUPPORT_H

#include <cstdlib>
#include <fstream>
#include <map>
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

/// The number after Key ("\"ts\":") in an event line; -1 when absent.
inline double field(const std::string &Line, const std::string &Key) {
  std::size_t At = Line.find(Key);
  return At == std::string::npos ? -1 : std::strtod(Line.c_str() + At + Key.size(), nullptr);
}

/// What test/check_trace_events.py says of flows, for the recorder's one-event
/// lines: every flow id has one start and one end, and each end lies inside a
/// complete event (X) of its own lane. One line per problem.
inline std::vector<std::string> arrowProblems(const std::string &Text) {
  using Lane = std::pair<int, int>;
  std::map<Lane, std::vector<std::pair<double, double>>> Slices;
  struct End {
    char Phase;
    Lane On;
    double Ts;
  };
  std::map<long, std::vector<End>> Flows;
  for (const std::string &L : lines(Text)) {
    if (L.compare(0, 7, "{\"ph\":\"") != 0 || L.size() < 9)
      continue;
    char Phase = L[7];
    Lane On{static_cast<int>(field(L, "\"pid\":")), static_cast<int>(field(L, "\"tid\":"))};
    double Ts = field(L, "\"ts\":");
    if (Phase == 'X')
      Slices[On].push_back({Ts, Ts + field(L, "\"dur\":")});
    else if (Phase == 's' || Phase == 'f')
      Flows[static_cast<long>(field(L, "\"id\":"))].push_back({Phase, On, Ts});
  }
  std::vector<std::string> Problems;
  for (const auto &[Id, Ends] : Flows) {
    int Starts = 0, Finishes = 0;
    for (const End &E : Ends) {
      (E.Phase == 's' ? Starts : Finishes) += 1;
      bool Inside = false;
      for (const auto &[From, To] : Slices[E.On])
        Inside |= From - 1e-6 <= E.Ts && E.Ts <= To + 1e-6;
      if (!Inside)
        Problems.push_back("flow " + std::to_string(Id) + " " + (E.Phase == 's' ? "start" : "end") +
                           " is inside no slice of its lane");
    }
    if (Starts != 1 || Finishes != 1)
      Problems.push_back("flow " + std::to_string(Id) + " has " + std::to_string(Starts) +
                         " starts and " + std::to_string(Finishes) + " ends");
  }
  return Problems;
}

} // namespace streamlife::rt::test

#endif
