//===- ReportOutput.cpp - where `streamlife check` writes its report ------===//
#include "ReportOutput.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <sys/stat.h>

namespace streamlife::check {
namespace {

/// A source or header a compile might read: never a report's destination.
bool looksLikeSource(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return llvm::StringSwitch<bool>(Ext.lower())
      .Cases({".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".cuh"}, true)
      .Cases({".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp"}, true)
      .Cases({".m", ".mm", ".py"}, true)
      .Default(false);
}

bool sameFile(const struct stat &A, const std::string &Other) {
  struct stat B;
  return stat(Other.c_str(), &B) == 0 && A.st_dev == B.st_dev && A.st_ino == B.st_ino;
}

} // namespace

bool ReportOutput::open(const std::optional<std::string> &Target, std::string &Error) {
  Path = Target;
  if (!Path)
    return true;
  std::string Why;
  if (!File.open(*Path, Why)) {
    Error = "cannot write '" + *Path + "': " + Why;
    return false;
  }
  // An interrupted run (Ctrl-C) leaves neither a temporary nor a new report.
  llvm::sys::RemoveFileOnSignal(File.temporaryPath());
  FileStream = std::make_unique<llvm::raw_fd_ostream>(File.fd(), /*shouldClose=*/false);
  return true;
}

bool ReportOutput::checkNotAnInput(llvm::ArrayRef<std::string> Inputs, std::string &Error) const {
  if (!Path)
    return true;
  struct stat Target;
  if (stat(Path->c_str(), &Target) != 0)
    return true; // a new file cannot be an input
  for (const std::string &Input : Inputs)
    if (sameFile(Target, Input)) {
      Error = "output '" + *Path + "' is also an input ('" + Input +
              "'); refusing to overwrite it";
      return false;
    }
  if (looksLikeSource(*Path)) {
    Error = "output '" + *Path +
            "' is an existing source file; refusing to overwrite it (did a shell glob "
            "follow -o?)";
    return false;
  }
  return true;
}

llvm::raw_ostream &ReportOutput::stream() {
  return FileStream ? static_cast<llvm::raw_ostream &>(*FileStream) : llvm::outs();
}

std::optional<std::string> ReportOutput::temporaryPath() const {
  if (!Path || File.temporaryPath().empty())
    return std::nullopt;
  return File.temporaryPath();
}

bool ReportOutput::finish(std::string &Error) {
  if (!Path)
    return standardOutputIsHealthy(Error);
  FileStream->flush();
  if (FileStream->has_error()) {
    Error = "cannot write '" + *Path + "': " + FileStream->error().message();
    FileStream->clear_error();
    llvm::sys::DontRemoveFileOnSignal(File.temporaryPath());
    File.discard();
    return false;
  }
  FileStream.reset();
  llvm::sys::DontRemoveFileOnSignal(File.temporaryPath());
  std::string Why;
  if (!File.commit(Why)) {
    Error = "cannot write '" + *Path + "': " + Why;
    return false;
  }
  return true;
}

bool standardOutputIsHealthy(std::string &Error) {
  llvm::raw_fd_ostream &Out = llvm::outs();
  Out.flush();
  if (!Out.has_error())
    return true;
  Error = "cannot write to standard output: " + Out.error().message();
  Out.clear_error();
  return false;
}

} // namespace streamlife::check
