//===- ProcessTally.cpp - findings per process, for `streamlife run` ------===//
#include "ProcessTally.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <utility>
#include <vector>

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

/// 16 hex digits that differ between program images: the kernel's random
/// bytes for this exec (AT_RANDOM), else the time this was first asked.
std::string imageId() {
  // Never destroyed: the validator writes its report from an exit handler, which
  // can run after function-local statics first used mid-run are destroyed.
  static const std::string &Id = *new std::string([] {
    unsigned long long Bits = 0;
    if (const void *Random = reinterpret_cast<const void *>(getauxval(AT_RANDOM)))
      std::memcpy(&Bits, Random, sizeof(Bits));
    else
      Bits = static_cast<unsigned long long>(time(nullptr)) ^
             (static_cast<unsigned long long>(getpid()) << 32);
    char Text[17];
    std::snprintf(Text, sizeof(Text), "%016llx", Bits);
    return std::string(Text);
  }());
  return Id;
}

/// The tallies named by $STREAMLIFE_TALLY, innermost launcher first.
std::vector<std::string> tallyPaths() {
  std::vector<std::string> Paths;
  const char *List = std::getenv(TallyEnvironmentVariable);
  if (!List)
    return Paths;
  std::string Text = List;
  for (std::size_t Start = 0; Start <= Text.size();) {
    std::size_t End = Text.find(':', Start);
    if (End == std::string::npos)
      End = Text.size();
    if (End > Start)
      Paths.push_back(Text.substr(Start, End - Start));
    Start = End + 1;
  }
  return Paths;
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
  P.Image = imageId();
  P.Findings = Findings;
  P.Rank = rankFromEnvironment();
  P.Command = commandName();
  return P;
}

bool appendToTally(const ProcessCount &P) {
  std::string Line = std::to_string(P.Pid) + "\t" + field(P.Image) + "\t" +
                     std::to_string(P.Findings) + "\t" + field(P.Rank) + "\t" + field(P.Command) +
                     "\n";
  bool Ok = true;
  for (const std::string &Path : tallyPaths()) {
    int Fd = ::open(Path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (Fd < 0) {
      Ok &= errno == ENOENT; // a launcher that is gone counts nothing any more
      continue;
    }
    // One write of a short line to an O_APPEND file: lines of concurrent
    // processes never interleave.
    ssize_t N;
    while ((N = ::write(Fd, Line.data(), Line.size())) < 0 && errno == EINTR) {
    }
    Ok &= N == static_cast<ssize_t>(Line.size());
    ::close(Fd);
  }
  return Ok;
}

std::string createTallyFile(const std::string &Dir, std::string &Error) {
  std::string Pattern = Dir + "/streamlife-tally.XXXXXX";
  int Fd = mkostemp(Pattern.data(), O_CLOEXEC);
  if (Fd < 0) {
    Error = std::strerror(errno);
    return {};
  }
  // Room for the run's lines, reserved now: appends into it cannot fail with
  // ENOSPC later, when the folder has filled up. (KEEP_SIZE: the file stays
  // empty to readers.)
  constexpr off_t Reserved = 1 << 20;
  int Rc = fallocate(Fd, FALLOC_FL_KEEP_SIZE, 0, Reserved);
  if (Rc != 0 && errno != EOPNOTSUPP && errno != ENOSYS) {
    Error = std::strerror(errno);
    ::close(Fd);
    ::unlink(Pattern.c_str());
    return {};
  }
  ::close(Fd);
  return Pattern;
}

std::string tallyList(const std::string &Path, const char *Inherited) {
  if (!Inherited || !*Inherited)
    return Path;
  return Path + ":" + Inherited;
}

bool claimWarning(const std::string &Text) {
  std::vector<std::string> Paths = tallyPaths();
  if (Paths.empty())
    return true;
  // The innermost launcher's tree is the one whose processes would repeat it.
  int Fd = ::open(Paths.front().c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
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
  std::map<std::pair<int, std::string>, std::size_t> Index;
  std::FILE *File = std::fopen(Path.c_str(), "re");
  if (!File)
    return Result;
  char Line[1024];
  while (std::fgets(Line, sizeof(Line), File)) {
    std::string Text(Line);
    if (Text.empty() || Text.back() != '\n')
      continue; // a torn or overlong line
    Text.pop_back();
    // pid, image, findings, rank: up to a tab each; the command is the rest.
    std::string Parts[5];
    std::size_t Start = 0;
    bool Complete = true;
    for (int I = 0; I < 4 && Complete; ++I) {
      std::size_t Tab = Text.find('\t', Start);
      Complete = Tab != std::string::npos;
      if (Complete) {
        Parts[I] = Text.substr(Start, Tab - Start);
        Start = Tab + 1;
      }
    }
    if (!Complete)
      continue;
    Parts[4] = Text.substr(Start);
    char *End = nullptr;
    long Pid = std::strtol(Parts[0].c_str(), &End, 10);
    if (*End || Pid <= 0)
      continue;
    unsigned long Findings = std::strtoul(Parts[2].c_str(), &End, 10);
    if (*End || Parts[2].empty())
      continue;
    ProcessCount P{static_cast<int>(Pid), Parts[1], Findings, Parts[3], Parts[4]};
    auto [It, Inserted] = Index.emplace(std::make_pair(P.Pid, P.Image), Result.size());
    if (Inserted)
      Result.push_back(P);
    else
      Result[It->second] = P;
  }
  std::fclose(File);
  return Result;
}

} // namespace streamlife
