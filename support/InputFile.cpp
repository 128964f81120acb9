//===- InputFile.cpp - read an input file whole, with bounds --------------===//
#include "InputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace streamlife {
namespace {

std::string whyNotRegular(mode_t Mode) {
  if (S_ISDIR(Mode))
    return "is a directory";
  if (S_ISFIFO(Mode))
    return "is a FIFO, not a regular file";
  if (S_ISCHR(Mode) || S_ISBLK(Mode))
    return "is a device, not a regular file";
  if (S_ISSOCK(Mode))
    return "is a socket, not a regular file";
  return "is not a regular file";
}

std::string megabytes(std::size_t Bytes) { return std::to_string((Bytes + MiB - 1) / MiB) + " MB"; }

} // namespace

bool readInputFile(const std::string &Path, std::size_t Limit, std::string &Text,
                   std::string &Error) {
  Text.clear();
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0) {
    Error = std::strerror(errno);
    return false;
  }
  struct stat St;
  if (fstat(Fd, &St) != 0) {
    Error = std::strerror(errno);
  } else if (!S_ISREG(St.st_mode)) {
    Error = whyNotRegular(St.st_mode);
  } else if (static_cast<unsigned long long>(St.st_size) > Limit) {
    Error = "is " + megabytes(static_cast<std::size_t>(St.st_size)) + ", more than the " +
            megabytes(Limit) + " such an input may have";
  } else {
    Error.clear();
    Text.reserve(static_cast<std::size_t>(St.st_size));
    char Buffer[65536];
    // The file may grow while it is read: never more than the limit.
    while (Error.empty()) {
      ssize_t N = ::read(Fd, Buffer, sizeof(Buffer));
      if (N < 0 && errno == EINTR)
        continue;
      if (N < 0)
        Error = std::strerror(errno);
      else if (N == 0)
        break;
      else if (Text.size() + static_cast<std::size_t>(N) > Limit)
        Error = "grew past the " + megabytes(Limit) + " such an input may have while it was read";
      else
        Text.append(Buffer, static_cast<std::size_t>(N));
    }
  }
  ::close(Fd);
  if (!Error.empty())
    Text.clear();
  return Error.empty();
}

} // namespace streamlife
