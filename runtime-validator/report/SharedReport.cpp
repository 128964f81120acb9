//===- SharedReport.cpp - one JSON report for a whole process tree --------===//
#include "report/SharedReport.h"

#include "report/Json.h"
#include "support/AtomicFile.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>

namespace streamlife {
namespace rt {
namespace {

std::string header(const std::string &RunId) {
  return "{\"format\":\"streamlife-run-report\",\"version\":2,\"run\":\"" + jsonEscape(RunId) +
         "\",";
}

std::string withoutTrailingComma(std::string Line) {
  if (!Line.empty() && Line.back() == ',')
    Line.pop_back();
  return Line;
}

/// How the element lines of one program image start: a process that
/// exec()s keeps its pid, and its new image must add to what the old one
/// wrote, not replace it.
std::string partPrefix(const ReportPart &Part) {
  return "{\"pid\":" + std::to_string(Part.Pid) + ",\"image\":\"" + jsonEscape(Part.Image) + "\",";
}

/// Finding count of a processes line ...,"findings":N}.
unsigned long findingsOfProcessLine(const std::string &Line) {
  std::size_t At = Line.rfind("\"findings\":");
  return At == std::string::npos ? 0 : std::strtoul(Line.c_str() + At + 11, nullptr, 10);
}

struct Sections {
  std::vector<std::string> Findings, Notes, Processes;
};

/// Parses a file this code wrote for the same run; false for anything else.
bool parseOwnFormat(const std::string &Text, const std::string &RunId, Sections &Out) {
  std::vector<std::string> Lines;
  std::size_t Start = 0;
  while (Start < Text.size()) {
    std::size_t End = Text.find('\n', Start);
    if (End == std::string::npos)
      End = Text.size();
    Lines.push_back(Text.substr(Start, End - Start));
    Start = End + 1;
  }
  if (Lines.empty() || Lines[0] != header(RunId))
    return false;
  std::vector<std::string> *Current = nullptr;
  bool SawSummary = false;
  for (std::size_t I = 1; I < Lines.size(); ++I) {
    const std::string &L = Lines[I];
    if (L == "\"findings\":[")
      Current = &Out.Findings;
    else if (L == "\"notes\":[")
      Current = &Out.Notes;
    else if (L == "\"processes\":[")
      Current = &Out.Processes;
    else if (L == "],")
      Current = nullptr;
    else if (L.compare(0, 10, "\"summary\":") == 0)
      SawSummary = true;
    else if (Current)
      Current->push_back(withoutTrailingComma(L));
    else
      return false;
  }
  return SawSummary;
}

void appendSection(std::string &Out, const char *Name, const std::vector<std::string> &Lines) {
  Out += "\"";
  Out += Name;
  Out += "\":[\n";
  for (std::size_t I = 0; I < Lines.size(); ++I) {
    Out += Lines[I];
    Out += I + 1 < Lines.size() ? ",\n" : "\n";
  }
  Out += "],\n";
}

} // namespace

std::string currentRunId() {
  if (const char *Id = std::getenv(RunIdEnvironmentVariable); Id && *Id)
    return Id;
  auto Now = std::chrono::system_clock::now().time_since_epoch();
  std::string Id = std::to_string(getpid()) + "-" +
                   std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(Now).count());
  setenv(RunIdEnvironmentVariable, Id.c_str(), 1);
  return Id;
}

std::string mergedReportText(const std::string &Existing, const ReportPart &Part) {
  Sections Old;
  if (!parseOwnFormat(Existing, Part.RunId, Old))
    Old = Sections();
  Sections New;
  std::string Own = partPrefix(Part);
  auto isOwn = [&](const std::string &Line) { return Line.compare(0, Own.size(), Own) == 0; };
  for (const std::string &L : Old.Findings)
    if (!isOwn(L))
      New.Findings.push_back(L);
  std::string Prefix = Own + "\"rank\":\"" + jsonEscape(Part.Rank) + "\",";
  for (const std::string &F : Part.FindingObjects)
    if (F.size() > 2 && F.front() == '{')
      New.Findings.push_back(Prefix + F.substr(1));
  std::set<std::string> SeenNotes;
  for (const std::string &N : Old.Notes)
    if (SeenNotes.insert(N).second)
      New.Notes.push_back(N);
  for (const std::string &N : Part.Notes) {
    std::string Quoted = "\"" + jsonEscape(N) + "\"";
    if (SeenNotes.insert(Quoted).second)
      New.Notes.push_back(Quoted);
  }
  unsigned long Total = 0;
  for (const std::string &L : Old.Processes)
    if (!isOwn(L)) {
      New.Processes.push_back(L);
      Total += findingsOfProcessLine(L);
    }
  New.Processes.push_back(Own + "\"rank\":\"" + jsonEscape(Part.Rank) + "\",\"command\":\"" +
                          jsonEscape(Part.Command) + "\",\"findings\":" +
                          std::to_string(Part.FindingObjects.size()) + "}");
  Total += Part.FindingObjects.size();

  std::string Out = header(Part.RunId) + "\n";
  appendSection(Out, "findings", New.Findings);
  appendSection(Out, "notes", New.Notes);
  appendSection(Out, "processes", New.Processes);
  Out += "\"summary\":{\"findings\":" + std::to_string(Total) +
         ",\"processes\":" + std::to_string(New.Processes.size()) + "}}\n";
  return Out;
}

bool mergeIntoReport(const std::string &Path, const ReportPart &Part, std::string &Error) {
  if (std::string Why = whyNotReplaceable(Path); !Why.empty()) {
    Error = Why;
    return false;
  }
  // Serialize the read-merge-rename of all processes writing into this folder.
  std::size_t Slash = Path.rfind('/');
  std::string Dir = Slash == std::string::npos ? "." : Slash == 0 ? "/" : Path.substr(0, Slash);
  int DirFd = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (DirFd < 0) {
    Error = std::strerror(errno);
    return false;
  }
  while (flock(DirFd, LOCK_EX) != 0 && errno == EINTR) {
  }
  std::string Existing;
  int Fd = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  struct stat St;
  if (Fd >= 0 && fstat(Fd, &St) == 0 && S_ISREG(St.st_mode)) {
    char Buffer[65536];
    ssize_t N;
    while ((N = ::read(Fd, Buffer, sizeof(Buffer))) > 0)
      Existing.append(Buffer, static_cast<std::size_t>(N));
  }
  if (Fd >= 0)
    ::close(Fd);
  bool Ok = writeFileAtomically(Path, mergedReportText(Existing, Part), Error);
  flock(DirFd, LOCK_UN);
  ::close(DirFd);
  return Ok;
}

} // namespace rt
} // namespace streamlife
