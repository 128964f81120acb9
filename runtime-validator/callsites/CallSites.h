//===- CallSites.h - "what did this": names and captured stacks -*- C++ -*-===//
//
// The engine stores an OpId with every access, allocation and release; this
// table gives it meaning: a name (a kernel, "cuMemcpyAsync", "cuMemFreeAsync")
// and the raw return addresses of the CUDA call (and its Python stack, when
// it came from Python). Stacks are captured cheaply (FastUnwind.h, no
// symbolization) because almost none is ever reported; report/CallSiteNames.h
// symbolizes them only when a finding names them.
//
// Identical (name, stack) pairs share one OpId, so a loop that launches the
// same kernel from the same place a million times adds one entry.
//
//===----------------------------------------------------------------------===//
#ifndef STREAMLIFE_RT_CALLSITES_CALLSITES_H
#define STREAMLIFE_RT_CALLSITES_CALLSITES_H

#include "callsites/PythonStacks.h"
#include "engine/Engine.h"

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
  /// (callsites/PythonStacks.h); reports show it before the native frames.
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

  /// Distinct for every table the process creates (never 0): what per-thread
  /// caches of a table's answers are keyed on, as an address may be reused.
  std::uint64_t serial() const { return Serial; }

private:
  OpId internLocked(std::uint64_t Hash, NameId Name, void *const *Frames, int Count, const PyFrameRef *Python,
                    int PythonCount);

  std::uint64_t Serial = 0;
  mutable std::mutex Lock;
  std::vector<std::string> Names;
  std::unordered_map<std::string, NameId> NameIds;
  std::vector<OpRecord> Ops; ///< index = OpId; Ops[0] is NoOp
  std::unordered_multimap<std::uint64_t, OpId> OpsByHash;
};

} // namespace rt
} // namespace streamlife

#endif
