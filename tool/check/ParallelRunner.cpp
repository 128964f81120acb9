//===- ParallelRunner.cpp - check many files at once ----------------------===//
//
// Why worker processes, not threads. Clang's tooling can parse in several
// threads when each has its own CompilerInstance, but three things in this
// executable are process-wide:
//  - checks/clang/TranslationUnitCache.cpp caches the analysis of the
//    current translation unit in one static object keyed by its ASTContext
//    (read in the source, not a guess): two translation units analysed at the same
//    time in two threads would clear each other's cache while the other
//    still holds references into it;
//  - clang::tooling::ClangTool changes the working directory of the file
//    system it is given to each command's "directory"; over
//    vfs::getRealFileSystem() that is chdir(), shared by every thread;
//  - a crash in a check (a null CFG edge in someone's code) would take every
//    other file of the run with it; the issue asks that a bad entry fail
//    alone.
// A forked worker per file has none of these problems, costs a fork() of a
// process that has loaded only the compile database (about a millisecond;
// parsing a file takes a second or more), and starts with no state from
// other files. Peak memory is the sum of the files in flight, as with
// threads. The worker sends its FileResult back as JSON over a pipe
// (FileResultCodec) and exits without running destructors.
//
//===----------------------------------------------------------------------===//
#include "ParallelRunner.h"

#include "CheckRunner.h"
#include "FileResultCodec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace streamlife::check {
namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  pid_t Pid = -1;
  int ReadFd = -1;
  size_t FileIndex = 0;
  std::string Received;
  Clock::time_point Started;
};

bool writeAll(int Fd, llvm::StringRef Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    Data = Data.drop_front(N);
  }
  return true;
}

/// In the child: check one file, send the result, leave.
[[noreturn]] void runWorker(const clang::tooling::CompilationDatabase &Database,
                            const std::string &File, int WriteFd,
                            llvm::ArrayRef<std::string> ParentsFiles) {
  // The worker inherits the parent's list of files to remove on a signal
  // (the -o temporary): a crash here would go through LLVM's handler and
  // delete the parent's report, whose final rename would then fail.
  for (const std::string &Path : ParentsFiles)
    llvm::sys::DontRemoveFileOnSignal(Path);
  // Lets the tests crash a worker (there is no input known to crash the
  // checks, and there should not be): a file whose path contains this text
  // takes its worker down with a null write, through the same signal
  // handlers as a bug in a check would.
  if (const char *CrashOn = std::getenv("STREAMLIFE_TEST_CRASH_WORKER_ON"))
    if (*CrashOn && llvm::StringRef(File).contains(CrashOn)) {
      llvm::errs().flush();
      *static_cast<volatile int *>(nullptr) = 1;
    }
  FileResult Result = checkFile(Database, File);
  bool Sent = writeAll(WriteFd, encodeFileResult(Result));
  // Diagnostics a check printed itself must not be lost with _exit.
  llvm::errs().flush();
  ::_exit(Sent ? 0 : 3);
}

std::string describeExit(int Status) {
  if (WIFSIGNALED(Status)) {
    int Signal = WTERMSIG(Status);
    return "the checker crashed on it (signal " + std::to_string(Signal) + ", " +
           ::strsignal(Signal) + ")";
  }
  if (WIFEXITED(Status))
    return "the checker's worker exited with status " +
           std::to_string(WEXITSTATUS(Status)) + " without a result";
  return "the checker's worker ended without a result";
}

class ProcessPool {
public:
  ProcessPool(const clang::tooling::CompilationDatabase &Database,
              llvm::ArrayRef<std::string> Files, const ParallelSettings &Settings)
      : Database(Database), Files(Files), Settings(Settings), Results(Files.size()) {}

  std::vector<FileResult> run() {
    size_t Next = 0;
    while (Next < Files.size() || !Running.empty()) {
      while (Next < Files.size() && Running.size() < Settings.Jobs) {
        if (!spawn(Next)) {
          // No process to be had (fork failed): check it here, alone.
          Clock::time_point Start = Clock::now();
          FileResult Result = checkFile(Database, Files[Next]);
          Result.Seconds = secondsSince(Start);
          finish(Next, std::move(Result));
        }
        ++Next;
      }
      if (!Running.empty())
        pollOnce();
    }
    return std::move(Results);
  }

private:
  static double secondsSince(Clock::time_point Start) {
    return std::chrono::duration<double>(Clock::now() - Start).count();
  }

