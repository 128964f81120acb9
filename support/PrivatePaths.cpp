//===- PrivatePaths.cpp - folders and files only this user can change -----===//
#include "PrivatePaths.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace streamlife {
namespace {

std::string modeText(mode_t Mode) {
  char Text[8];
  std::snprintf(Text, sizeof(Text), "%04o", static_cast<unsigned>(Mode & 07777));
  return Text;
}

std::string quoted(const std::string &Path) { return "'" + Path + "'"; }

/// The group of User's own name with no other member (user private groups,
/// where umask 002 leaves group write on): its write bit lets nobody else in.
bool isPrivateGroupOf(gid_t Group, uid_t User) {
  struct passwd Pw, *P = nullptr;
  std::vector<char> PwText(16384);
  if (getpwuid_r(User, &Pw, PwText.data(), PwText.size(), &P) != 0 || !P || P->pw_gid != Group)
    return false;
  struct group Gr, *G = nullptr;
  std::vector<char> GrText(65536);
  if (getgrgid_r(Group, &Gr, GrText.data(), GrText.size(), &G) != 0 || !G ||
      std::strcmp(G->gr_name, P->pw_name) != 0)
    return false;
  for (char **Member = G->gr_mem; *Member; ++Member)
    if (std::strcmp(*Member, P->pw_name) != 0)
      return false;
  return true;
}

/// "" when nobody but St's owner can write it (a sticky folder only lets
/// others add entries of their own, so it passes when AllowSticky).
std::string whyOthersCanWrite(const struct stat &St, const std::string &Path, bool AllowSticky) {
  if (AllowSticky && S_ISDIR(St.st_mode) && (St.st_mode & S_ISVTX))
    return {};
  if (St.st_mode & S_IWOTH)
    return quoted(Path) + " is writable by everyone (mode " + modeText(St.st_mode) + ")";
  if ((St.st_mode & S_IWGRP) && !isPrivateGroupOf(St.st_gid, St.st_uid))
    return quoted(Path) + " is writable by its group (mode " + modeText(St.st_mode) + ", gid " +
           std::to_string(St.st_gid) + ")";
  return {};
}

std::string absolute(const std::string &Path) {
  if (!Path.empty() && Path[0] == '/')
    return Path;
  char Cwd[PATH_MAX];
  if (!getcwd(Cwd, sizeof(Cwd)))
    return Path;
  return std::string(Cwd) + "/" + Path;
}

/// "/", "/a", "/a/b" for "/a/b/c": the folders above Path.
std::vector<std::string> foldersAbove(const std::string &Path) {
  std::vector<std::string> Result = {"/"};
  for (std::size_t At = Path.find('/', 1); At != std::string::npos; At = Path.find('/', At + 1))
    if (At + 1 < Path.size())
      Result.push_back(Path.substr(0, At));
  return Result;
}

/// Every folder above Path, as written and as resolved, is owned by root or
/// one of Owners and writable by nobody else (sticky allowed).
std::string whyFoldersAboveAreUnsafe(const std::string &Path, uid_t OwnerA, uid_t OwnerB) {
  std::vector<std::string> Folders = foldersAbove(absolute(Path));
  if (char *Resolved = realpath(Path.c_str(), nullptr)) {
    for (const std::string &F : foldersAbove(Resolved))
      Folders.push_back(F);
    std::free(Resolved);
  }
  for (const std::string &Folder : Folders) {
    struct stat St;
    if (stat(Folder.c_str(), &St) != 0)
      return "cannot inspect " + quoted(Folder) + ": " + std::strerror(errno);
    if (St.st_uid != 0 && St.st_uid != OwnerA && St.st_uid != OwnerB)
      return quoted(Folder) + " above it is owned by uid " + std::to_string(St.st_uid);
    if (std::string Why = whyOthersCanWrite(St, Folder, /*AllowSticky=*/true); !Why.empty())
      return Why;
  }
  return {};
}

} // namespace

std::string whyNotPrivateDirectory(const std::string &Dir) {
  uid_t Me = geteuid();
  struct stat St;
  if (stat(Dir.c_str(), &St) != 0)
    return "cannot inspect " + quoted(Dir) + ": " + std::strerror(errno);
  if (!S_ISDIR(St.st_mode))
    return quoted(Dir) + " is not a directory";
  if (St.st_uid != Me)
    return quoted(Dir) + " is owned by uid " + std::to_string(St.st_uid) + ", not by this user (uid " +
           std::to_string(Me) + ")";
  if (std::string Why = whyOthersCanWrite(St, Dir, /*AllowSticky=*/false); !Why.empty())
    return Why;
  return whyFoldersAboveAreUnsafe(Dir, Me, Me);
}

bool makePrivateDirectory(const std::string &Dir, std::string &Error) {
  std::string Path = absolute(Dir);
  std::vector<std::string> Folders = foldersAbove(Path);
  Folders.push_back(Path);
  for (const std::string &Folder : Folders)
    if (mkdir(Folder.c_str(), 0700) != 0 && errno != EEXIST) {
      Error = "cannot create " + quoted(Folder) + ": " + std::strerror(errno);
      return false;
    }
  Error = whyNotPrivateDirectory(Path);
  return Error.empty();
}

int openPrivateFile(const std::string &Path, std::string &Error, bool *Missing) {
  if (Missing)
    *Missing = false;
  // O_NONBLOCK: a FIFO planted under the name must not hang the open.
  int Fd = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0) {
    int Err = errno;
    if (Err == ENOENT && Missing)
      *Missing = true;
    Error = Err == ELOOP ? quoted(Path) + " is a symbolic link"
                         : "cannot open " + quoted(Path) + ": " + std::strerror(Err);
    return -1;
  }
  struct stat St;
  uid_t Me = geteuid();
  if (fstat(Fd, &St) != 0)
    Error = "cannot inspect " + quoted(Path) + ": " + std::strerror(errno);
  else if (!S_ISREG(St.st_mode))
    Error = quoted(Path) + " is not a regular file";
  else if (St.st_uid != Me)
    Error = quoted(Path) + " is owned by uid " + std::to_string(St.st_uid) +
            ", not by this user (uid " + std::to_string(Me) + ")";
  else
    Error = whyOthersCanWrite(St, Path, /*AllowSticky=*/false);
  if (!Error.empty()) {
    ::close(Fd);
    return -1;
  }
  return Fd;
}

std::string whyNotTrustedLike(const std::string &Path, unsigned Owner) {
  uid_t Me = geteuid();
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return "cannot inspect " + quoted(Path) + ": " + std::strerror(errno);
  if (St.st_uid != 0 && St.st_uid != Me && St.st_uid != Owner)
    return quoted(Path) + " is owned by uid " + std::to_string(St.st_uid);
  if (std::string Why = whyOthersCanWrite(St, Path, /*AllowSticky=*/false); !Why.empty())
    return Why;
  return whyFoldersAboveAreUnsafe(Path, Me, static_cast<uid_t>(Owner));
}

} // namespace streamlife
