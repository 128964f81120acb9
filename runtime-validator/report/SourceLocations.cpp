//===- SourceLocations.cpp - file:line from llvm-symbolizer or addr2line ---===//
#include "report/SourceLocations.h"

#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

extern char **environ;

namespace streamlife {
namespace rt {
namespace {

/// A symbolizer that does not answer in this time is killed: a report must
/// not hang on a module with enormous debug info.
constexpr int TimeLimitMs = 10000;

bool isExecutableFile(const std::string &Path) {
  struct stat St;
  return stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode) && access(Path.c_str(), X_OK) == 0;
}

std::string searchPath(const std::string &Name) {
  if (Name.find('/') != std::string::npos)
    return isExecutableFile(Name) ? Name : std::string();
  const char *Path = std::getenv("PATH");
  std::string List = Path ? Path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t Start = 0;
  while (Start <= List.size()) {
    std::size_t End = List.find(':', Start);
    if (End == std::string::npos)
      End = List.size();
    std::string Dir = List.substr(Start, End - Start);
    std::string Candidate = (Dir.empty() ? std::string(".") : Dir) + "/" + Name;
    if (isExecutableFile(Candidate))
      return Candidate;
    Start = End + 1;
  }
  return "";
}

bool isAddr2Line(const std::string &Tool) {
  std::size_t Slash = Tool.rfind('/');
  return Tool.find("addr2line", Slash == std::string::npos ? 0 : Slash) != std::string::npos;
}

/// The address the symbolizer expects: an ET_EXEC executable is linked at its
/// load address, so its addresses are absolute; a shared object or PIE
/// executable is linked at 0, so they are offsets from the load base.
std::uintptr_t linkTimeAddress(const CodeAddress &A) {
  int Fd = open(A.Module.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return A.ModuleOffset;
  unsigned char Header[EI_NIDENT + 2] = {};
  bool Exec = pread(Fd, Header, sizeof(Header), 0) == static_cast<ssize_t>(sizeof(Header)) &&
              std::memcmp(Header, ELFMAG, SELFMAG) == 0 &&
              (Header[EI_NIDENT] | Header[EI_NIDENT + 1] << 8) == ET_EXEC;
  close(Fd);
  return Exec ? A.Absolute : A.ModuleOffset;
}

/// The environment the symbolizer runs in: ours without LD_PRELOAD, so that
/// the validator is not loaded into it.
std::vector<char *> childEnvironment() {
  std::vector<char *> Env;
  for (char **E = environ; E && *E; ++E)
    if (std::strncmp(*E, "LD_PRELOAD=", 11) != 0)
      Env.push_back(*E);
  Env.push_back(nullptr);
  return Env;
}

long long nowMs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return static_cast<long long>(T.tv_sec) * 1000 + T.tv_nsec / 1000000;
}

/// Runs Argv and returns its standard output; empty on any failure.
std::string runTool(const std::vector<std::string> &Argv) {
  int Pipe[2];
  if (pipe2(Pipe, O_CLOEXEC) != 0)
    return "";
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], 1);
  posix_spawn_file_actions_addopen(&Actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  std::vector<char *> Env = childEnvironment();
  pid_t Child = 0;
  int Rc = posix_spawn(&Child, Args[0], &Actions, nullptr, Args.data(), Env.data());
  posix_spawn_file_actions_destroy(&Actions);
  close(Pipe[1]);
  if (Rc != 0) {
    close(Pipe[0]);
    return "";
  }
  std::string Out;
  bool TimedOut = false;
  long long Deadline = nowMs() + TimeLimitMs;
  for (;;) {
    long long Left = Deadline - nowMs();
    if (Left <= 0) {
      TimedOut = true;
      break;
    }
    pollfd P = {Pipe[0], POLLIN, 0};
    int Ready = poll(&P, 1, static_cast<int>(Left));
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready <= 0) {
      TimedOut = Ready == 0;
      break;
    }
    char Buf[4096];
    ssize_t N = read(Pipe[0], Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Out.append(Buf, static_cast<std::size_t>(N));
  }
  close(Pipe[0]);
  if (TimedOut)
    kill(Child, SIGKILL);
  // The program may reap children itself (a SIGCHLD handler, SIG_IGN): then
  // there is nothing left to wait for.
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
  }
  return TimedOut ? std::string() : Out;
}

std::vector<std::string> lines(const std::string &Text) {
  std::vector<std::string> Out;
  std::size_t Start = 0;
  while (Start < Text.size()) {
    std::size_t End = Text.find('\n', Start);
    if (End == std::string::npos)
      End = Text.size();
    Out.push_back(Text.substr(Start, End - Start));
    Start = End + 1;
  }
  return Out;
}

/// "/a/build/../src/f.cpp" as "/a/src/f.cpp": build systems put such paths in
/// the debug info. Lexical only (symbolic links are left alone).
std::string normalizePath(const std::string &Path) {
  if (Path.empty() || Path[0] != '/')
    return Path;
  std::vector<std::string> Parts;
  std::size_t Start = 1;
  while (Start <= Path.size()) {
    std::size_t End = Path.find('/', Start);
    if (End == std::string::npos)
      End = Path.size();
    std::string Part = Path.substr(Start, End - Start);
    if (Part == "..") {
      if (!Parts.empty())
        Parts.pop_back();
    } else if (!Part.empty() && Part != ".") {
      Parts.push_back(Part);
    }
    Start = End + 1;
  }
  std::string Out;
  for (const std::string &Part : Parts)
    Out += "/" + Part;
  return Out.empty() ? "/" : Out;
}

