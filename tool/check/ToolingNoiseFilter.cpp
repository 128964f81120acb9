//===- ToolingNoiseFilter.cpp - clang tooling's stray stderr lines --------===//
#include "ToolingNoiseFilter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <unistd.h>

namespace streamlife::check {
namespace {

// The capture in progress, for the signal handler: the real standard error
// (a duplicate) and the temporary file. -1 when nothing is captured.
std::atomic<int> SavedStderr{-1};
std::atomic<int> Capture{-1};

void writeAll(int Fd, const char *Data, size_t Size) {
  while (Size > 0) {
    ssize_t N = ::write(Fd, Data, Size);
    if (N <= 0)
      return;
    Data += N;
    Size -= static_cast<size_t>(N);
  }
}

/// On a crash (runs after LLVM's stack printer, which is registered first):
/// standard error back, with everything captured so far. Only
/// async-signal-safe calls.
void restoreOnCrash(void *) {
  int Saved = SavedStderr.exchange(-1);
  int File = Capture.exchange(-1);
  if (Saved < 0 || File < 0)
    return;
  ::dup2(Saved, 2);
  ::lseek(File, 0, SEEK_SET);
  char Buffer[4096];
  for (ssize_t N; (N = ::read(File, Buffer, sizeof(Buffer))) > 0;)
    writeAll(2, Buffer, static_cast<size_t>(N));
}

bool isToolingNoise(llvm::StringRef Line) {
  return Line.starts_with("Error while processing ") && Line.ends_with(".");
}

} // namespace

void restoreCapturedStandardError() { restoreOnCrash(nullptr); }

ToolingNoiseFilter::ToolingNoiseFilter() {
  static const bool HandlerInstalled = [] {
    llvm::sys::AddSignalHandler(restoreOnCrash, nullptr);
    return true;
  }();
  (void)HandlerInstalled;
  int File = -1;
  llvm::SmallString<128> Path;
  if (llvm::sys::fs::createTemporaryFile("streamlife-stderr", "txt", File, Path))
    return;
  ::unlink(Path.c_str());
  llvm::errs().flush();
  int Saved = ::dup(2);
  if (Saved < 0 || ::dup2(File, 2) < 0) {
    if (Saved >= 0)
      ::close(Saved);
    ::close(File);
    return;
  }
  SavedStderr = Saved;
  Capture = File;
}

ToolingNoiseFilter::~ToolingNoiseFilter() {
  llvm::errs().flush();
  int Saved = SavedStderr.exchange(-1);
  int File = Capture.exchange(-1);
  if (Saved < 0 || File < 0)
    return;
  ::dup2(Saved, 2);
  ::close(Saved);
  std::string Text;
  ::lseek(File, 0, SEEK_SET);
  char Buffer[4096];
  for (ssize_t N; (N = ::read(File, Buffer, sizeof(Buffer))) > 0;)
    Text.append(Buffer, static_cast<size_t>(N));
  ::close(File);
  llvm::StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, After] = Rest.split('\n');
    bool HadNewline = Line.size() < Rest.size();
    if (!isToolingNoise(Line)) {
      writeAll(2, Line.data(), Line.size());
      if (HadNewline)
        writeAll(2, "\n", 1);
    }
    Rest = After;
  }
}

} // namespace streamlife::check
