//===- CallSiteNames.h - captured stacks as a report prints them -*- C++ -*-===//
//
// The reading half of call sites: symbolizes the return addresses an OpRecord
// holds (callsites/CallSites.h), skips the CUDA libraries' and the
// validator's own frames, and picks the Python frames a user wrote. Runs at
// report time only, never on the intercepting path of a call that reports
// nothing.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_CALLSITENAMES_H
#define STREAMLIFE_RT_REPORT_CALLSITENAMES_H

#include "callsites/CallSites.h"

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamlife {
namespace rt {

/// One symbolized frame.
struct Frame {
  void *PC = nullptr;
  std::string Function; ///< demangled; empty when unknown
  std::string Module;   ///< path of the shared object or executable
  std::uintptr_t ModuleOffset = 0;
  /// True when Function is the symbol whose extent (start and size) holds the
  /// call: read from the module's .symtab, or a dynamic symbol whose size
  /// covers it. dladdr's nearest exported symbol before an unexported
  /// function names another function: false then.
  bool FunctionHoldsCall = false;
};

Frame symbolize(void *ReturnAddress);
/// symbolize() where dladdr1(ReturnAddress - 1, &CallInfo, &SymbolEntry,
/// RTLD_DL_SYMENT) succeeded already: a caller's first sight
/// (intercept/CallerLibraries.h) asks dladdr once, whose scan of a large
/// library's dynamic symbols is most of its cost.
Frame symbolizeCall(void *ReturnAddress, const Dl_info &CallInfo, const void *SymbolEntry);
/// True for frames inside the CUDA libraries, CUPTI or this validator: they are
/// never the call site a user wants to see.
bool isRuntimeModule(std::string_view ModulePath);
/// A module of this validator that ld.so knows by a name without the
/// validator's file names: the PyTorch allocator feed, loaded through the
/// descriptor that was checked (/proc/self/fd/N, intercept/TorchFeed.cpp). Its
/// frames (the trace tracker's, under every allocation of a thread with no
/// Python code: autograd's) are then skipped as the validator's own, and its
/// locks are never the program's. Path is the module's name as dladdr gives it.
void noteValidatorModule(const std::string &Path);
/// True for a path noteValidatorModule was given, exactly.
bool isNotedValidatorModule(std::string_view ModulePath);
/// Drops the leading runtime frames and keeps at most Keep frames; the first one
/// is the call site. Empty when every frame is a runtime frame.
std::vector<Frame> userFrames(const std::vector<void *> &Frames, int Keep);
/// "main (/path/pipeline+0x1234)" or "(/path/pipeline+0x1234)"; with a
/// source location, "main /src/pipeline.cpp:12:3 (/path/pipeline+0x1234)"
/// (the module and offset stay last, where suppression patterns anchor).
std::string formatFrame(const Frame &F, const std::string &SourceLocation = "");

/// The frames a report prints for an op, call site first: for a call from
/// Python the Python stack from its innermost user frame on (PyTorch's and the
/// standard library's own files skipped), instead of the native frames of
/// libtorch under it; otherwise userFrames(), each with its source file and
/// line when Symbolizer names one (report/SourceLocations.h; empty: none).
/// At most Keep.
std::vector<std::string> reportFrames(const OpRecord &R, int Keep,
                                      const std::string &Symbolizer = "");
/// Asks the symbolizer at once for the native frames reportFrames would print
/// for all of Records, so that the reportFrames calls of one finding's sites
/// find them known: one symbolizer run per module per finding, not per site.
void prefetchSourceLocations(const std::vector<OpRecord> &Records, int Keep,
                             const std::string &Symbolizer);
/// What identifies an op's call site for de-duplication and the block
/// accounting: the innermost user frame of the highest-level language present
/// (a Python line, else the first native frame outside the CUDA libraries),
/// with the op's name. Two Python lines that reach the same libtorch frame
/// are two sites.
std::uint64_t callSiteKey(const OpRecord &R);

} // namespace rt
} // namespace streamlife

#endif
