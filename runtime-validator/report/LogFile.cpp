//===- LogFile.cpp - the validator's output stream (log_path) --------------===//
#include "report/LogFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>

namespace streamlife {
namespace rt {
namespace {

// The library's constructor sets these before C++ globals of other files are
// guaranteed to be constructed, and its destructor still writes after the
// exit handlers destroyed function-local statics: a constant-initialized
// atomic, and statics that are never destroyed.
std::atomic<std::FILE *> Log{nullptr};

std::mutex &openLock() {
  static std::mutex *Lock = new std::mutex;
  return *Lock;
}

/// Set once, before any thread writes.
std::string &fileName() {
  static std::string *Name = new std::string;
  return *Name;
}

/// The file, or stderr with one line saying why not.
std::FILE *openLogFile(const std::string &Name) {
  // O_NONBLOCK: opening a FIFO for writing must not wait for a reader; it is
  // refused below anyway.
  int Fd = open(Name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                0644);
  std::string Why;
  struct stat St;
  if (Fd < 0)
    Why = errno == ELOOP ? "it is a symbolic link" : std::strerror(errno);
  else if (fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode))
    Why = "it is not a regular file";
  std::FILE *F = nullptr;
  if (Why.empty()) {
    fcntl(Fd, F_SETFL, fcntl(Fd, F_GETFL) & ~O_NONBLOCK);
    F = fdopen(Fd, "w");
    if (!F)
      Why = std::strerror(errno);
  }
  if (!F) {
    if (Fd >= 0)
      close(Fd);
    std::fprintf(stderr,
                 "streamlife: error: cannot write the log '%s': %s; writing to standard error\n",
                 Name.c_str(), Why.c_str());
    return stderr;
  }
  // Whole lines at once: a finding is on disk as soon as it is printed, even
  // if the program then crashes.
  setvbuf(F, nullptr, _IOLBF, 0);
  return F;
}

} // namespace

std::FILE *validatorLog() {
  if (std::FILE *F = Log.load(std::memory_order_acquire))
    return F;
  if (fileName().empty())
    return stderr;
  std::lock_guard<std::mutex> Guard(openLock());
  if (std::FILE *F = Log.load(std::memory_order_acquire))
    return F;
  std::FILE *F = openLogFile(fileName());
  Log.store(F, std::memory_order_release);
  return F;
}

std::string logFileName(const std::string &LogPath, int Pid) {
  if (LogPath.empty() || LogPath == "stderr" || LogPath == "stdout")
    return "";
  std::string Path = LogPath;
  if (Path[0] != '/') {
    char Cwd[PATH_MAX];
    if (getcwd(Cwd, sizeof(Cwd)))
      Path = std::string(Cwd) + "/" + Path;
  }
  return Path + "." + std::to_string(Pid);
}

void setValidatorLog(const std::string &LogPath) {
  if (LogPath == "stdout")
    Log.store(stdout, std::memory_order_release);
  else
    fileName() = logFileName(LogPath, getpid());
}

} // namespace rt
} // namespace streamlife
