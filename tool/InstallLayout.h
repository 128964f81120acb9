//===- InstallLayout.h - where streamlife's own files are ------*- C++ -*-===//
//
// `streamlife` finds the clang-tidy plugin and the runtime library relative to
// its own location, so that an installed tree (cmake --install, the .deb)
// works wherever its prefix is, and so does the build tree:
//   installed:  <prefix>/bin/streamlife
//               <prefix>/<libdir>/streamlife/StreamlifeTidyModule.so
//               <prefix>/<libdir>/streamlife/libstreamlife_rt.so
//   build tree: <build>/bin/streamlife, <build>/lib/<file>
// STREAMLIFE_BIN_TO_PKGLIBDIR is the installed relative path from bindir to
// <libdir>/streamlife, computed by CMake from GNUInstallDirs. Plain C++ (no
// LLVM): the driver also builds on machines without LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_TOOL_INSTALLLAYOUT_H
#define STREAMLIFE_TOOL_INSTALLLAYOUT_H

#include <string>

namespace streamlife {

/// The directory of the running executable, "" when it cannot be told.
std::string executableDirectory();

/// \p FileName among streamlife's support files: the installed location if
/// the file is there, else the build tree's, else the installed location
/// (so that an error message names where it should be).
std::string findSupportFile(const std::string &FileName);

} // namespace streamlife

#endif
