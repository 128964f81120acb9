//===- PrivatePaths.h - folders and files only this user can change -*- C++ -*-===//
//
// The runtime validator loads code it finds on disk: the PyTorch allocator
// feed it compiled earlier (a cache folder, possibly the per-user fallback in
// a world-writable /tmp) and the Python hook `streamlife run` puts on
// PYTHONPATH. Whoever can write such a file, or the folder that holds it, or
// rename a folder above it, runs code in every validated program, as root
// when root runs one. So, as ssh does with ~/.ssh (StrictModes):
//   * a file or folder that holds code is trusted only when it is owned by
//     the effective user and nobody else can write it; group write counts as
//     nobody else only for the user's private group (the group of the user's
//     own name, with no other member: Debian's rule for umask 002);
//   * every folder above it must be owned by root or that user and writable
//     by nobody else, unless it is sticky (/tmp: others cannot rename or
//     delete what is ours there);
//   * a file is checked on the descriptor that was opened, without following
//     a final symbolic link, so what is checked is what is loaded
//     (dlopen("/proc/self/fd/N")).
// Plain POSIX, no LLVM: the preloaded runtime links it.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_SUPPORT_PRIVATEPATHS_H
#define STREAMLIFE_SUPPORT_PRIVATEPATHS_H

#include <string>

namespace streamlife {

/// Why Dir may not hold code this process loads (one lowercase phrase that
/// names the offending path), or "" when it may.
std::string whyNotPrivateDirectory(const std::string &Dir);

/// Creates Dir and its missing parents with mode 0700 (existing ones stay as
/// they are), then checks it with whyNotPrivateDirectory. False with a reason.
bool makePrivateDirectory(const std::string &Dir, std::string &Error);

/// Opens Path for reading, refusing a symbolic link, and checks what was
/// opened: a regular file of the effective user that nobody else can write.
/// The descriptor (close-on-exec), or -1 with a reason; Missing tells a file
/// that is not there from one that is refused.
int openPrivateFile(const std::string &Path, std::string &Error, bool *Missing = nullptr);

/// Why a file or folder that is trusted like the program itself (owned by
/// root, by the effective user or by Owner; nobody else may write it or a
/// folder above it) is not, or "". For what an installation ships, such as
/// the Python hook: its owner is whoever installed streamlife.
std::string whyNotTrustedLike(const std::string &Path, unsigned Owner);

} // namespace streamlife

#endif
