//===- CallSites.h - "what did this": names and native stacks ---*- C++ -*-===//
//
// The engine stores an OpId with every access, allocation and release; this
// table gives it meaning: a name (a kernel, "cuMemcpyAsync", "cuMemFreeAsync")
// and the raw return addresses of the CUDA call. Stacks are captured cheaply
// (backtrace(), no symbolization) because almost none is ever reported; they
// are symbolized only when a finding names them.
//
// Identical (name, stack) pairs share one OpId, so a loop that launches the
// same kernel from the same place a million times adds one entry.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_REPORT_CALLSITES_H
#define STREAMLIFE_RT_REPORT_CALLSITES_H

#include "engine/Engine.h"
#include "report/PythonStacks.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamlife {
namespace rt {

using NameId = std::uint32_t;

/// Most frames a stack may keep (the stack_depth option is clamped to it).
constexpr int MaxStackFrames = 64;

/// Fills Frames with up to Max return addresses of the calling thread.
int captureStack(void **Frames, int Max);

struct OpRecord {
  NameId Name = 0;
  std::vector<void *> Frames;
  /// The Python stack, innermost first, when the call came from Python code
  /// (report/PythonStacks.h); reports show it before the native frames.
  std::vector<PyFrameRef> Python;
};

class OpTable {
public:
  OpTable();
  /// Interns a name; the same text always gets the same id.
  NameId internName(std::string_view Name);
  /// Interns (name, stack). Never returns NoOp.
  OpId intern(NameId Name, void *const *Frames, int Count);
  /// Interns (name, native stack, Python stack).
  OpId intern(NameId Name, void *const *Frames, int Count, const PyFrameRef *Python,
              int PythonCount);
  OpId intern(std::string_view Name, void *const *Frames, int Count) {
    return intern(internName(Name), Frames, Count);
  }

  /// Op's stack under another name (one launch's accesses of two provenances).
  OpId sameStack(OpId Op, NameId Name);

  std::string name(NameId Id) const;
  /// The record of Op; an empty record for NoOp or an unknown id.
  OpRecord op(OpId Op) const;
  std::size_t size() const;

private:
  mutable std::mutex Lock;
  std::vector<std::string> Names;
  std::unordered_map<std::string, NameId> NameIds;
  std::vector<OpRecord> Ops; ///< index = OpId; Ops[0] is NoOp
  std::unordered_multimap<std::uint64_t, OpId> OpsByHash;
};

/// One symbolized frame.
struct Frame {
  void *PC = nullptr;
  std::string Function; ///< demangled; empty when unknown
  std::string Module;   ///< path of the shared object or executable
  std::uintptr_t ModuleOffset = 0;
};

Frame symbolize(void *ReturnAddress);
/// True for frames inside the CUDA libraries, CUPTI or this validator: they are
/// never the call site a user wants to see.
bool isRuntimeModule(std::string_view ModulePath);
/// Drops the leading runtime frames and keeps at most Keep frames; the first one
/// is the call site. Empty when every frame is a runtime frame.
std::vector<Frame> userFrames(const std::vector<void *> &Frames, int Keep);
/// "main (/path/pipeline+0x1234)" or "(/path/pipeline+0x1234)".
std::string formatFrame(const Frame &F);

/// The frames a report prints for an op, call site first: for a call from
/// Python the Python stack from its innermost user frame on (PyTorch's and the
/// standard library's own files skipped), instead of the native frames of
/// libtorch under it; otherwise userFrames(). At most Keep.
std::vector<std::string> reportFrames(const OpRecord &R, int Keep);
/// What identifies an op's call site for de-duplication and the block
/// accounting: the innermost user frame of the highest-level language present
/// (a Python line, else the first native frame outside the CUDA libraries),
/// with the op's name. Two Python lines that reach the same libtorch frame
/// are two sites.
std::uint64_t callSiteKey(const OpRecord &R);

} // namespace rt
} // namespace streamlife

#endif
