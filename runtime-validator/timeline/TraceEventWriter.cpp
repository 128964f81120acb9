//===- TraceEventWriter.cpp - a trace-event JSON file, streamed ------------===//
#include "timeline/TraceEventWriter.h"

#include "report/Json.h"
#include "support/AtomicFile.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

namespace streamlife {
namespace rt {

namespace {

constexpr std::size_t FlushBytes = 1 << 20;
constexpr std::uint64_t FlushIntervalNs = 100'000'000;
constexpr const char *Separator = ",\n";
constexpr const char *Closing = "\n]\n";

bool writeAll(int Fd, const char *Data, std::size_t Size) {
  while (Size) {
    ssize_t N = ::write(Fd, Data, Size);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    Data += N;
    Size -= static_cast<std::size_t>(N);
  }
  return true;
}

/// Creates Partial exclusively and locks it. A stale one (a dead process's, its
/// lock gone with it) is replaced; a locked one belongs to a live writer.
int createPartial(const std::string &Partial, std::string &Error) {
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    int Fd = ::open(Partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (Fd >= 0) {
      if (::flock(Fd, LOCK_EX | LOCK_NB) != 0) { // cannot happen to a new file; be safe
        ::close(Fd);
        Error = "cannot lock '" + Partial + "'";
        return -1;
      }
      return Fd;
    }
    if (errno != EEXIST) {
      Error = "cannot create '" + Partial + "': " + std::strerror(errno);
      return -1;
    }
    int Old = ::open(Partial.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat St;
    if (Old < 0 || ::fstat(Old, &St) != 0 || !S_ISREG(St.st_mode)) {
      if (Old >= 0)
        ::close(Old);
      Error = "'" + Partial + "' exists and is not a regular file";
      return -1;
    }
    bool Live = ::flock(Old, LOCK_EX | LOCK_NB) != 0;
    ::close(Old);
    if (Live) {
      Error = "another process is writing '" + Partial +
              "'; give each process its own file with '%p' in the name";
      return -1;
    }
    ::unlink(Partial.c_str());
  }
  Error = "cannot create '" + Partial + "'";
  return -1;
}

/// True when Text is one complete JSON object (braces balanced outside strings).
bool completeObject(const char *Text, std::size_t Size) {
  if (Size < 2 || Text[0] != '{' || Text[Size - 1] != '}')
    return false;
  int Depth = 0;
  bool InString = false;
  for (std::size_t I = 0; I < Size; ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '{' || C == '[') {
      ++Depth;
    } else if (C == '}' || C == ']') {
      if (--Depth == 0 && I + 1 != Size)
        return false;
    }
  }
  return Depth == 0 && !InString;
}

} // namespace

std::string partialTracePath(const std::string &Path) { return Path + ".partial"; }

void appendMicros(std::string &Out, std::uint64_t Ns) {
  char Digits[32];
  auto [End, Ec] = std::to_chars(Digits, Digits + sizeof(Digits), Ns / 1000);
  (void)Ec;
  Out.append(Digits, End);
  unsigned Frac = static_cast<unsigned>(Ns % 1000);
  char Tail[4] = {'.', static_cast<char>('0' + Frac / 100), static_cast<char>('0' + Frac / 10 % 10),
                  static_cast<char>('0' + Frac % 10)};
  Out.append(Tail, 4);
}

TraceEventWriter::~TraceEventWriter() {
  if (Fd >= 0) {
    flush();
    ::close(Fd);
  }
}

bool TraceEventWriter::open(const std::string &File, std::uint64_t ByteLimit, std::string &Error) {
  if (std::string Why = whyNotReplaceable(File); !Why.empty()) {
    Error = "'" + File + "' " + Why;
    return false;
  }
  Path = File;
  Partial = partialTracePath(File);
  Fd = createPartial(Partial, Error);
  if (Fd < 0)
    return false;
  Limit = ByteLimit;
  Buffer.reserve(FlushBytes + 4096);
  Buffer = "[\n";
  Bytes = Buffer.size();
  flush();
  return true;
}

bool TraceEventWriter::fits(std::size_t Add, std::uint64_t Count) {
  if (!Dropped && (!Limit || Bytes + Add <= Limit))
    return true;
  // Past the cut nothing is written, so no held end will be: their second
  // ends, when they come, are dropped as first ends.
  Dropped += Count + HeldFlowEnds.size();
  HeldFlowEnds.clear();
  return false;
}

void TraceEventWriter::put(std::string_view Event) {
  if (Events) {
    Buffer += Separator;
    Bytes += 2;
  }
  Buffer += Event;
  Bytes += Event.size();
  ++Events;
}

bool TraceEventWriter::append(std::string_view Event) {
  if (Fd < 0)
    return false;
  if (!fits(Event.size() + (Events ? 2 : 0), 1))
    return false;
  put(Event);
  if (Buffer.size() >= FlushBytes)
    flush();
  return true;
}

bool TraceEventWriter::appendFlowEnd(std::uint64_t Id, std::string_view Event) {
  if (Fd < 0)
    return false;
  auto It = HeldFlowEnds.find(Id);
  if (It == HeldFlowEnds.end()) {
    if (Dropped) {
      ++Dropped;
      return false;
    }
    HeldFlowEnds.emplace(Id, std::string(Event));
    return true;
  }
  std::string First = std::move(It->second);
  HeldFlowEnds.erase(It);
  if (!fits(First.size() + Event.size() + (Events ? 4 : 2), 2))
    return false;
  put(First);
  put(Event);
  if (Buffer.size() >= FlushBytes)
    flush();
  return true;
}

void TraceEventWriter::flushIfDue(std::uint64_t NowNs) {
  if (Fd < 0 || Buffer.empty())
    return;
  if (NowNs - LastFlushNs >= FlushIntervalNs) {
    LastFlushNs = NowNs;
    flush();
  }
}

bool TraceEventWriter::flush() {
  if (Buffer.empty() || WriteFailed)
    return !WriteFailed;
  if (!writeAll(Fd, Buffer.data(), Buffer.size()))
    WriteFailed = true;
  Buffer.clear();
  return !WriteFailed;
}

bool TraceEventWriter::finish(std::string_view ClosingEvents, std::string &Error) {
  if (Fd < 0) {
    Error = "the timeline was not open";
    return false;
  }
  // A first end still held has no second: alone it would draw no arrow and
  // make the trace invalid.
  HeldFlowEnds.clear();
  if (!ClosingEvents.empty()) {
    if (Events)
      Buffer += Separator;
    Buffer += ClosingEvents;
    ++Events;
  }
  Buffer += Closing;
  bool Ok = flush();
  int Err = errno;
  struct stat Mine, There;
  bool Same = ::fstat(Fd, &Mine) == 0 && ::lstat(Partial.c_str(), &There) == 0 &&
              Mine.st_ino == There.st_ino && Mine.st_dev == There.st_dev;
  ::close(Fd); // releases the lock
  Fd = -1;
  if (!Ok) {
    Error = "cannot write '" + Partial + "': " + std::strerror(Err);
    return false;
  }
  if (!Same) {
    Error = "'" + Partial + "' was replaced while the program ran";
    return false;
  }
  if (std::string Why = whyNotReplaceable(Path); !Why.empty()) {
    Error = "'" + Path + "' " + Why + "; the trace is in '" + Partial + "'";
    return false;
  }
  if (std::rename(Partial.c_str(), Path.c_str()) != 0) {
    Error = "cannot rename '" + Partial + "' to '" + Path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool finishPartialTrace(const std::string &Partial, const std::string &Note, std::string &Error) {
  const std::string Suffix = ".partial";
  if (Partial.size() <= Suffix.size() ||
      Partial.compare(Partial.size() - Suffix.size(), Suffix.size(), Suffix) != 0) {
    Error = "'" + Partial + "' is not a partial trace";
    return false;
  }
  int Fd = ::open(Partial.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat St;
  if (Fd < 0 || ::fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    if (Fd >= 0)
      ::close(Fd);
    Error = "cannot open '" + Partial + "'";
    return false;
  }
  if (::flock(Fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(Fd);
    Error = "'" + Partial + "' is still being written";
    return false;
  }
  // Events are separated by ",\n", so every line but the last ends with a
  // complete event and its separator; the last line is kept when it is a
  // complete event (the process died between two appends), else dropped.
  std::vector<char> Data(static_cast<std::size_t>(St.st_size));
  ssize_t Got = Data.empty() ? 0 : ::pread(Fd, Data.data(), Data.size(), 0);
  if (Got != static_cast<ssize_t>(Data.size()) || Data.size() < 2 || Data[0] != '[' ||
      Data[1] != '\n') {
    ::close(Fd);
    Error = "'" + Partial + "' is not a streamlife timeline";
    return false;
  }
  std::size_t LineStart = Data.size();
  while (LineStart > 0 && Data[LineStart - 1] != '\n')
    --LineStart;
  std::size_t Keep = Data.size();
  std::string Tail;
  if (LineStart == Keep) {
    // Ends with a newline: after "[" or after a separator.
  } else if (completeObject(Data.data() + LineStart, Keep - LineStart)) {
    Tail += Separator;
  } else {
    Keep = LineStart;
  }
  std::string Event = "{\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":0,\"name\":\"";
  appendJsonEscaped(Event, Note);
  Event += "\",\"cat\":\"streamlife\"}";
  Tail += Event;
  Tail += Closing;
  bool Ok = ::ftruncate(Fd, static_cast<off_t>(Keep)) == 0 && ::lseek(Fd, 0, SEEK_END) >= 0 &&
            writeAll(Fd, Tail.data(), Tail.size());
  ::close(Fd);
  if (!Ok) {
    Error = "cannot write '" + Partial + "': " + std::strerror(errno);
    return false;
  }
  std::string Final = Partial.substr(0, Partial.size() - Suffix.size());
  if (std::string Why = whyNotReplaceable(Final); !Why.empty()) {
    Error = "'" + Final + "' " + Why;
    return false;
  }
  if (std::rename(Partial.c_str(), Final.c_str()) != 0) {
    Error = "cannot rename '" + Partial + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace rt
} // namespace streamlife
