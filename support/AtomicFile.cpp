//===- AtomicFile.cpp - replace an output file safely and atomically ------===//
#include "AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace streamlife {
namespace {

std::string errnoText(int Err) { return std::strerror(Err); }

std::string directoryOf(const std::string &Path) {
  std::size_t Slash = Path.rfind('/');
  if (Slash == std::string::npos)
    return ".";
  if (Slash == 0)
    return "/";
  return Path.substr(0, Slash);
}

std::string baseNameOf(const std::string &Path) {
  std::size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

/// The process umask without changing it (umask() cannot be read without
/// setting it, which races with other threads creating files).
mode_t currentUmask() {
  if (std::FILE *Status = std::fopen("/proc/self/status", "re")) {
    char Line[256];
    unsigned Mask = 022;
    bool Found = false;
    while (std::fgets(Line, sizeof(Line), Status))
      if (std::sscanf(Line, "Umask: %o", &Mask) == 1) {
        Found = true;
        break;
      }
    std::fclose(Status);
    if (Found)
      return static_cast<mode_t>(Mask);
  }
  return 022;
}

/// Why the existing regular file St at Path may not be rewritten by a
/// rename over it, or "".
std::string whyNotRewritable(const std::string &Path, const struct stat &St) {
  if ((St.st_mode & 0222) == 0 || faccessat(AT_FDCWD, Path.c_str(), W_OK, AT_EACCESS) != 0)
    return "is read-only (make it writable to let it be replaced)";
  if (St.st_nlink > 1)
    return "has " + std::to_string(St.st_nlink) +
           " hard links, which a replacement would split (the other names would keep the old "
           "contents)";
  struct stat Folder;
  if (St.st_uid != geteuid() && stat(directoryOf(Path).c_str(), &Folder) == 0 &&
      (Folder.st_mode & S_ISVTX) && (Folder.st_mode & S_IWOTH))
    return "belongs to another user (uid " + std::to_string(St.st_uid) +
           ") in a shared folder; name a file of your own";
  return {};
}

} // namespace

std::string whyNotReplaceable(const std::string &Path) {
  if (Path.empty())
    return "empty file name";
  if (Path.back() == '/')
    return "is a directory";
  struct stat St;
  if (lstat(Path.c_str(), &St) != 0)
    return errno == ENOENT ? std::string() : errnoText(errno);
  if (S_ISREG(St.st_mode))
    return whyNotRewritable(Path, St);
  if (S_ISLNK(St.st_mode))
    return "is a symbolic link; name the file itself";
  if (S_ISDIR(St.st_mode))
    return "is a directory";
  if (S_ISFIFO(St.st_mode))
    return "is a FIFO, not a regular file";
  if (S_ISCHR(St.st_mode) || S_ISBLK(St.st_mode))
    return "is a device, not a regular file";
  if (S_ISSOCK(St.st_mode))
    return "is a socket, not a regular file";
  return "is not a regular file";
}

AtomicFile::~AtomicFile() { discard(); }

bool AtomicFile::open(const std::string &Path, std::string &Error) {
  discard();
  if (std::string Why = whyNotReplaceable(Path); !Why.empty()) {
    Error = Why;
    return false;
  }
  std::string Dir = directoryOf(Path);
  std::string Pattern = Dir + "/." + baseNameOf(Path) + ".XXXXXX";
  std::string Buffer = Pattern;
  // mkstemp opens with O_CREAT|O_EXCL (and we add O_CLOEXEC): a planted name
  // makes it try another, and it never follows a symlink.
  int NewFd = mkostemp(Buffer.data(), O_CLOEXEC);
  if (NewFd < 0) {
    int Err = errno;
    struct stat St;
    if (stat(Dir.c_str(), &St) != 0)
      Error = errnoText(errno);
    else if (!S_ISDIR(St.st_mode))
      Error = "'" + Dir + "' is not a directory";
    else
      Error = "cannot create a file in '" + Dir + "': " + errnoText(Err);
    return false;
  }
  // mkstemp gives 0600 and our own ids; a report is an ordinary file: the
  // replaced file's owner, group and mode, or what creat(0666) would have
  // given. The owner goes first: chown clears set-id bits.
  struct stat Old;
  bool Replacing = lstat(Path.c_str(), &Old) == 0 && S_ISREG(Old.st_mode);
  if (Replacing && (Old.st_uid != geteuid() || Old.st_gid != getegid()) &&
      fchown(NewFd, Old.st_uid, Old.st_gid) != 0) {
    int Err = errno;
    ::close(NewFd);
    ::unlink(Buffer.c_str());
    Error = "is owned by uid " + std::to_string(Old.st_uid) + " and gid " +
            std::to_string(Old.st_gid) + ", which a replacement written by this user cannot keep (" +
            errnoText(Err) + ")";
    return false;
  }
  mode_t Mode = Replacing ? (Old.st_mode & 07777) : (0666 & ~currentUmask());
  (void)fchmod(NewFd, Mode);
  Target = Path;
  Temp = Buffer;
  Fd = NewFd;
  return true;
}

bool AtomicFile::write(std::string_view Data, std::string &Error) {
  if (Fd < 0) {
    Error = "file not open";
    return false;
  }
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0) {
      if (errno == EINTR)
        continue;
      Error = errnoText(errno);
      return false;
    }
    Data.remove_prefix(static_cast<std::size_t>(N));
  }
  return true;
}

bool AtomicFile::commit(std::string &Error) {
  if (Fd < 0) {
    Error = "file not open";
    return false;
  }
  int CloseResult = ::close(Fd);
  Fd = -1;
  if (CloseResult != 0) {
    Error = errnoText(errno);
    discard();
    return false;
  }
  if (std::string Why = whyNotReplaceable(Target); !Why.empty()) {
    Error = Why;
    discard();
    return false;
  }
  if (std::rename(Temp.c_str(), Target.c_str()) != 0) {
    Error = errnoText(errno);
    discard();
    return false;
  }
  Temp.clear();
  return true;
}

void AtomicFile::discard() {
  if (Fd >= 0) {
    ::close(Fd);
    Fd = -1;
  }
  if (!Temp.empty()) {
    ::unlink(Temp.c_str());
    Temp.clear();
  }
}

bool writeFileAtomically(const std::string &Path, std::string_view Contents, std::string &Error) {
  AtomicFile File;
  return File.open(Path, Error) && File.write(Contents, Error) && File.commit(Error);
}

} // namespace streamlife