/// "file:line[:column]" from one answer; "" for the tools' "don't know"
/// answers (??:0, ??:?, file:0).
std::string cleanLocation(std::string Location) {
  if (std::size_t Paren = Location.find(" ("); Paren != std::string::npos)
    Location.resize(Paren); // addr2line's " (discriminator N)"
  if (Location.empty() || Location.compare(0, 2, "??") == 0)
    return "";
  std::size_t Colon = Location.find(':');
  if (Colon == std::string::npos || Location.compare(Colon, 2, ":0") == 0 ||
      Location.compare(Colon, 2, ":?") == 0)
    return "";
  // llvm-symbolizer gives a column of 0 when it has none.
  if (Location.size() > 2 && Location.compare(Location.size() - 2, 2, ":0") == 0 &&
      Location.find(':', Colon + 1) != std::string::npos)
    Location.resize(Location.size() - 2);
  std::size_t FileEnd = Location.find(':');
  return normalizePath(Location.substr(0, FileEnd)) + Location.substr(FileEnd);
}

/// The locations of Addresses, all in one module, from one run of the tool.
/// A frame is named by the function its symbol says (the outermost one when
/// code was inlined into it), so its line is the outermost location too: the
/// line in that function, not one inside a helper inlined there. Both tools
/// print an address's inlined chain innermost first.
std::vector<std::string> locateInModule(const std::string &Tool, const std::string &Module,
                                        const std::vector<std::uintptr_t> &Addresses) {
  std::vector<std::string> Argv = {Tool};
  bool Addr2Line = isAddr2Line(Tool);
  if (Addr2Line) {
    // -a: each address on a line of its own before its chain, which
    // delimits the chains.
    Argv.insert(Argv.end(), {"-a", "-i", "-e", Module});
  } else {
    // No function names (the validator has its own); each chain ends with
    // an empty line.
    Argv.insert(Argv.end(), {"--obj=" + Module, "--functions=none", "--output-style=LLVM"});
  }
  for (std::uintptr_t A : Addresses) {
    char Hex[32];
    std::snprintf(Hex, sizeof(Hex), "0x%zx", static_cast<std::size_t>(A));
    Argv.push_back(Hex);
  }
  std::vector<std::string> Outermost;
  bool InChain = false;
  for (const std::string &Line : lines(runTool(Argv))) {
    bool Starts = Addr2Line ? Line.compare(0, 2, "0x") == 0 : !InChain && !Line.empty();
    if (Starts) {
      Outermost.emplace_back();
      InChain = true;
      if (Addr2Line)
        continue;
    }
    if (!Addr2Line && Line.empty()) {
      InChain = false;
      continue;
    }
    if (InChain && !Outermost.empty())
      Outermost.back() = cleanLocation(Line);
  }
  if (Outermost.size() != Addresses.size()) // a tool we do not understand
    return std::vector<std::string>(Addresses.size());
  return Outermost;
}

/// What each (module, offset) was found to be, so that a frame is asked for
/// once per process.
struct LocationCache {
  std::mutex Lock;
  std::map<std::pair<std::string, std::uintptr_t>, std::string> Known;
};

// Never destroyed: reports are still printed from the library's destructor,
// after the exit handlers destroyed function-local statics.
LocationCache &cache() {
  static LocationCache *C = new LocationCache;
  return *C;
}

} // namespace

std::string findSymbolizer(const std::string &Configured) {
  // Never destroyed (see cache()).
  static std::mutex *Lock = new std::mutex;
  static std::map<std::string, std::string> *Known = new std::map<std::string, std::string>;
  std::lock_guard<std::mutex> Guard(*Lock);
  auto It = Known->find(Configured);
  if (It != Known->end())
    return It->second;
  std::string Tool;
  if (!Configured.empty()) {
    Tool = searchPath(Configured);
  } else {
    Tool = searchPath("llvm-symbolizer");
    for (int Version = 30; Tool.empty() && Version >= 14; --Version)
      Tool = searchPath("llvm-symbolizer-" + std::to_string(Version));
    if (Tool.empty())
      Tool = searchPath("addr2line");
  }
  (*Known)[Configured] = Tool;
  return Tool;
}

std::vector<std::string> sourceLocations(const std::vector<CodeAddress> &Addresses,
                                         const std::string &Symbolizer) {
  std::vector<std::string> Out(Addresses.size());
  if (Symbolizer.empty())
    return Out;
  // What the cache does not know yet, grouped by module.
  std::map<std::string, std::vector<std::size_t>> Missing;
  {
    std::lock_guard<std::mutex> Guard(cache().Lock);
    for (std::size_t I = 0; I < Addresses.size(); ++I) {
      if (Addresses[I].Module.empty())
        continue;
      auto It = cache().Known.find({Addresses[I].Module, Addresses[I].ModuleOffset});
      if (It != cache().Known.end())
        Out[I] = It->second;
      else
        Missing[Addresses[I].Module].push_back(I);
    }
  }
  for (const auto &[Module, Indices] : Missing) {
    std::vector<std::uintptr_t> LinkTime;
    for (std::size_t I : Indices)
      LinkTime.push_back(linkTimeAddress(Addresses[I]));
    std::vector<std::string> Found = locateInModule(Symbolizer, Module, LinkTime);
    std::lock_guard<std::mutex> Guard(cache().Lock);
    for (std::size_t K = 0; K < Indices.size(); ++K) {
      Out[Indices[K]] = Found[K];
      cache().Known[{Module, Addresses[Indices[K]].ModuleOffset}] = Found[K];
    }
  }
  return Out;
}

} // namespace rt
} // namespace streamlife
