//===- ProcessTally.cpp - findings per process, for `streamlife run` ------===//
#include "ProcessTally.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace streamlife {
namespace {

std::string rankFromEnvironment() {
  for (const char *Name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char *Value = std::getenv(Name); Value && *Value)
      return Value;
  return {};
}

std::string commandName() {
  std::string Name;
  if (std::FILE *File = std::fopen("/proc/self/cmdline", "re")) {
    int C;
    while ((C = std::fgetc(File)) != EOF && C != 0)
      Name += static_cast<char>(C);
    std::fclose(File);
  }
  std::size_t Slash = Name.rfind('/');
  if (Slash != std::string::npos)
    Name = Name.substr(Slash + 1);
  return Name;
}

/// Tabs and newlines would break the line format.
std::string field(std::string Text) {
  for (char &C : Text)
    if (C == '\t' || C == '\n' || C == '\r')
      C = ' ';
  if (Text.size() > 200)
    Text.resize(200);
  return Text;
}

} // namespace

ProcessCount describeThisProcess(unsigned long Findings) {
  ProcessCount P;
  P.Pid = static_cast<int>(getpid());
  P.Findings = Findings;
  P.Rank = rankFromEnvironment();
  P.Command = commandName();
  return P;
}

void appendToTally(const ProcessCount &P) {
  const char *Path = std::getenv(TallyEnvironmentVariable);
  if (!Path || !*Path)
    return;
  int Fd = ::open(Path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (Fd < 0)
    return;
  std::string Line = std::to_string(P.Pid) + "\t" + std::to_string(P.Findings) + "\t" +
                     field(P.Rank) + "\t" + field(P.Command) + "\n";
  // One write of a short line to an O_APPEND file: lines of concurrent
  // processes never interleave.
  ssize_t Ignored = ::write(Fd, Line.data(), Line.size());
  (void)Ignored;
  ::close(Fd);
}

bool claimWarning(const std::string &Text) {
  const char *Path = std::getenv(TallyEnvironmentVariable);
  if (!Path || !*Path)
    return true;
  int Fd = ::open(Path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (Fd < 0)
    return true;
  std::string Line = "0\twarning\t\t" + field(Text) + "\n";
  while (flock(Fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  std::string Existing;
  char Buffer[4096];
  ssize_t N;
  while ((N = ::pread(Fd, Buffer, sizeof(Buffer), static_cast<off_t>(Existing.size()))) > 0)
    Existing.append(Buffer, static_cast<std::size_t>(N));
  bool First = ("\n" + Existing).find("\n" + Line) == std::string::npos;
  if (First) {
    ssize_t Ignored = ::write(Fd, Line.data(), Line.size());
    (void)Ignored;
  }
  flock(Fd, LOCK_UN);
  ::close(Fd);
  return First;
}

std::vector<ProcessCount> readTally(const std::string &Path) {
  std::vector<ProcessCount> Result;
  std::map<int, std::size_t> Index;
  std::FILE *File = std::fopen(Path.c_str(), "re");
  if (!File)
    return Result;
  char Line[1024];
  while (std::fgets(Line, sizeof(Line), File)) {
    std::string Text(Line);
    if (Text.empty() || Text.back() != '\n')
      continue; // a torn or overlong line
    Text.pop_back();
    // pid, findings, rank: up to a tab each; the command is the rest.
    std::size_t T1 = Text.find('\t');
    std::size_t T2 = T1 == std::string::npos ? T1 : Text.find('\t', T1 + 1);
    std::size_t T3 = T2 == std::string::npos ? T2 : Text.find('\t', T2 + 1);
    if (T3 == std::string::npos)
      continue;
    std::string Parts[4] = {Text.substr(0, T1), Text.substr(T1 + 1, T2 - T1 - 1),
                            Text.substr(T2 + 1, T3 - T2 - 1), Text.substr(T3 + 1)};
    char *End = nullptr;
    long Pid = std::strtol(Parts[0].c_str(), &End, 10);
    if (*End || Pid <= 0)
      continue;
    unsigned long Findings = std::strtoul(Parts[1].c_str(), &End, 10);
    if (*End)
      continue;
    ProcessCount P{static_cast<int>(Pid), Findings, Parts[2], Parts[3]};
    auto [It, Inserted] = Index.emplace(P.Pid, Result.size());
    if (Inserted)
      Result.push_back(P);
    else
      Result[It->second] = P;
  }
  std::fclose(File);
  return Result;
}

} // namespace streamlife
