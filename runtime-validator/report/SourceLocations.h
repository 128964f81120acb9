//===- SourceLocations.h - file:line of native frames -----------*- C++ -*-===//
//
// The source file, line and column of a native frame, from an external
// symbolizer, as the sanitizers get them: llvm-symbolizer when one is on PATH
// (or named by the symbolizer_path option), else binutils' addr2line. The
// symbolizer reads the module's DWARF line table in its own process, so the
// validator links no debug-info library and a program without debug info (or
// a machine without either tool) just gets no file:line.
//
// Only reports call this: once per printed stack, one symbolizer run per
// module with every address of that module on its command line, and a cache
// so that a frame is asked for once per process. The interception path never
// does.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_SOURCELOCATIONS_H
#define STREAMLIFE_RT_REPORT_SOURCELOCATIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace streamlife {
namespace rt {

/// One address to locate: a module and the call instruction's address in it
/// (an offset from its load base) and in memory.
struct CodeAddress {
  std::string Module;
  std::uintptr_t ModuleOffset = 0;
  std::uintptr_t Absolute = 0;
};

/// Which symbolizer to run: the symbolizer_path option when set, else
/// llvm-symbolizer (also versioned, llvm-symbolizer-22 ... -14) on PATH, else
/// addr2line on PATH; empty when none is found. Found once per process.
std::string findSymbolizer(const std::string &Configured);

/// "file:line:column" (or "file:line") for each address, in order; "" where
/// the symbolizer knows none (no debug info, no symbolizer, a tool that failed
/// or ran over its time limit). Thread-safe.
std::vector<std::string> sourceLocations(const std::vector<CodeAddress> &Addresses,
                                         const std::string &Symbolizer);

} // namespace rt
} // namespace streamlife

#endif