  bool spawn(size_t Index) {
    int Fds[2];
    if (::pipe(Fds) != 0)
      return false;
    // Anything buffered would be written twice, once by the child.
    llvm::outs().flush();
    llvm::errs().flush();
    pid_t Pid = ::fork();
    if (Pid < 0) {
      ::close(Fds[0]);
      ::close(Fds[1]);
      return false;
    }
    if (Pid == 0) {
      ::close(Fds[0]);
      for (const Worker &Other : Running)
        ::close(Other.ReadFd);
      runWorker(Database, Files[Index], Fds[1], Settings.ParentsFiles);
    }
    ::close(Fds[1]);
    Worker W;
    W.Pid = Pid;
    W.ReadFd = Fds[0];
    W.FileIndex = Index;
    W.Started = Clock::now();
    Running.push_back(std::move(W));
    return true;
  }

  void pollOnce() {
    std::vector<pollfd> Polled;
    for (const Worker &W : Running)
      Polled.push_back({W.ReadFd, POLLIN, 0});
    int Ready = ::poll(Polled.data(), Polled.size(), /*timeout ms=*/-1);
    if (Ready < 0)
      return; // EINTR: poll again
    // Walk backwards so that erasing a finished worker keeps indices valid.
    for (size_t I = Polled.size(); I-- > 0;) {
      if (!(Polled[I].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      Worker &W = Running[I];
      char Buffer[1 << 16];
      ssize_t N = ::read(W.ReadFd, Buffer, sizeof(Buffer));
      if (N < 0 && errno == EINTR)
        continue;
      if (N > 0) {
        W.Received.append(Buffer, N);
        continue;
      }
      // End of the stream: the worker is done, one way or another.
      ::close(W.ReadFd);
      int Status = 0;
      while (::waitpid(W.Pid, &Status, 0) < 0 && errno == EINTR) {
      }
      std::optional<FileResult> Result;
      if (WIFEXITED(Status) && WEXITSTATUS(Status) == 0)
        Result = decodeFileResult(W.Received);
      if (!Result) {
        Result.emplace();
        Result->Failure = describeExit(Status);
      }
      Result->Path = Files[W.FileIndex];
      Result->Seconds = secondsSince(W.Started);
      size_t Index = W.FileIndex;
      Running.erase(Running.begin() + I);
      finish(Index, std::move(*Result));
    }
  }

  void finish(size_t Index, FileResult Result) {
    Results[Index] = std::move(Result);
    if (Settings.OnFileDone)
      Settings.OnFileDone(Results[Index]);
  }

  const clang::tooling::CompilationDatabase &Database;
  llvm::ArrayRef<std::string> Files;
  const ParallelSettings &Settings;
  std::vector<FileResult> Results;
  std::vector<Worker> Running;
};

} // namespace

unsigned defaultJobCount() {
  // Honours the CPU affinity mask (taskset, container CPU sets).
  unsigned N = llvm::hardware_concurrency().compute_thread_count();
  return N ? N : 1;
}

std::string repeatedFindingKey(const Diagnostic &Finding) {
  return Finding.CheckName + '\n' + Finding.Location.Path + '\n' +
         std::to_string(Finding.Location.Line) + ':' + std::to_string(Finding.Location.Column) +
         '\n' + Finding.Message;
}

void dropRepeatedHeaderFindings(CheckReport &Report) {
  llvm::StringSet<> Seen;
  for (FileResult &File : Report.Files) {
    llvm::erase_if(File.Findings, [&](const Diagnostic &Finding) {
      return !Seen.insert(repeatedFindingKey(Finding)).second;
    });
  }
}

CheckReport runChecksInParallel(const clang::tooling::CompilationDatabase &Database,
                                llvm::ArrayRef<std::string> Files,
                                const ParallelSettings &Settings) {
  CheckReport Report;
  Report.EnabledChecks = enabledChecks();
  if (Files.size() == 1) {
    // Nothing to overlap: check in this process, where a crash keeps its
    // stack trace on the terminal as before.
    Clock::time_point Start = Clock::now();
    FileResult Result = checkFile(Database, Files.front());
    Result.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
    if (Settings.OnFileDone)
      Settings.OnFileDone(Result);
    Report.Files.push_back(std::move(Result));
  } else {
    ParallelSettings Effective = Settings;
    Effective.Jobs = std::max(1u, Settings.Jobs);
    Report.Files = ProcessPool(Database, Files, Effective).run();
  }
  for (const FileResult &File : Report.Files)
    for (const std::string &Message : File.ConfigurationErrors)
      if (!llvm::is_contained(Report.ConfigurationErrors, Message))
        Report.ConfigurationErrors.push_back(Message);
  dropRepeatedHeaderFindings(Report);
  return Report;
}

} // namespace streamlife::check
