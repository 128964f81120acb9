//===- AtomicFile.h - replace an output file safely and atomically -*- C++ -*-===//
//
// Both `streamlife check -o FILE` and the runtime's `--report FILE` replace a
// file whose name came from the user, possibly in a folder others can write
// to (/tmp). Writing it in place destroys the old contents before the new ones
// exist; a fixed sibling name ("FILE.tmp") can be planted as a symlink; and
// rename() over a symlink, FIFO or device node replaces that node. So:
//   * the target must be absent or a regular file (checked with lstat: a
//     symlink is refused, not followed);
//   * the temporary is created by mkstemp() in the target's folder (O_EXCL,
//     unpredictable name, never follows a planted link), so the final rename()
//     is atomic and stays on one file system;
//   * the temporary gets the mode a plain creat() would have given (0666 less
//     the umask), or the replaced file's mode, owner and group (a root CI
//     job fixing a developer's checkout must not leave root's files); a file
//     whose owner or group cannot be kept is refused, and so are a read-only
//     file (the rename would need only a writable folder), a file with
//     several hard links (the others would keep the old text), and another
//     user's file in a sticky shared folder such as /tmp (the kernel's
//     protected_regular rule);
//   * nothing is renamed unless every byte was written and closed cleanly; the
//     temporary is removed on failure and on destruction.
// Plain POSIX, no LLVM: the preloaded runtime links it too.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_SUPPORT_ATOMICFILE_H
#define STREAMLIFE_SUPPORT_ATOMICFILE_H

#include <string>
#include <string_view>

namespace streamlife {

/// Why Path cannot be replaced ("is a symbolic link; give the file itself",
/// "is read-only", ...), or an empty string when it is absent or a regular
/// file this process may rewrite. One lowercase phrase without the path.
std::string whyNotReplaceable(const std::string &Path);

class AtomicFile {
public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  /// Removes the temporary unless commit() succeeded.
  ~AtomicFile();

  /// Checks the target and creates the temporary beside it. On failure returns
  /// false with a one-line reason in Error (without the "cannot write" prefix).
  bool open(const std::string &Path, std::string &Error);
  /// The temporary's descriptor (valid between open() and commit()).
  int fd() const { return Fd; }
  const std::string &temporaryPath() const { return Temp; }
  /// Writes all of Data to the temporary (retrying short writes).
  bool write(std::string_view Data, std::string &Error);
  /// Closes the temporary and renames it over the target, re-checking the
  /// target first (it may have become a link meanwhile).
  bool commit(std::string &Error);
  /// Drops the temporary; the target is untouched.
  void discard();

private:
  std::string Target;
  std::string Temp;
  int Fd = -1;
};

/// open + write + commit.
bool writeFileAtomically(const std::string &Path, std::string_view Contents, std::string &Error);

} // namespace streamlife

#endif
